import type { Composition } from "../../clients/typescript/src/types.ts";
import { microseconds, toFrameGrid } from "./timecode.ts";

/** Pixels within which a dragged edge or the playhead snaps to a snap point. */
export const SNAP_PX = 8;

/** A time a dragged edge may snap to, and what lies there. */
export interface SnapPoint {
  /** Seconds on the timeline. */
  time: number;
  kind: "clip" | "playhead" | "marker";
}

/** Where a drag ends up: its time (seconds) and the point it snapped to (null: the frame grid). */
export interface Snapped {
  time: number;
  point: SnapPoint | null;
}

/**
 * The points a drag can snap to: both edges of every clip on every track, the playhead (unless
 * it is what is dragged: `playhead` null) and every marker, sorted by time; `exclude` names the
 * clip or marker being dragged (its own place is no snap point).
 */
export function snapPoints(c: Composition, playhead: number | null, exclude: string | null): SnapPoint[] {
  const points: SnapPoint[] = [];
  for (const track of c.tracks) {
    for (const clip of track.clips) {
      if (clip.id === exclude) continue;
      points.push({ time: clip.start, kind: "clip" });
      points.push({ time: microseconds(clip.start + clip.duration), kind: "clip" });
    }
  }
  if (playhead !== null) points.push({ time: playhead, kind: "playhead" });
  for (const m of c.markers ?? []) if (m.id !== exclude) points.push({ time: m.time, kind: "marker" });
  return points.sort((a, b) => a.time - b.time);
}

/** The point nearest `t` within `threshold` seconds, or null. */
export function nearestPoint(t: number, points: readonly SnapPoint[], threshold: number): SnapPoint | null {
  let best: SnapPoint | null = null;
  for (const p of points) {
    const d = Math.abs(p.time - t);
    if (d <= threshold && (!best || d < Math.abs(best.time - t))) best = p;
  }
  return best;
}

/**
 * Snaps one time (a trimmed edge, the playhead, a marker): to the nearest snap point within
 * `threshold` seconds, else to the nearest frame start of the canvas at `fps`. With `free` (the
 * user holds the modifier that turns snapping off) only the frame grid applies. Never below 0.
 */
export function snapTime(
  t: number,
  points: readonly SnapPoint[],
  threshold: number,
  fps: number,
  free = false,
): Snapped {
  const point = free ? null : nearestPoint(t, points, threshold);
  if (point) return { time: Math.max(0, point.time), point };
  return { time: toFrameGrid(t, fps), point: null };
}

/**
 * Snaps a clip being moved so that it starts at `start` (seconds, before snapping) and lasts
 * `duration`: whichever of its two edges is nearer a snap point within `threshold` seconds snaps
 * to it (the clip's start or its end lands exactly on the point), else its start goes to the
 * frame grid. Returns the clip's new start (never below 0) and the point its edge met.
 */
export function snapMove(
  start: number,
  duration: number,
  points: readonly SnapPoint[],
  threshold: number,
  fps: number,
  free = false,
): Snapped {
  if (!free) {
    const atStart = nearestPoint(start, points, threshold);
    const atEnd = nearestPoint(start + duration, points, threshold);
    const dStart = atStart ? Math.abs(atStart.time - start) : Number.POSITIVE_INFINITY;
    const dEnd = atEnd ? Math.abs(atEnd.time - (start + duration)) : Number.POSITIVE_INFINITY;
    if (atStart && dStart <= dEnd) return { time: Math.max(0, atStart.time), point: atStart };
    if (atEnd && atEnd.time - duration >= 0) {
      // Not rounded: the clip's end must meet the point exactly (to the server's 1e-9 s).
      return { time: atEnd.time - duration, point: atEnd };
    }
  }
  return { time: toFrameGrid(start, fps), point: null };
}
