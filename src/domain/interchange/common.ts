/** Namespace of Cutroom's own fields inside OTIO `metadata` objects (other tools keep but ignore it). */
export const CUTROOM_NS = "cutroom";

/**
 * Clip fields OTIO has no place for: an export keeps them under the clip's `metadata.cutroom`
 * and an import restores them from there.
 */
export const CLIP_EXTRAS = [
  "fadeIn",
  "fadeOut",
  "fit",
  "transform",
  "crop",
  "motion",
  "filter",
  "volume",
  "muted",
  "metadata",
] as const;

/** Track fields OTIO has no place for, kept under the track's `metadata.cutroom` likewise. */
export const TRACK_EXTRAS = ["enabled", "muted", "volume", "ducking"] as const;

/** How an exported file names and locates one media source. */
export interface ResolvedMedia {
  /** Display name: the upload's file name, or the last path segment of a `src` URL. */
  name: string;
  /** Where a tool reads it: a signed `https://` URL, a `file://` URL or the `src` URL. */
  targetUrl: string;
  /** Local absolute path when the export asked for paths (storage on local disk), else null. */
  path: string | null;
  /** Source length in seconds when known (probed uploads), else null. */
  duration: number | null;
  /** The upload id for `uploadId` assets. */
  uploadId?: string;
}

/** Rounds seconds (or frame counts) to a microsecond so that float noise from rates does not leak. */
export function roundSeconds(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Last path segment of a URL or path, without query string, percent-decoded ("" when none). */
export function baseName(url: string): string {
  const bare = url.split(/[?#]/)[0] ?? "";
  const last = bare.split(/[\\/]/).pop() ?? "";
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
