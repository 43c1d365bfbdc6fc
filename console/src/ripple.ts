import type {
  Composition,
  JsonPatchOperation as PatchOperation,
} from "../../clients/typescript/src/types.ts";
import { frameSeconds, frameStart } from "./timecode.ts";

/**
 * The timeline's magnetic edits, as JSON Patch operations on the composition as shown: ripple
 * delete, close gap, insert that pushes later clips, and the transition dropped on a cut. They
 * move clips of one track only (the other tracks keep their times), keep every clip's length
 * and source, and set a moved clip's start to the exact end of the clip it now follows, so two
 * clips made to touch leave no gap, not even a fraction of a frame.
 */

type Track = Composition["tracks"][number];
type Clip = Track["clips"][number];
type Transition = NonNullable<Clip["transition"]>;

/** Seconds below which two edges count as the same time (the server's own tolerance). */
const EPS = 1e-9;

/** Seconds a dropped transition lasts when both clips are long enough. */
export const DROPPED_TRANSITION_SECONDS = 0.5;

/** Empty time between two clips of a track (the start of the track before its first clip is no gap). */
export interface Gap {
  /** Seconds where the earlier clips end and where the next clip starts. */
  start: number;
  end: number;
  /** Index (in the track's `clips`, kept sorted by start) of the clip after the gap. */
  clip: number;
}

const endOf = (clip: Clip) => clip.start + clip.duration;
const startOp = (track: number, index: number, value: number): PatchOperation => ({
  op: "replace",
  path: `/tracks/${track}/clips/${index}/start`,
  value,
});

/** The gaps between the clips of `track` longer than `minimum` seconds (default: any gap). */
export function trackGaps(track: Track, minimum = EPS): Gap[] {
  const gaps: Gap[] = [];
  let end: number | null = null;
  for (const [i, clip] of track.clips.entries()) {
    if (end !== null && clip.start - end > minimum) gaps.push({ start: end, end: clip.start, clip: i });
    end = end === null ? endOf(clip) : Math.max(end, endOf(clip));
  }
  return gaps;
}

/**
 * Moves clip `from` and every later clip of track `t` by `shift` seconds (negative: earlier),
 * the first of them to exactly `firstStart`.
 */
function shiftFrom(c: Composition, t: number, from: number, shift: number, firstStart: number) {
  const clips = c.tracks[t]?.clips ?? [];
  const ops: PatchOperation[] = [];
  for (let i = from; i < clips.length; i++) {
    const clip = clips[i] as Clip;
    ops.push(startOp(t, i, i === from ? firstStart : Math.max(0, clip.start + shift)));
  }
  return ops;
}

/** The end of the clips before index `i` of track `t` (0 when none). */
function endBefore(track: Track, i: number): number {
  let end = 0;
  for (let j = 0; j < i; j++) end = Math.max(end, endOf(track.clips[j] as Clip));
  return end;
}

/**
 * Closes the gap before clip `clip` of track `t`: that clip starts where the clips before it
 * end and every later clip of the track moves earlier by the same amount. Empty when there is
 * no gap there.
 */
export function closeGapOps(c: Composition, t: number, clip: number): PatchOperation[] {
  const track = c.tracks[t];
  const at = track?.clips[clip];
  if (!track || !at || clip === 0) return [];
  const end = endBefore(track, clip);
  const gap = at.start - end;
  return gap > EPS ? shiftFrom(c, t, clip, -gap, end) : [];
}

/** Closes every gap between the clips of track `t` (its first clip stays where it is). */
export function closeTrackGapsOps(c: Composition, t: number): PatchOperation[] {
  const track = c.tracks[t];
  if (!track) return [];
  const ops: PatchOperation[] = [];
  let end: number | null = null;
  for (const [i, clip] of track.clips.entries()) {
    let start = clip.start;
    if (end !== null && start - end > EPS) {
      start = end;
      ops.push(startOp(t, i, start));
    }
    end = end === null ? start + clip.duration : Math.max(end, start + clip.duration);
  }
  return ops;
}

/**
 * Ripple delete: removes clip `clip` of track `t` and moves every later clip of the track
 * earlier by the deleted clip's duration, so what followed it keeps its distance to what
 * preceded it.
 */
export function rippleDeleteOps(c: Composition, t: number, clip: number): PatchOperation[] {
  const track = c.tracks[t];
  const gone = track?.clips[clip];
  if (!track || !gone) return [];
  const next = track.clips[clip + 1];
  const ops = next ? shiftFrom(c, t, clip + 1, -gone.duration, Math.max(0, next.start - gone.duration)) : [];
  // Clips after a gap that starts at the deleted clip's end keep that gap.
  return [...ops, { op: "remove", path: `/tracks/${t}/clips/${clip}` }];
}

/**
 * Where a clip put "at the playhead" on track `t` starts: the playhead itself, unless it lies
 * inside a clip (then that clip's nearer edge: its start when the playhead is in its first half,
 * else its end) or within `tolerance` seconds after the end of the clips before it (then exactly
 * that end, so no sliver of a gap is left).
 */
export function insertPoint(track: Track, at: number, tolerance: number): number {
  for (const clip of track.clips) {
    if (at > clip.start + EPS && at < endOf(clip) - EPS) {
      return at - clip.start < clip.duration / 2 ? clip.start : endOf(clip);
    }
  }
  let before = 0;
  let after = Number.POSITIVE_INFINITY;
  for (const clip of track.clips) {
    if (endOf(clip) <= at + EPS) before = Math.max(before, endOf(clip));
    if (clip.start >= at - EPS) after = Math.min(after, clip.start);
  }
  if (at - before <= tolerance) return before;
  if (after - at <= tolerance && after !== Number.POSITIVE_INFINITY) return after;
  return at;
}

/**
 * Insert: adds `clip` (without id, any start) to track `t` at {@link insertPoint} of `at`, and
 * pushes the clips after that point later by as much as the new clip would overlap the first of
 * them (all by the same amount, so their gaps and cuts stay as they were).
 * @returns the patch and the new clip's start, seconds
 */
export function insertOps(
  c: Composition,
  t: number,
  clip: Omit<Clip, "id">,
  at: number,
  tolerance: number,
): { ops: PatchOperation[]; start: number } {
  const track = c.tracks[t];
  if (!track) return { ops: [], start: at };
  const start = insertPoint(track, at, tolerance);
  const end = start + clip.duration;
  const first = track.clips.findIndex((x) => x.start >= start - EPS);
  const ops: PatchOperation[] = [];
  const push = first >= 0 ? end - (track.clips[first] as Clip).start : 0;
  if (first >= 0 && push > EPS) ops.push(...shiftFrom(c, t, first, push, end));
  ops.push({ op: "add", path: `/tracks/${t}/clips/-`, value: { ...clip, start } });
  return { ops, start };
}

/** A transition dropped on the timeline: the patch that adds it and the clip it leads into, or why not. */
export type TransitionDrop =
  | { ok: true; ops: PatchOperation[]; clipId: string; duration: number }
  | { ok: false; error: string };

/**
 * A transition of `type` dropped at `at` seconds on track `t`: it goes on the cut nearest `at`
 * (within `tolerance` seconds of the cut, or of the gap between the two clips). Two clips that
 * nearly touch (a gap up to `tolerance`) are made to touch first: the later clip and the ones
 * after it move earlier. The transition lasts the whole number of canvas frames nearest
 * {@link DROPPED_TRANSITION_SECONDS} (12 at 23.976 fps: 0.5005 s), fewer when one of the two
 * clips is shorter than that.
 */
export function transitionDropOps(
  c: Composition,
  t: number,
  at: number,
  type: Transition["type"],
  tolerance: number,
): TransitionDrop {
  const track = c.tracks[t];
  if (!track || track.kind === "audio") {
    return { ok: false, error: "Transitions go between two clips of a video track." };
  }
  let best: { i: number; distance: number } | null = null;
  for (let i = 1; i < track.clips.length; i++) {
    const clip = track.clips[i] as Clip;
    const end = endBefore(track, i);
    const distance = at < end ? end - at : at > clip.start ? at - clip.start : 0;
    if (distance <= tolerance && (!best || distance < best.distance)) best = { i, distance };
  }
  if (!best) return { ok: false, error: "Drop the transition on a cut between two clips of the track." };
  const clip = track.clips[best.i] as Clip;
  const prev = track.clips[best.i - 1] as Clip;
  const gap = clip.start - endBefore(track, best.i);
  if (gap > tolerance) {
    return {
      ok: false,
      error: `The two clips are ${gap.toFixed(2)} s apart: close the gap first (Close gap), then drop the transition.`,
    };
  }
  const frame = frameSeconds(c.canvas.fps);
  const fits = Math.floor(Math.min(clip.duration, prev.duration) / frame + 1e-9);
  const frames = Math.max(1, Math.min(Math.round(DROPPED_TRANSITION_SECONDS / frame), fits));
  const duration = Math.min(frameStart(frames, c.canvas.fps), clip.duration, prev.duration);
  const ops = gap > EPS ? closeGapOps(c, t, best.i) : [];
  ops.push({ op: "add", path: `/tracks/${t}/clips/${best.i}/transition`, value: { type, duration } });
  return { ok: true, ops, clipId: clip.id, duration };
}
