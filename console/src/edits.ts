import { applyPatch, compare, type Operation } from "fast-json-patch";
import type {
  Composition,
  JsonPatchOperation as PatchOperation,
} from "../../clients/typescript/src/types.ts";

/** One clip of a composition. */
type Clip = Composition["tracks"][number]["clips"][number];
/** One marker of a composition (a named point or stretch of the timeline). */
type Marker = NonNullable<Composition["markers"]>[number];

/** Where a clip is: its track and its index in that track (clips are kept sorted by start). */
export interface ClipRef {
  track: number;
  clip: number;
}

/** The editable document of a composition: what a patch may change (not id, version or times). */
export function documentOf(c: Composition) {
  return {
    name: c.name,
    canvas: c.canvas,
    tracks: c.tracks,
    ...(c.markers ? { markers: c.markers } : {}),
    ...(c.metadata ? { metadata: c.metadata } : {}),
  };
}

/**
 * The JSON Patch that turns composition `from` into `to` (RFC 6902, computed by fast-json-patch
 * over their documents). With `from` the current state and `to` an earlier one it is the
 * inverse patch that undoes an edit; the other way round, the patch that redoes it.
 */
export function patchBetween(from: Composition, to: Composition): PatchOperation[] {
  return compare(documentOf(from), documentOf(to)) as PatchOperation[];
}

/** Finds clip `id` in `c`. */
export function findClip(c: Composition, id: string): (ClipRef & { value: Clip }) | null {
  for (const [t, track] of c.tracks.entries()) {
    const i = track.clips.findIndex((x) => x.id === id);
    if (i >= 0) return { track: t, clip: i, value: track.clips[i] as Clip };
  }
  return null;
}

const clipPath = (r: ClipRef) => `/tracks/${r.track}/clips/${r.clip}`;
const isMedia = (clip: Clip) => clip.asset.type === "video" || clip.asset.type === "audio";
/** Seconds rounded to the microsecond (what the timeline stores without float noise). */
const sec = (n: number) => Math.round(n * 1e6) / 1e6;

/** The operations that turn `before` into `after` (only what changed), for the value at `path`. */
function editOps<T extends object>(path: string, before: T, after: T): PatchOperation[] {
  return (compare(before, after) as PatchOperation[]).map((op) => ({ ...op, path: path + op.path }));
}

/** The patch that edits the clip at `r` from `before` into `after` (only the fields that changed). */
export function clipEditOps(r: ClipRef, before: Clip, after: Clip): PatchOperation[] {
  return editOps(clipPath(r), before, after);
}

/**
 * Moves the clip at `r` to start at `start` seconds, as given (a snapped drag gives a frame start
 * or the exact time that makes the clip's end meet another edge; rounding would undo that).
 */
export function moveOps(r: ClipRef, start: number): PatchOperation[] {
  return [{ op: "replace", path: `${clipPath(r)}/start`, value: Math.max(0, start) }];
}

/**
 * Trims the clip at `r` by dragging one edge `delta` seconds (positive: to the right). The end
 * edge changes the duration; the start edge moves the start and shortens the duration by the
 * same amount, and for video and audio advances the source in-point (`trim`) by `delta × speed`
 * so the picture stays where it was. Never shorter than `minDuration`.
 */
export function trimOps(r: ClipRef, clip: Clip, edge: "start" | "end", delta: number, minDuration: number) {
  const ops: PatchOperation[] = [];
  if (edge === "end") {
    const duration = sec(Math.max(minDuration, clip.duration + delta));
    ops.push({ op: "replace", path: `${clipPath(r)}/duration`, value: duration });
    return ops;
  }
  // A frozen clip holds the frame at its trim: its head moves without changing the trim.
  const rate = clip.freeze ? 0 : (clip.speed ?? 1);
  const lowest = isMedia(clip) && rate > 0 ? -(clip.trim ?? 0) / rate : -clip.start;
  const d = Math.min(clip.duration - minDuration, Math.max(delta, lowest, -clip.start));
  ops.push({ op: "replace", path: `${clipPath(r)}/start`, value: sec(clip.start + d) });
  ops.push({ op: "replace", path: `${clipPath(r)}/duration`, value: sec(clip.duration - d) });
  if (isMedia(clip) && rate > 0) {
    ops.push({
      op: "add",
      path: `${clipPath(r)}/trim`,
      value: sec((clip.trim ?? 0) + d * rate),
    });
  }
  return ops;
}

/**
 * Splits the clip at `r` at timeline time `at` into two clips that play on as before: the first
 * ends at `at`, the second (a new clip without id, no transition in) starts there with its
 * in-point advanced. Null when `at` is not strictly inside the clip.
 */
export function splitOps(r: ClipRef, clip: Clip, at: number): PatchOperation[] | null {
  const cut = sec(at - clip.start);
  if (cut <= 0 || cut >= clip.duration) return null;
  const { id: _id, transition: _transition, ...rest } = clip;
  const second: Omit<Clip, "id"> = { ...rest, start: sec(at), duration: sec(clip.duration - cut) };
  // The halves of a frozen clip hold the same frame.
  if (isMedia(clip) && !clip.freeze) second.trim = sec((clip.trim ?? 0) + cut * (clip.speed ?? 1));
  delete second.fadeIn;
  const first: PatchOperation[] = [{ op: "replace", path: `${clipPath(r)}/duration`, value: cut }];
  if (clip.fadeOut) first.push({ op: "remove", path: `${clipPath(r)}/fadeOut` });
  return [...first, { op: "add", path: `/tracks/${r.track}/clips/-`, value: second }];
}

/** Removes the clip at `r`. */
export function deleteOps(r: ClipRef): PatchOperation[] {
  return [{ op: "remove", path: clipPath(r) }];
}

/** Adds `clip` (without id) to track `track`; the server sorts it into place. */
export function addClipOps(track: number, clip: Omit<Clip, "id">): PatchOperation[] {
  return [{ op: "add", path: `/tracks/${track}/clips/-`, value: clip }];
}

/** Finds marker `id` in `c`: its index in `markers` (kept sorted by time) and the marker. */
export function findMarker(c: Composition, id: string): { index: number; value: Marker } | null {
  const index = (c.markers ?? []).findIndex((m) => m.id === id);
  return index >= 0 ? { index, value: c.markers?.[index] as Marker } : null;
}

/**
 * Adds a marker (the server gives it an id and sorts it by time); starts the `markers` list when
 * the composition has none yet.
 */
export function addMarkerOps(c: Composition, marker: Omit<Marker, "id">): PatchOperation[] {
  const value = { ...marker, time: sec(Math.max(0, marker.time)) };
  return c.markers
    ? [{ op: "add", path: "/markers/-", value }]
    : [{ op: "add", path: "/markers", value: [value] }];
}

/** The patch that edits the marker at `index` from `before` into `after` (rename, move). */
export function markerEditOps(index: number, before: Marker, after: Marker): PatchOperation[] {
  return editOps(`/markers/${index}`, before, { ...after, time: sec(Math.max(0, after.time)) });
}

/** Removes the marker at `index`. */
export function deleteMarkerOps(index: number): PatchOperation[] {
  return [{ op: "remove", path: `/markers/${index}` }];
}

/** The end of the timeline, seconds: the canvas duration, else the end of the last clip. */
export function timelineEnd(c: Composition): number {
  if (c.canvas.duration) return c.canvas.duration;
  let end = 0;
  for (const t of c.tracks) for (const clip of t.clips) end = Math.max(end, clip.start + clip.duration);
  return end;
}

/** A clip's label: its name, else what it shows. */
export function clipLabel(clip: Clip, uploadName?: string): string {
  if (clip.name) return clip.name;
  const a = clip.asset;
  if (a.type === "text") return a.text.slice(0, 40) || "Text";
  if (a.type === "color") return `Colour ${a.color}`;
  if (a.type === "caption") return "Captions";
  return uploadName ?? a.type;
}

/**
 * The composition after a patch someone else made (an assistant run's `patch` event): `ops`
 * applied to a copy of `c`, at `version`. Null when `c` is not at `baseVersion` (the caller
 * fetches it again instead).
 */
export function applyRemotePatch(
  c: Composition,
  patch: { baseVersion: number; version: number; ops: ReadonlyArray<{ op: string; path: string }> },
): Composition | null {
  if (c.version !== patch.baseVersion) return null;
  const next = structuredClone(c);
  applyPatch(next, patch.ops as Operation[], false, true);
  return { ...next, version: patch.version };
}

/** Whether two JSON values are equal (fast-json-patch finds no operation between them). */
const sameJson = (a: object, b: object) => compare(a, b).length === 0;

/**
 * `next` with every part that equals the one in `prev` replaced by `prev`'s object: clips (by
 * id), tracks and markers. A composition answered by the server after an edit is all new
 * objects; sharing the unchanged ones lets the timeline's memoised clip blocks skip every clip
 * the edit did not touch.
 *
 * @param prev the composition shown until now (null: none yet)
 * @param next the composition to show
 * @returns a composition equal to `next`
 */
export function shareUnchanged(prev: Composition | null, next: Composition): Composition {
  if (!prev) return next;
  const old = new Map(prev.tracks.flatMap((t) => t.clips.map((c) => [c.id, c] as const)));
  const tracks = next.tracks.map((track, i) => {
    const clips = track.clips.map((c) => {
      const o = old.get(c.id);
      return o && sameJson(o, c) ? o : c;
    });
    const before = prev.tracks[i];
    const { clips: _next, ...rest } = track;
    if (before && before.clips.length === clips.length && clips.every((c, j) => c === before.clips[j])) {
      const { clips: _before, ...restBefore } = before;
      if (sameJson(restBefore, rest)) return before;
    }
    return { ...track, clips };
  });
  const sharedTracks =
    tracks.length === prev.tracks.length && tracks.every((t, i) => t === prev.tracks[i])
      ? prev.tracks
      : tracks;
  const markers =
    prev.markers && next.markers && sameJson(prev.markers, next.markers) ? prev.markers : next.markers;
  return { ...next, tracks: sharedTracks, ...(markers ? { markers } : {}) };
}
