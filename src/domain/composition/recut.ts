/**
 * Recutting clips by their source time: splitting a clip into consecutive clips at source times
 * (scene changes), and removing stretches of source (silences) with a ripple that closes the
 * gaps. Source time is seconds into the clip's media; a clip plays source `[trim, trim +
 * duration × speed)` from `start` on, so source `s` is at timeline `start + (s − trim) / speed`.
 * Timeline values are rounded to the millisecond like every edit tool's.
 */
import { newId } from "../../ids.ts";
import type { Clip, Marker, Track } from "./schema.ts";

/** A stretch of source time, seconds (`end > start`). */
export interface SourceRange {
  start: number;
  end: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const EPS = 1e-6;

/** The source range a clip plays: `[trim, trim + duration × speed)`. */
export function sourceSpan(clip: Pick<Clip, "trim" | "duration" | "speed">): SourceRange {
  const trim = clip.trim ?? 0;
  return { start: trim, end: trim + clip.duration * (clip.speed ?? 1) };
}

/** Merges overlapping or touching ranges and sorts them by start. */
export function merged(ranges: readonly SourceRange[]): SourceRange[] {
  const out: SourceRange[] = [];
  for (const r of [...ranges].filter((x) => x.end > x.start).sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && r.start <= last.end + EPS) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

/**
 * The clip replaced by consecutive clips playing the source ranges `keep` (sorted, inside the
 * clip's span, not overlapping) one after another from the clip's start, at its speed. The first
 * piece keeps the clip's id, incoming transition and fade-in, the last its fade-out (each no
 * longer than its piece); middle pieces are hard cuts; every other property is copied. New
 * pieces get fresh `clp_` ids. Empty `keep` → no clips.
 */
export function recutClip(clip: Clip, keep: readonly SourceRange[]): Clip[] {
  const speed = clip.speed ?? 1;
  const { id: _id, transition, fadeIn, fadeOut, ...rest } = clip;
  let at = 0;
  const pieces = keep.map((range, i): Clip => {
    const from = r3(clip.start + at);
    at += (range.end - range.start) / speed;
    const piece: Clip = {
      ...structuredClone(rest),
      id: i === 0 ? clip.id : newId("clp"),
      start: from,
      duration: r3(r3(clip.start + at) - from),
    };
    if (range.start > EPS || clip.trim !== undefined) piece.trim = r3(range.start);
    return piece;
  });
  const first = pieces[0];
  const last = pieces.at(-1);
  if (first && transition)
    first.transition = { ...transition, duration: Math.min(transition.duration, first.duration) };
  if (first && fadeIn !== undefined) first.fadeIn = Math.min(fadeIn, first.duration);
  if (last && fadeOut !== undefined) last.fadeOut = Math.min(fadeOut, last.duration - (last.fadeIn ?? 0));
  return pieces;
}

/**
 * Splits a clip at source times (e.g. scene changes of its media) into consecutive clips that
 * together play what it played: cuts outside the clip's span, or leaving a piece shorter than
 * `minPiece` timeline seconds, are skipped; a frozen clip (one frame held) is never split. The
 * track's clip is replaced in place.
 * @returns the pieces, in order (just the clip when no cut applies).
 */
export function splitAtSourceTimes(
  track: Track,
  clipId: string,
  times: readonly number[],
  minPiece: number,
): Clip[] {
  const clip = track.clips.find((c) => c.id === clipId);
  if (!clip) throw new Error(`clip ${clipId} is not on track ${track.id}`);
  if (clip.freeze) return [clip];
  const span = sourceSpan(clip);
  const speed = clip.speed ?? 1;
  const bounds = [span.start];
  for (const t of [...times].sort((a, b) => a - b)) {
    const prev = bounds.at(-1) as number;
    if ((t - prev) / speed >= minPiece - EPS && (span.end - t) / speed >= minPiece - EPS) bounds.push(t);
  }
  if (bounds.length === 1) return [clip];
  bounds.push(span.end);
  const pieces = recutClip(
    clip,
    bounds.slice(1).map((end, i) => ({ start: bounds[i] as number, end })),
  );
  track.clips.splice(track.clips.indexOf(clip), 1, ...pieces);
  fitTransitions(track);
  return pieces;
}

/**
 * Shortens incoming transitions to what precedes them on the track — the previous clip when it
 * touches, else the gap before — and drops one with nothing before it (a first clip at 0).
 */
export function fitTransitions(track: Track): void {
  let before: Clip | undefined;
  for (const clip of [...track.clips].sort((a, b) => a.start - b.start)) {
    const end = before ? before.start + before.duration : 0;
    if (clip.transition) {
      const gap = clip.start - end;
      const room = before && Math.abs(gap) < 1e-3 ? before.duration : gap;
      if (room < 1e-3) delete clip.transition;
      else if (clip.transition.duration > room) clip.transition = { ...clip.transition, duration: r3(room) };
    }
    if (!before || clip.start + clip.duration > end) before = clip;
  }
}

/**
 * Where timeline time `t` lands once the timeline stretches `removed` (sorted, not overlapping,
 * times before the cut) are cut out and the rest closed up: a time inside a removed stretch
 * goes to the cut.
 */
export function rippledTime(removed: readonly SourceRange[], t: number): number {
  let n = 0;
  for (const r of removed) {
    if (t >= r.end) n += r.end - r.start;
    else if (t > r.start) n += t - r.start;
  }
  return t - n;
}

/**
 * Moves `markers` (timeline times) by the timeline stretches `removed` (times before the cut,
 * sorted) with {@link rippledTime}; a marker's duration loses what was removed inside it.
 * Mutates `markers`.
 */
export function rippleMarkers(markers: Marker[] | undefined, removed: readonly SourceRange[]): void {
  for (const m of markers ?? []) {
    const end = m.time + (m.duration ?? 0);
    const time = r3(rippledTime(removed, m.time));
    if (m.duration !== undefined) m.duration = Math.max(0, r3(rippledTime(removed, end) - time));
    m.time = time;
  }
}

/** What {@link removeSourceRanges} did. */
export interface RemovedRanges {
  /** Timeline seconds removed from the track (later clips moved left by as much). */
  removedSeconds: number;
  /** Stretches cut out, over all clips. */
  cuts: number;
  /** The timeline stretches removed, in the track's times before the cut, sorted. */
  removedAt: SourceRange[];
  /** Ids of the clips the recut clips became, by original clip id (empty: wholly removed). */
  pieces: Map<string, string[]>;
}

/**
 * Cuts source ranges out of clips of one track and closes the gaps (ripple): each clip in
 * `ranges` (by id) is replaced by the pieces of its source outside those ranges
 * ({@link recutClip}); kept pieces shorter than `minPiece` timeline seconds are cut too, and a
 * clip with nothing left is removed. Every later clip of the track moves left by the timeline
 * time removed before it, so gaps between clips stay as they were. An incoming transition
 * longer than what now precedes it is shortened to fit. `markers` (timeline times of the
 * whole composition) move with the track: a marker inside a removed stretch goes to the cut.
 * Other tracks are not moved. Mutates `track` and `markers`.
 */
export function removeSourceRanges(
  track: Track,
  markers: Marker[] | undefined,
  ranges: ReadonlyMap<string, readonly SourceRange[]>,
  minPiece: number,
): RemovedRanges {
  const removedAt: SourceRange[] = []; // timeline stretches removed, original times
  const pieces = new Map<string, string[]>();
  let shift = 0;
  let cuts = 0;
  const out: Clip[] = [];
  for (const clip of [...track.clips].sort((a, b) => a.start - b.start)) {
    const start = r3(clip.start - shift);
    const cut = ranges.get(clip.id);
    if (!cut) {
      out.push({ ...clip, start });
      continue;
    }
    const span = sourceSpan(clip);
    const speed = clip.speed ?? 1;
    const remove = merged(
      cut.map((r) => ({ start: Math.max(r.start, span.start), end: Math.min(r.end, span.end) })),
    );
    let keep: SourceRange[] = [];
    let from = span.start;
    for (const r of remove) {
      if (r.start > from) keep.push({ start: from, end: r.start });
      from = Math.max(from, r.end);
    }
    if (span.end > from) keep.push({ start: from, end: span.end });
    keep = keep.filter((k) => (k.end - k.start) / speed >= minPiece - EPS);
    // Everything not kept is removed (short kept pieces included).
    let prev = span.start;
    for (const k of [...keep, { start: span.end, end: span.end }]) {
      if (k.start > prev + EPS) {
        removedAt.push({
          start: clip.start + (prev - span.start) / speed,
          end: clip.start + (k.start - span.start) / speed,
        });
        cuts += 1;
      }
      prev = Math.max(prev, k.end);
    }
    const recut = recutClip({ ...clip, start }, keep);
    pieces.set(
      clip.id,
      recut.map((p) => p.id),
    );
    out.push(...recut);
    shift += clip.duration - recut.reduce((n, p) => n + p.duration, 0);
  }
  track.clips = out;
  fitTransitions(track);
  rippleMarkers(markers, removedAt);
  return {
    removedSeconds: r3(removedAt.reduce((n, r) => n + r.end - r.start, 0)),
    cuts,
    removedAt,
    pieces,
  };
}

/** Whether two clips play the same stretch of source at the same place (start, length, trim, speed). */
export function inStep(a: Clip, b: Clip): boolean {
  const close = (x: number, y: number) => Math.abs(x - y) < 1e-3;
  return (
    close(a.start, b.start) &&
    close(a.duration, b.duration) &&
    close(a.trim ?? 0, b.trim ?? 0) &&
    close(a.speed ?? 1, b.speed ?? 1)
  );
}

/**
 * {@link removeSourceRanges} on `track` of a composition, and the same cut on every caption clip
 * of another track that is in step with a recut clip ({@link inStep}: the captions of its
 * speech), so captions stay with their words. Markers move with `track`. Mutates `draft`.
 * @param ranges - source ranges to cut, by clip id of `track`.
 * @returns what was cut from `track`, and whether caption clips were cut with it.
 */
export function removeSourceRangesWithCaptions(
  draft: { tracks: Track[]; markers?: Marker[] | undefined },
  track: Track,
  ranges: ReadonlyMap<string, readonly SourceRange[]>,
  minPiece: number,
): RemovedRanges & { captionsCut: boolean } {
  const clips = track.clips.filter((c) => ranges.has(c.id));
  const captionTracks = draft.tracks.flatMap((other) => {
    if (other === track) return [];
    const linked = new Map<string, readonly SourceRange[]>();
    for (const caption of other.clips) {
      const media = caption.asset.type === "caption" ? clips.find((c) => inStep(c, caption)) : undefined;
      if (media) linked.set(caption.id, ranges.get(media.id) ?? []);
    }
    return linked.size > 0 ? [{ other, linked }] : [];
  });
  const done = removeSourceRanges(track, draft.markers, ranges, minPiece);
  for (const { other, linked } of captionTracks) removeSourceRanges(other, undefined, linked, minPiece);
  return { ...done, captionsCut: captionTracks.length > 0 };
}
