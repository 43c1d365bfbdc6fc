/**
 * Clips whose upload is gone: found on read (as warnings) and relinked to another upload.
 */
import type { Db } from "../../db/client.ts";
import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { findUploadsByIds } from "../../db/repositories/uploads.ts";
import { clipLabel } from "./clip-label.ts";
import type { CompositionWarning, Timeline } from "./schema.ts";

/** Where a clip of `doc` uses an upload (media asset or caption source). */
export interface ClipUpload {
  track: number;
  clip: number;
  uploadId: string;
}

/** Every clip of `doc` that uses an upload, in track/clip order. */
export function clipUploads(doc: Pick<Timeline, "tracks">): ClipUpload[] {
  const out: ClipUpload[] = [];
  doc.tracks.forEach((track, t) => {
    track.clips.forEach((clip, c) => {
      const asset = clip.asset as { uploadId?: string; source?: { uploadId?: string } };
      const uploadId = asset.uploadId ?? asset.source?.uploadId;
      if (uploadId) out.push({ track: t, clip: c, uploadId });
    });
  });
  return out;
}

/**
 * One `upload_missing` warning per clip of the stored composition whose upload no longer exists
 * for its owner, naming the clip by its name (the upload's file name, kept on the clip when the
 * upload was deleted) and start ("cockatoo.mp4 at 0:06"). Empty when nothing is missing.
 */
export async function missingClipWarnings(db: Db, row: CompositionRow): Promise<CompositionWarning[]> {
  const uses = clipUploads(row.document);
  if (uses.length === 0) return [];
  const found = new Set(
    (await findUploadsByIds(db, row.userId, [...new Set(uses.map((u) => u.uploadId))])).map((u) => u.id),
  );
  return uses
    .filter((u) => !found.has(u.uploadId))
    .map((u) => {
      const clip = row.document.tracks[u.track]?.clips[u.clip];
      return {
        code: "upload_missing" as const,
        message: `${clip ? clipLabel(clip) : "a clip"}: its upload was deleted; relink the clip to another upload or delete it`,
        path: `/tracks/${u.track}/clips/${u.clip}`,
        clipId: clip?.id ?? "",
        uploadId: u.uploadId,
      };
    });
}
