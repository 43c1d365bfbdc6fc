import type { Static } from "typebox";
import { type ErrorDetail, invalidRequest } from "../../errors.ts";
import {
  type Asset,
  CANVAS_FPS,
  type Canvas,
  type ClipWrite,
  type CompositionWrite,
  type MarkerWriteSchema,
  TRANSITION_TYPES,
  type TrackWrite,
} from "../composition/schema.ts";
import { CLIP_EXTRAS, CUTROOM_NS, roundSeconds, TRACK_EXTRAS } from "./common.ts";
import {
  Clip,
  Gap,
  type OtioClipIn,
  type OtioMarkerIn,
  type OtioMediaReferenceIn,
  type OtioRationalTimeIn,
  type OtioTimeRangeIn,
  type OtioTrackIn,
  parseAt,
  Stack,
  Timeline,
  Track,
  Transition,
} from "./otio-schema.ts";

/** A transition item of a parsed track. */
interface TransitionItem {
  kind: "transition";
  path: string;
  duration: number;
  type: (typeof TRANSITION_TYPES)[number];
}
/** A gap (or a disabled clip, which leaves empty time) of a parsed track. */
interface GapItem {
  kind: "gap";
  path: string;
  duration: number;
}
/** A clip item of a parsed track. */
interface ClipItem {
  kind: "clip";
  path: string;
  clip: OtioClipIn;
  reference: OtioMediaReferenceIn | null;
  duration: number;
}

/** A validated OTIO timeline, flattened to what the importer reads. */
export interface ParsedOtio {
  /** JSON Pointer of the document in the request body ("/otio", or "" for a bare document). */
  root: string;
  name: string;
  metadata: Record<string, unknown>;
  stackMarkers: { path: string; marker: OtioMarkerIn }[];
  tracks: { path: string; track: OtioTrackIn; items: (TransitionItem | GapItem | ClipItem)[] }[];
}

/** One external media source an OTIO document refers to, and where. */
export interface OtioMediaUse {
  /** Reference name (usually the file name), possibly empty. */
  name: string;
  /** `target_url` of an `ExternalReference.1`, or "" for missing media. */
  targetUrl: string;
  /** Upload id recorded by a Cutroom export (`metadata.cutroom.uploadId`), when present. */
  uploadIdHint?: string;
  /** Whether it sits on an audio track (decides the asset type). */
  audio: boolean;
  /** JSON Pointer of the clip item. */
  path: string;
}

/** What an {@link OtioMediaUse} resolved to: one of the caller's uploads, or an https `src`. */
export type ResolvedUse = { uploadId: string; uploadType: string } | { src: string };

/** Seconds of a `RationalTime.1`, unrounded: sums stay exact until a value is written out. */
const seconds = (t: OtioRationalTimeIn) => t.value / t.rate;
const rangeSeconds = (r: OtioTimeRangeIn) => ({
  start: seconds(r.start_time),
  duration: seconds(r.duration),
});

/** Our namespace inside an OTIO `metadata` object, or `{}`. */
function cutroom(metadata: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const ns = metadata?.[CUTROOM_NS];
  return ns && typeof ns === "object" && !Array.isArray(ns) ? (ns as Record<string, unknown>) : {};
}

function activeReference(clip: OtioClipIn): OtioMediaReferenceIn | null {
  if (clip.media_references) {
    const key = clip.active_media_reference_key ?? "DEFAULT_MEDIA";
    return clip.media_references[key] ?? Object.values(clip.media_references)[0] ?? null;
  }
  return clip.media_reference ?? null;
}

/** The transition type a Cutroom export recorded, else `fade` (other tools' type names differ). */
function transitionType(metadata: Record<string, unknown> | null | undefined): TransitionItem["type"] {
  const ours = cutroom(metadata).type;
  if (typeof ours === "string" && (TRANSITION_TYPES as readonly string[]).includes(ours)) {
    return ours as TransitionItem["type"];
  }
  return "fade";
}

/**
 * Validates an OpenTimelineIO `Timeline.1` object (as parsed from JSON) and flattens it.
 * @param raw - the document; `path` is where it sits in the request body (for error paths).
 * @throws AppError 400 `invalid_request` naming the JSON Pointer of every bad field, of a
 *   nested stack (compound clip, not supported) or of an unknown item type.
 */
export function parseOtio(raw: unknown, path = "/otio"): ParsedOtio {
  const timeline = parseAt(Timeline, raw, path);
  const stack = parseAt(Stack, timeline.tracks, `${path}/tracks`);
  const tracks = stack.children.map((child, j) => {
    const trackPath = `${path}/tracks/children/${j}`;
    const track = parseAt(Track, child, trackPath);
    const items = track.children.map((item, i): TransitionItem | GapItem | ClipItem => {
      const itemPath = `${trackPath}/children/${i}`;
      const schema = item.OTIO_SCHEMA;
      if (schema === "Transition.1") {
        const t = parseAt(Transition, item, itemPath);
        return {
          kind: "transition",
          path: itemPath,
          duration: seconds(t.in_offset) + seconds(t.out_offset),
          type: transitionType(t.metadata),
        };
      }
      if (schema === "Gap.1") {
        const g = parseAt(Gap, item, itemPath);
        return { kind: "gap", path: itemPath, duration: rangeSeconds(g.source_range).duration };
      }
      if (schema === "Clip.1" || schema === "Clip.2") {
        const clip = parseAt(Clip, item, itemPath);
        const reference = activeReference(clip);
        const range = clip.source_range ?? reference?.available_range;
        if (!range) {
          throw invalidRequest("A clip has neither a source_range nor an available_range", [
            { path: `${itemPath}/source_range`, message: "required" },
          ]);
        }
        const duration = rangeSeconds(range).duration;
        if (clip.enabled === false) return { kind: "gap", path: itemPath, duration };
        return { kind: "clip", path: itemPath, clip, reference, duration };
      }
      throw invalidRequest(`Unsupported OpenTimelineIO item ${schema}`, [
        {
          path: `${itemPath}/OTIO_SCHEMA`,
          message: /^(Stack|Track)\./.test(schema)
            ? "nested stacks and tracks (compound clips) are not supported: flatten them first"
            : "must be Clip.2, Clip.1, Gap.1 or Transition.1",
        },
      ]);
    });
    return { path: trackPath, track, items };
  });
  return {
    root: path,
    name: timeline.name ?? "",
    metadata: timeline.metadata ?? {},
    stackMarkers: (stack.markers ?? []).map((marker, i) => ({ path: `${path}/tracks/markers/${i}`, marker })),
    tracks,
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
          if (mode === "gap") items.push({ kind: "gap", path: item.path, duration: item.duration });
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

function buildClip(item: ClipItem, start: number, audio: boolean, resolve: (path: string) => ResolvedUse) {
  const ours = cutroom(item.clip.metadata);
  const ref = item.reference;
  const clip: Record<string, unknown> = {};
  if (typeof ours.id === "string") clip.id = ours.id;
  if (item.clip.name) clip.name = item.clip.name;
  // Rounded ends, so that touching items still touch after rounding.
  const first = roundSeconds(start);
  clip.start = first;
  clip.duration = roundSeconds(roundSeconds(start + item.duration) - first);
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
  const source = item.clip.source_range ? rangeSeconds(item.clip.source_range) : null;
  const available = ref?.available_range ? rangeSeconds(ref.available_range) : null;
  const trim = roundSeconds(Math.max(0, (source?.start ?? available?.start ?? 0) - (available?.start ?? 0)));
  if (trim > 0) clip.trim = trim;
  const warp = (item.clip.effects ?? []).find((e) => /^LinearTimeWarp\./.test(e.OTIO_SCHEMA));
  if (warp?.time_scalar !== undefined && warp.time_scalar !== 1) clip.speed = warp.time_scalar;
  for (const key of CLIP_EXTRAS) if (ours[key] !== undefined) clip[key] = ours[key];
  return clip as ClipWrite;
}

type MarkerWrite = Static<typeof MarkerWriteSchema>;

function marker(m: OtioMarkerIn, offset: (t: number) => number): MarkerWrite {
  const ours = cutroom(m.metadata);
  const range = rangeSeconds(m.marked_range);
  const out: MarkerWrite = { time: roundSeconds(Math.max(0, offset(range.start))), label: m.name ?? "" };
  if (typeof ours.id === "string") out.id = ours.id;
  if (typeof ours.duration === "number") out.duration = ours.duration;
  else if (range.duration > 0) out.duration = roundSeconds(range.duration);
  return out;
}

function nearestFps(rate: number | undefined): Canvas["fps"] {
  if (rate === undefined) return 30;
  const best = [...CANVAS_FPS].sort((a, b) => Math.abs(a - rate) - Math.abs(b - rate))[0] ?? 30;
  return Math.abs(best - rate) < 0.01 ? best : 30;
}

function firstRate(doc: ParsedOtio): number | undefined {
  for (const t of doc.tracks) {
    for (const item of t.items)
      if (item.kind === "clip" && item.clip.source_range) return item.clip.source_range.duration.rate;
  }
  return undefined;
}

/** The converted composition body and how to point an error in it back into the OTIO document. */
export interface OtioConversion {
  body: CompositionWrite;
  /** Maps a JSON Pointer into `body` to a detail pointing into the OTIO document. */
  toOtioDetail(detail: ErrorDetail): ErrorDetail;
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
    fps: nearestFps(firstRate(doc)),
    background: "#000000",
    ...canvasIn,
    ...overrides.canvas,
  } as Canvas;
  const markers: MarkerWrite[] = doc.stackMarkers.map((m) => marker(m.marker, (t) => t));
  const markerPaths = doc.stackMarkers.map((m) => m.path);
  const trackPaths: string[] = [];
  const clipPaths: string[][] = [];

  const tracks: TrackWrite[] = doc.tracks.map(({ path, track, items }) => {
    const audio = track.kind === "Audio";
    const extras = cutroom(track.metadata);
    const clips: ClipWrite[] = [];
    const paths: string[] = [];
    (track.markers ?? []).forEach((m, i) => {
      markers.push(marker(m, (t) => t));
      markerPaths.push(`${path}/markers/${i}`);
    });
    let cursor = 0;
    let pending: TransitionItem | null = null;
    let previous: "none" | "clip" | "gap" = "none";
    const fadeOutLast = (t: TransitionItem) => {
      const last = clips.at(-1);
      if (previous === "clip" && last) last.fadeOut = roundSeconds(t.duration);
    };
    for (const item of items) {
      if (item.kind === "transition") {
        pending = item;
        continue;
      }
      if (item.kind === "gap") {
        if (pending) fadeOutLast(pending);
        pending = null;
        cursor += item.duration;
        previous = "gap";
        continue;
      }
      const clip = buildClip(item, cursor, audio, resolve);
      if (pending) {
        if (previous === "none") clip.fadeIn = roundSeconds(pending.duration);
        else clip.transition = { type: pending.type, duration: roundSeconds(pending.duration) };
        pending = null;
      }
      (item.clip.markers ?? []).forEach((m, i) => {
        const sourceStart = item.clip.source_range ? seconds(item.clip.source_range.start_time) : 0;
        const start = cursor;
        markers.push(marker(m, (t) => start + (t - sourceStart) / (clip.speed ?? 1)));
        markerPaths.push(`${item.path}/markers/${i}`);
      });
      clips.push(clip);
      paths.push(item.path);
      cursor += item.duration;
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
    return out;
  });

  const body: CompositionWrite = {
    name: (overrides.name ?? doc.name) || "Imported timeline",
    canvas,
    tracks,
  };
  if (overrides.projectId !== undefined) body.projectId = overrides.projectId;
  if (markers.length) body.markers = markers;
  if (ours.metadata && typeof ours.metadata === "object")
    body.metadata = ours.metadata as Record<string, unknown>;

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
  return { body, toOtioDetail };
}
