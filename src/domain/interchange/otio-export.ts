import type { Clip, Composition, MediaAsset, Track } from "../composition/schema.ts";
import { isMediaAsset } from "../composition/schema.ts";
import { CLIP_EXTRAS, CUTROOM_NS, type ResolvedMedia, roundSeconds, TRACK_EXTRAS } from "./common.ts";
import { splitForExport } from "./otio-metadata.ts";

/**
 * OpenTimelineIO serialisation of a composition (docs/interchange.md). Follows the JSON
 * schema of the OpenTimelineIO project: `Timeline.1` → `Stack.1` → `Track.1` → `Clip.2`,
 * `Gap.1`, `Transition.1`; times are `RationalTime.1` at the canvas frame rate.
 */

/** An OTIO `RationalTime.1`: `value / rate` seconds. */
export interface OtioRationalTime {
  OTIO_SCHEMA: "RationalTime.1";
  rate: number;
  value: number;
}

/** An OTIO `TimeRange.1`. */
export interface OtioTimeRange {
  OTIO_SCHEMA: "TimeRange.1";
  start_time: OtioRationalTime;
  duration: OtioRationalTime;
}

/** Any OTIO object as written: its schema name plus fields. */
export type OtioObject = { OTIO_SCHEMA: string } & Record<string, unknown>;

/** Seconds → `RationalTime.1` at `rate` frames per second (value may be fractional). */
export function rationalTime(seconds: number, rate: number): OtioRationalTime {
  return { OTIO_SCHEMA: "RationalTime.1", rate, value: roundSeconds(seconds * rate) };
}

/** Start and duration in seconds → `TimeRange.1` at `rate`. */
export function timeRange(start: number, duration: number, rate: number): OtioTimeRange {
  return {
    OTIO_SCHEMA: "TimeRange.1",
    start_time: rationalTime(start, rate),
    duration: rationalTime(duration, rate),
  };
}

/** Our xfade transitions that are a plain dissolve in every editor. */
const DISSOLVES = new Set(["fade", "dissolve"]);

function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

function gap(duration: number, rate: number): OtioObject {
  return {
    OTIO_SCHEMA: "Gap.1",
    name: "",
    source_range: timeRange(0, duration, rate),
    effects: [],
    markers: [],
    enabled: true,
    metadata: {},
  };
}

function transition(clip: Clip, rate: number): OtioObject | null {
  if (!clip.transition) return null;
  const half = clip.transition.duration / 2;
  return {
    OTIO_SCHEMA: "Transition.1",
    name: clip.transition.type,
    transition_type: DISSOLVES.has(clip.transition.type) ? "SMPTE_Dissolve" : "Custom_Transition",
    in_offset: rationalTime(half, rate),
    out_offset: rationalTime(half, rate),
    parameters: {},
    metadata: { [CUTROOM_NS]: { type: clip.transition.type } },
  };
}

function mediaReference(clip: Clip, media: (asset: MediaAsset) => ResolvedMedia, rate: number): OtioObject {
  const asset = clip.asset;
  const { otioMedia } = splitForExport(clip.metadata);
  if (asset.type === "color") {
    return {
      OTIO_SCHEMA: "GeneratorReference.1",
      name: "",
      generator_kind: "SolidColor",
      parameters: { color: asset.color },
      available_range: null,
      available_image_bounds: null,
      metadata: otioMedia,
    };
  }
  if (asset.type === "text" || asset.type === "caption") {
    return {
      OTIO_SCHEMA: "MissingReference.1",
      name: "",
      available_range: null,
      available_image_bounds: null,
      metadata: otioMedia,
    };
  }
  const resolved = media(asset);
  return {
    OTIO_SCHEMA: "ExternalReference.1",
    name: resolved.name,
    target_url: resolved.targetUrl,
    available_range: resolved.duration ? timeRange(0, resolved.duration, rate) : null,
    available_image_bounds: null,
    metadata: {
      ...otioMedia,
      ...(resolved.uploadId ? { [CUTROOM_NS]: { uploadId: resolved.uploadId } } : {}),
    },
  };
}

function otioClip(clip: Clip, media: (asset: MediaAsset) => ResolvedMedia, rate: number): OtioObject {
  const speed = clip.speed ?? 1;
  const { otio, own } = splitForExport(clip.metadata);
  const extras: Record<string, unknown> = { id: clip.id, ...pick({ ...clip, metadata: own }, CLIP_EXTRAS) };
  // Media keep their type; text, captions and colours keep their whole asset (ours, so our
  // import restores them exactly).
  if (isMediaAsset(clip.asset)) extras.assetType = clip.asset.type;
  else extras.asset = clip.asset;
  return {
    OTIO_SCHEMA: "Clip.2",
    name: clip.name ?? "",
    source_range: timeRange(clip.trim ?? 0, clip.duration, rate),
    media_references: { DEFAULT_MEDIA: mediaReference(clip, media, rate) },
    active_media_reference_key: "DEFAULT_MEDIA",
    effects: clip.freeze
      ? [{ OTIO_SCHEMA: "FreezeFrame.1", name: "", effect_name: "FreezeFrame", time_scalar: 0, metadata: {} }]
      : speed === 1
        ? []
        : [
            {
              OTIO_SCHEMA: "LinearTimeWarp.1",
              name: "",
              effect_name: "LinearTimeWarp",
              time_scalar: speed,
              metadata: {},
            },
          ],
    markers: [],
    enabled: true,
    metadata: { ...otio, [CUTROOM_NS]: extras },
  };
}

function otioTrack(track: Track, media: (asset: MediaAsset) => ResolvedMedia, rate: number): OtioObject {
  const { otio, own } = splitForExport(track.metadata);
  const children: OtioObject[] = [];
  let cursor = 0;
  for (const clip of track.clips) {
    if (clip.start > cursor + 1e-9) children.push(gap(roundSeconds(clip.start - cursor), rate));
    const t = transition(clip, rate);
    if (t) children.push(t);
    children.push(otioClip(clip, media, rate));
    cursor = clip.start + clip.duration;
  }
  return {
    OTIO_SCHEMA: "Track.1",
    name: track.name ?? "",
    kind: track.kind === "audio" ? "Audio" : "Video",
    source_range: null,
    enabled: track.enabled ?? true,
    effects: [],
    markers: [],
    children,
    metadata: {
      ...otio,
      [CUTROOM_NS]: { id: track.id, ...pick(track, TRACK_EXTRAS), ...(own ? { metadata: own } : {}) },
    },
  };
}

/**
 * Serialises a stored composition as an OpenTimelineIO `Timeline.1` object.
 *
 * Times are `RationalTime.1` at the canvas frame rate (value = seconds × fps, fractional when
 * a time falls between frames). Each track becomes a `Track.1` (kind `Video`/`Audio`) whose
 * children are the clips in order, `Gap.1` items for empty time and a `Transition.1` before
 * each clip that has a transition (`in_offset` = `out_offset` = half its duration, centred
 * on the cut). Media clips reference their source with `ExternalReference.1`; colour clips
 * use a `SolidColor` `GeneratorReference.1`; text and caption clips have no OTIO equivalent
 * and carry a `MissingReference.1` plus their asset under `metadata.cutroom`. Markers go on
 * the top-level stack. A `speed` other than 1 is a `LinearTimeWarp.1` effect, a frozen clip a
 * `FreezeFrame.1` (its `source_range` starts at the held frame). Everything else OTIO has no field for (ids, canvas, fades, transform…)
 * is kept under `metadata.cutroom` so that {@link otioToComposition} restores it.
 *
 * @param composition - the stored composition (ids present, clips sorted by start).
 * @param media - resolves a video/image/audio asset to its reference (name, URL, duration).
 * @returns a plain object ready for `JSON.stringify`.
 */
export function compositionToOtio(
  composition: Composition,
  media: (asset: MediaAsset) => ResolvedMedia,
): OtioObject {
  const rate = composition.canvas.fps;
  const { otio, own } = splitForExport(composition.metadata);
  return {
    OTIO_SCHEMA: "Timeline.1",
    name: composition.name,
    global_start_time: rationalTime(0, rate),
    metadata: {
      ...otio,
      [CUTROOM_NS]: {
        schemaVersion: 1,
        compositionId: composition.id,
        canvas: composition.canvas,
        ...(own ? { metadata: own } : {}),
      },
    },
    tracks: {
      OTIO_SCHEMA: "Stack.1",
      name: "tracks",
      source_range: null,
      enabled: true,
      effects: [],
      markers: (composition.markers ?? []).map((m) => {
        const { otio, own } = splitForExport(m.metadata);
        return {
          OTIO_SCHEMA: "Marker.2",
          name: m.label,
          color: "RED",
          comment: "",
          marked_range: timeRange(m.time, m.duration ?? 0, rate),
          metadata: {
            ...otio,
            [CUTROOM_NS]: {
              id: m.id,
              ...(m.duration !== undefined ? { duration: m.duration } : {}),
              ...(own ? { metadata: own } : {}),
            },
          },
        };
      }),
      children: composition.tracks.map((t) => otioTrack(t, media, rate)),
      metadata: {},
    },
  };
}
