import type { Static } from "typebox";
import { type ErrorDetail, invalidRequest } from "../../errors.ts";
import {
  type Asset,
  CANVAS_FPS,
  type Canvas,
  type ClipWrite,
  type CompositionWrite,
  type MarkerWriteSchema,
  type TrackWrite,
} from "../composition/schema.ts";
import { baseName, CLIP_EXTRAS, roundSeconds, TRACK_EXTRAS } from "./common.ts";
import {
  type ClipItem,
  cutroom,
  type ImportWarning,
  type OtioItem,
  parseItem,
  parseItems,
  rangeSeconds,
  requireDuration,
  seconds,
  type TransitionItem,
  trimItems,
  upgradeSchema,
} from "./otio-items.ts";
import { metadataKeeper, OTIO_MEDIA_NS, OTIO_NS, withForeign } from "./otio-metadata.ts";
import { type OtioMarkerIn, type OtioTrackIn, parseAt, Stack, Timeline, Track } from "./otio-schema.ts";

/** A validated OTIO timeline, flattened to what the importer reads. */
export interface ParsedOtio {
  /** JSON Pointer of the document in the request body ("/otio", or "" for a bare document). */
  root: string;
  name: string;
  metadata: Record<string, unknown>;
  stackMarkers: { path: string; marker: OtioMarkerIn }[];
  /** `range`: the part of the track's children it shows (its `source_range`, seconds), when it has one. */
  tracks: {
    path: string;
    track: OtioTrackIn;
    items: OtioItem[];
    range?: { start: number; duration: number } | undefined;
  }[];
  /** The timeline's frame rate: its `global_start_time`'s, else the one most of its items' ranges use. */
  rate: number | undefined;
  /** What the document holds that Cutroom does not carry. */
  warnings: ImportWarning[];
}

/** One external media source an OTIO document refers to, and where. */
export interface OtioMediaUse {
  /** Reference name (usually the file name), possibly empty. */
  name: string;
  /** `target_url` of an `ExternalReference.1`, or "" for missing media. */
  targetUrl: string;
  /** Upload id recorded by a Cutroom export (`metadata.cutroom.uploadId`), when present. */
  uploadIdHint?: string;
  /** Further upload names it matches (an image sequence's file name prefix, its folder). */
  otherNames?: string[];
  /**
   * An image sequence: matched to an upload (a video or image made from the frames) when one
   * is named like it, else its time is left empty with a warning, whatever `unmatched` says.
   */
  sequence?: boolean;
  /** Whether it sits on an audio track (decides the asset type). */
  audio: boolean;
  /** JSON Pointer of the clip item. */
  path: string;
}

/** What an {@link OtioMediaUse} resolved to: one of the caller's uploads, or an https `src`. */
export type ResolvedUse =
  | { uploadId: string; uploadType: string /** probed length, seconds */; duration?: number | null }
  | { src: string };

/**
 * Validates an OpenTimelineIO `Timeline.1` object (as parsed from JSON) and flattens it.
 * @param raw - the document; `path` is where it sits in the request body (for error paths).
 * @throws AppError 400 `invalid_request` naming the JSON Pointer of every bad field, of a
 *   nested stack (compound clip, not supported) or of an unknown item type.
 */
export function parseOtio(raw: unknown, path = "/otio"): ParsedOtio {
  const timeline = parseAt(Timeline, raw, path);
  const stack = parseAt(Stack, timeline.tracks, `${path}/tracks`);
  const warnings: ImportWarning[] = [];
  const tracks = stack.children.map((child, j) => {
    const trackPath = `${path}/tracks/children/${j}`;
    const schema = upgradeSchema(child.OTIO_SCHEMA);
    if (schema !== "Track.1") {
      // A clip or nested stack straight in the top-level stack: a video track of its own.
      const name = typeof child.name === "string" ? child.name : null;
      const items = parseItem(child, `${trackPath}`, warnings);
      return {
        path: trackPath,
        track: { OTIO_SCHEMA: "Track.1" as const, kind: "Video" as const, name, children: [] },
        items,
      };
    }
    const track = parseAt(Track, { ...child, OTIO_SCHEMA: schema }, trackPath);
    for (const [k, e] of (
      (track.effects as { OTIO_SCHEMA?: unknown }[] | null | undefined) ?? []
    ).entries()) {
      warnings.push({
        path: `${trackPath}/effects/${k}`,
        message: `effect on a track not carried: ${String(e?.OTIO_SCHEMA)}`,
      });
    }
    return {
      path: trackPath,
      track,
      items: parseItems(track.children, trackPath, warnings),
      range: track.source_range ? rangeSeconds(track.source_range) : undefined,
    };
  });
  for (const [k, e] of ((stack.effects as { OTIO_SCHEMA?: unknown }[] | null | undefined) ?? []).entries()) {
    warnings.push({
      path: `${path}/tracks/effects/${k}`,
      message: `effect on the stack not carried: ${String(e?.OTIO_SCHEMA)}`,
    });
  }
  const start = timeline.global_start_time;
  const counts = new Map<number, number>();
  for (const t of tracks) {
    for (const item of t.items) {
      const rate =
        item.kind === "clip"
          ? item.clip.source_range?.duration.rate
          : item.kind === "gap"
            ? item.rate
            : undefined;
      if (rate !== undefined) counts.set(rate, (counts.get(rate) ?? 0) + 1);
    }
  }
  return {
    root: path,
    name: timeline.name ?? "",
    metadata: timeline.metadata ?? {},
    stackMarkers: (stack.markers ?? []).map((marker, i) => ({ path: `${path}/tracks/markers/${i}`, marker })),
    tracks,
    rate: start ? start.rate : [...counts].sort((a, b) => b[1] - a[1])[0]?.[0],
    warnings,
  };
}

/**
 * The document with the length of each clip that has no range (neither `source_range` nor
 * `available_range`) taken from `probed` (its upload's probed duration, seconds).
 * @throws AppError 400 naming the clip when no length is known.
 */
export function withProbedDurations(
  doc: ParsedOtio,
  probed: (clipPath: string) => number | null,
): ParsedOtio {
  return {
    ...doc,
    tracks: doc.tracks.map((t) => ({
      ...t,
      items: t.items.map((item) =>
        item.kind === "clip" && item.duration === null
          ? { ...item, duration: requireDuration({ ...item, duration: probed(item.path) }) }
          : item,
      ),
    })),
  };
}

/**
 * The document without the clips at `paths`: `gap` leaves their time empty (later items keep
 * their time, as lifting them out in an editor would); `drop` removes them and the transitions
 * touching them, so later items on the track move up (a ripple delete).
 */
export function withoutClips(doc: ParsedOtio, paths: Set<string>, mode: "drop" | "gap"): ParsedOtio {
  if (paths.size === 0) return doc;
  return {
    ...doc,
    tracks: doc.tracks.map((t) => {
      const items: ParsedOtio["tracks"][number]["items"] = [];
      t.items.forEach((item, i) => {
        if (item.kind === "clip" && paths.has(item.path)) {
          if (mode === "gap")
            items.push({ kind: "gap", path: item.path, duration: item.duration ?? 0, replaces: item });
          else if (items.at(-1)?.kind === "transition") items.pop();
          return;
        }
        const before = t.items[i - 1];
        const droppedBefore = before?.kind === "clip" && paths.has(before.path);
        if (mode === "drop" && item.kind === "transition" && droppedBefore) return;
        items.push(item);
      });
      return { ...t, items };
    }),
  };
}

/** Extensions an upload made from an image sequence's frames may have (matched by name + extension). */
const SEQUENCE_FILE_EXTENSIONS = ["mov", "mp4", "mxf", "mkv", "webm", "png", "jpg", "tif", "tiff"];

/** Every external media use of a parsed document (missing references included, by clip name). */
export function listOtioMedia(doc: ParsedOtio): OtioMediaUse[] {
  const uses: OtioMediaUse[] = [];
  for (const { track, items } of doc.tracks) {
    for (const item of items) {
      if (item.kind !== "clip") continue;
      const ref = item.reference;
      const ours = cutroom(item.clip.metadata);
      if (ours.asset || ref?.OTIO_SCHEMA === "GeneratorReference.1") continue;
      const hint = ref ? cutroom(ref.metadata).uploadId : undefined;
      if (ref?.OTIO_SCHEMA === "ImageSequenceReference.1") {
        const prefix = (ref.name_prefix ?? "").replace(/[\s._-]+$/, "");
        const folder = baseName((ref.target_url_base ?? "").replace(/[\\/]+$/, ""));
        const stems = [ref.name, prefix, folder, item.clip.name].filter((n): n is string => !!n);
        // The frames made into one video or image file: the same name with its extension.
        const names = [...stems, ...stems.flatMap((n) => SEQUENCE_FILE_EXTENSIONS.map((e) => `${n}.${e}`))];
        uses.push({
          name: names[0] ?? "",
          targetUrl: "",
          otherNames: names.slice(1),
          sequence: true,
          ...(typeof hint === "string" ? { uploadIdHint: hint } : {}),
          audio: track.kind === "Audio",
          path: item.path,
        });
        continue;
      }
      uses.push({
        name: ref?.name || (ref?.OTIO_SCHEMA === "ExternalReference.1" ? "" : (item.clip.name ?? "")),
        targetUrl: ref?.OTIO_SCHEMA === "ExternalReference.1" ? ref.target_url : "",
        ...(typeof hint === "string" ? { uploadIdHint: hint } : {}),
        audio: track.kind === "Audio",
        path: item.path,
      });
    }
  }
  return uses;
}

const IMAGE_EXT = /\.(png|jpe?g|webp|gif|bmp|tiff?|exr|dpx)(\?|#|$)/i;

function mediaAsset(use: ResolvedUse, audio: boolean, hintedType: unknown, targetUrl: string): Asset {
  if ("src" in use) {
    const type =
      hintedType === "video" || hintedType === "image" || hintedType === "audio"
        ? hintedType
        : audio
          ? "audio"
          : IMAGE_EXT.test(targetUrl)
            ? "image"
            : "video";
    return { type, src: use.src };
  }
  const type = audio
    ? "audio"
    : use.uploadType === "image"
      ? "image"
      : use.uploadType === "audio"
        ? "audio"
        : "video";
  return { type, uploadId: use.uploadId };
}

function buildClip(
  item: ClipItem,
  duration: number,
  start: number,
  audio: boolean,
  resolve: (path: string) => ResolvedUse,
  keep: ReturnType<typeof metadataKeeper>,
  warnings: ImportWarning[],
) {
  const ours = cutroom(item.clip.metadata);
  const ref = item.reference;
  const clip: Record<string, unknown> = {};
  if (typeof ours.id === "string") clip.id = ours.id;
  if (item.clip.name) clip.name = item.clip.name;
  // Rounded ends, so that touching items still touch after rounding.
  const first = roundSeconds(start);
  clip.start = first;
  clip.duration = roundSeconds(roundSeconds(start + duration) - first);
  if (ours.asset) {
    clip.asset = ours.asset;
  } else if (ref?.OTIO_SCHEMA === "GeneratorReference.1") {
    const color = ref.parameters?.color;
    if (ref.generator_kind !== "SolidColor" || typeof color !== "string") {
      throw invalidRequest(`Unsupported generator ${ref.generator_kind}`, [
        {
          path: item.path,
          message: "only SolidColor generators with a #rrggbb color parameter are supported",
        },
      ]);
    }
    clip.asset = { type: "color", color };
  } else {
    clip.asset = mediaAsset(
      resolve(item.path),
      audio,
      ours.assetType,
      ref?.OTIO_SCHEMA === "ExternalReference.1" ? ref.target_url : "",
    );
  }
  const available = ref?.available_range ? rangeSeconds(ref.available_range) : null;
  // An image sequence without a range starts at its first frame's number.
  const sequenceStart =
    ref?.OTIO_SCHEMA === "ImageSequenceReference.1" && ref.rate ? (ref.start_frame ?? 0) / ref.rate : 0;
  const frozen = item.heldAt !== null && (clip.asset as Asset).type === "video";
  if (item.heldAt !== null && !frozen) {
    warnings.push({
      path: item.path,
      message: `freeze frame not carried: only a video clip can be frozen, not ${audio ? "a clip on an audio track" : `a ${(clip.asset as Asset).type} clip`}`,
    });
  }
  const inPoint = frozen ? (item.heldAt as number) : item.sourceStart;
  const trim = roundSeconds(Math.max(0, inPoint - (available?.start ?? sequenceStart)));
  if (trim > 0) clip.trim = trim;
  if (item.speed !== 1) clip.speed = item.speed;
  if (frozen) clip.freeze = true;
  for (const key of CLIP_EXTRAS) if (ours[key] !== undefined) clip[key] = ours[key];
  const refPath = item.clip.media_references
    ? `${item.path}/media_references/${item.clip.active_media_reference_key ?? "DEFAULT_MEDIA"}`
    : `${item.path}/media_reference`;
  const metadata = withForeign(ours.metadata, {
    [OTIO_NS]: keep(item.clip.metadata, item.path),
    [OTIO_MEDIA_NS]: keep(ref?.metadata, refPath),
  });
  if (metadata) clip.metadata = metadata;
  return clip as ClipWrite;
}

type MarkerWrite = Static<typeof MarkerWriteSchema>;

function marker(
  m: OtioMarkerIn,
  offset: (t: number) => number,
  path: string,
  keep: ReturnType<typeof metadataKeeper>,
): MarkerWrite {
  const ours = cutroom(m.metadata);
  const range = rangeSeconds(m.marked_range);
  const out: MarkerWrite = { time: roundSeconds(Math.max(0, offset(range.start))), label: m.name ?? "" };
  if (typeof ours.id === "string") out.id = ours.id;
  if (typeof ours.duration === "number") out.duration = ours.duration;
  else if (range.duration > 0) out.duration = roundSeconds(range.duration);
  const metadata = withForeign(ours.metadata, { [OTIO_NS]: keep(m.metadata, path) });
  if (metadata) out.metadata = metadata;
  return out;
}

function nearestFps(rate: number | undefined): Canvas["fps"] {
  if (rate === undefined) return 30;
  const best = [...CANVAS_FPS].sort((a, b) => Math.abs(a - rate) - Math.abs(b - rate))[0] ?? 30;
  return Math.abs(best - rate) < 0.01 ? best : 30;
}

/** The converted composition body and how to point an error in it back into the OTIO document. */
export interface OtioConversion {
  body: CompositionWrite;
  /** Maps a JSON Pointer into `body` to a detail pointing into the OTIO document. */
  toOtioDetail(detail: ErrorDetail): ErrorDetail;
  /** What the document holds that the composition does not carry (the parser's warnings too). */
  warnings: ImportWarning[];
}

/**
 * Converts a parsed OTIO timeline to a composition write body. Items follow each other on a
 * track: a `Gap.1` leaves empty time, a `Transition.1` becomes the `transition` of the clip
 * after it (duration `in_offset + out_offset`, centred on the cut), or a `fadeIn` when it
 * opens the track, or a `fadeOut` of the clip before it when it leads into a gap or ends the
 * track. Media resolve through `resolve` (called with the clip item's path, for the uses
 * {@link listOtioMedia} returned). Fields a Cutroom export stored under `metadata.cutroom`
 * (ids, canvas, fades, transform, text and caption assets…) are restored.
 *
 * @param overrides - `name` and canvas fields the caller set explicitly (win over the file).
 * @returns the body to validate and store, with an error-path mapper.
 */
export function otioToComposition(
  doc: ParsedOtio,
  resolve: (clipPath: string) => ResolvedUse,
  overrides: {
    name?: string | undefined;
    projectId?: string | null | undefined;
    canvas?: Partial<Canvas> | undefined;
  } = {},
): OtioConversion {
  const ours = cutroom(doc.metadata);
  const canvasIn = ours.canvas && typeof ours.canvas === "object" ? (ours.canvas as Partial<Canvas>) : {};
  const canvas = {
    width: 1920,
    height: 1080,
    fps: nearestFps(doc.rate),
    background: "#000000",
    ...canvasIn,
    ...overrides.canvas,
  } as Canvas;
  const warnings: ImportWarning[] = [...doc.warnings];
  const keep = metadataKeeper(warnings);
  const markers: MarkerWrite[] = doc.stackMarkers.map((m) => marker(m.marker, (t) => t, m.path, keep));
  const markerPaths = doc.stackMarkers.map((m) => m.path);
  const trackPaths: string[] = [];
  const clipPaths: string[][] = [];
  /** A transition or fade no longer than `limit`: OTIO's offsets may fit where a centred one does not. */
  const fitted = (t: TransitionItem, limit: number, fits: boolean) => {
    if (t.duration <= limit + 1e-9 || !fits) return roundSeconds(t.duration);
    warnings.push({
      path: t.path,
      message: `transition of ${roundSeconds(t.duration)} s shortened to ${roundSeconds(limit)} s (Cutroom centres transitions on the cut)`,
    });
    return roundSeconds(limit);
  };

  const tracks: TrackWrite[] = doc.tracks.map(({ path, track, items: children, range }) => {
    const audio = track.kind === "Audio";
    const extras = cutroom(track.metadata);
    const clips: ClipWrite[] = [];
    const paths: string[] = [];
    // Items, and the track's own markers, are in the track's time; its source_range shows a part.
    const length = children.reduce(
      (sum, item) => sum + (item.kind === "transition" ? 0 : (item.duration ?? 0)),
      0,
    );
    // A range that misses the children altogether would empty the track: such files (OTIO's old
    // EDL adapter wrote record timecode there) mean another time base, so it is not applied.
    const applies = range !== undefined && range.start < length && range.start + range.duration > 0;
    if (range && !applies) {
      warnings.push({
        path: `${path}/source_range`,
        message: `source_range of the track (${roundSeconds(range.start)} s for ${roundSeconds(range.duration)} s) lies outside its children (0 to ${roundSeconds(length)} s): not applied, the track plays from its start`,
      });
    }
    const from = applies ? range.start : 0;
    const items = applies ? trimItems(children, from, from + range.duration, path, warnings) : children;
    (track.markers ?? []).forEach((m, i) => {
      const at = seconds(m.marked_range.start_time);
      if (applies && (at < from - 1e-9 || at > from + range.duration + 1e-9)) {
        warnings.push({
          path: `${path}/markers/${i}`,
          message: "marker outside its track's source_range not carried",
        });
        return;
      }
      markers.push(marker(m, (t) => t - from, `${path}/markers/${i}`, keep));
      markerPaths.push(`${path}/markers/${i}`);
    });
    let cursor = 0;
    let pending: TransitionItem | null = null;
    let previous: "none" | "clip" | "gap" = "none";
    let gapBefore = 0;
    /** A clip's markers, moved from its source time to the timeline. */
    const clipMarkers = (item: ClipItem, start: number, speed: number) => {
      (item.clip.markers ?? []).forEach((m, i) => {
        const at = seconds(m.marked_range.start_time);
        if (item.piece && (at < item.piece.from - 1e-9 || at >= item.piece.to - 1e-9)) return;
        markers.push(
          marker(m, (t) => start + (t - item.sourceStart) / speed, `${item.path}/markers/${i}`, keep),
        );
        markerPaths.push(`${item.path}/markers/${i}`);
      });
    };
    const fadeOutLast = (t: TransitionItem) => {
      const last = clips.at(-1);
      if (previous === "clip" && last)
        last.fadeOut = fitted(t, last.duration, t.before <= last.duration + 1e-9);
    };
    for (const item of items) {
      if (item.kind === "transition") {
        pending = item;
        continue;
      }
      if (item.kind === "gap") {
        if (item.replaces) clipMarkers(item.replaces, cursor, item.replaces.speed);
        if (pending) fadeOutLast(pending);
        pending = null;
        cursor += item.duration;
        gapBefore = previous === "gap" ? gapBefore + item.duration : item.duration;
        previous = "gap";
        continue;
      }
      const duration = requireDuration(item);
      const clip = buildClip(item, duration, cursor, audio, resolve, keep, warnings);
      if (pending) {
        const fits = pending.after <= clip.duration + 1e-9;
        if (previous === "none") clip.fadeIn = fitted(pending, clip.duration, fits);
        else {
          const last = clips.at(-1);
          const room = previous === "clip" && last ? last.duration : gapBefore;
          const before = previous === "clip" && last ? pending.before <= last.duration + 1e-9 : true;
          clip.transition = {
            type: pending.type,
            duration: fitted(pending, Math.min(clip.duration, room), fits && before),
          };
        }
        pending = null;
      }
      clipMarkers(item, cursor, clip.speed ?? 1);
      clips.push(clip);
      paths.push(item.path);
      cursor += duration;
      previous = "clip";
    }
    if (pending) fadeOutLast(pending);
    trackPaths.push(path);
    clipPaths.push(paths);
    const out: TrackWrite = { kind: audio ? "audio" : "video", clips };
    if (typeof extras.id === "string") out.id = extras.id;
    if (track.name) out.name = track.name;
    for (const key of TRACK_EXTRAS) {
      if (extras[key] !== undefined) (out as Record<string, unknown>)[key] = extras[key];
    }
    if (track.enabled === false) out.enabled = false;
    const metadata = withForeign(extras.metadata, { [OTIO_NS]: keep(track.metadata, path) });
    if (metadata) out.metadata = metadata;
    return out;
  });

  const body: CompositionWrite = {
    name: (overrides.name ?? doc.name) || "Imported timeline",
    canvas,
    tracks,
  };
  if (overrides.projectId !== undefined) body.projectId = overrides.projectId;
  if (markers.length) body.markers = markers;
  const metadata = withForeign(ours.metadata, { [OTIO_NS]: keep(doc.metadata, doc.root) });
  if (metadata) body.metadata = metadata;

  /** A detail moved onto the OTIO item at `at`, naming the field inside it (`rest`) in the message. */
  const onItem = (at: string | undefined, rest: string | undefined, message: string) =>
    at ? { path: at, message: `${rest ? `${rest.slice(1)}: ` : ""}${message}` } : null;
  const toOtioDetail = (detail: ErrorDetail): ErrorDetail => {
    const clip = /^\/tracks\/(\d+)\/clips\/(\d+)(\/.*)?$/.exec(detail.path);
    const track = /^\/tracks\/(\d+)(\/.*)?$/.exec(detail.path);
    const marker = /^\/markers\/(\d+)(\/.*)?$/.exec(detail.path);
    return (
      (clip && onItem(clipPaths[Number(clip[1])]?.[Number(clip[2])], clip[3], detail.message)) ||
      (track && onItem(trackPaths[Number(track[1])], track[2], detail.message)) ||
      (marker && onItem(markerPaths[Number(marker[1])], undefined, detail.message)) ||
      // The canvas is at the same path in the import body (`canvas` overrides the file's).
      (detail.path.startsWith("/canvas")
        ? detail
        : { path: doc.root, message: `${detail.path}: ${detail.message}` })
    );
  };
  return { body, toOtioDetail, warnings };
}
