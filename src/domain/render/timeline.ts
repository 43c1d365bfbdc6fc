import type { Clip, Track, TransitionType } from "../composition/schema.ts";
import type { RenderWarning } from "./types.ts";

/** A frame rate as an exact rational `num/den` frames per second (29.97 → 30000/1001). */
export interface FrameRate {
  num: number;
  den: number;
}

/**
 * Exact rational for a frame rate in frames per second: the NTSC rates 23.976, 29.97 and
 * 59.94 (and 47.952, 119.88) become `N*1000/1001`; anything else is rounded to 1/1000 fps.
 */
export function toFrameRate(fps: number): FrameRate {
  for (const base of [24, 30, 48, 60, 120]) {
    if (Math.abs(fps - (base * 1000) / 1001) < 0.005) return { num: base * 1000, den: 1001 };
  }
  if (Number.isInteger(fps)) return { num: fps, den: 1 };
  const num = Math.round(fps * 1000);
  const g = gcd(num, 1000);
  return { num: num / g, den: 1000 / g };
}

/** `num/den` as ffmpeg writes rationals, e.g. `"30000/1001"` or `"25"`. */
export function rateString(rate: FrameRate): string {
  return rate.den === 1 ? String(rate.num) : `${rate.num}/${rate.den}`;
}

/** Nearest frame index (timeline frames from 0) for a time in seconds. */
export function secondsToFrame(seconds: number, rate: FrameRate): number {
  return Math.round((seconds * rate.num) / rate.den + 1e-9);
}

/** Time in seconds of a frame index. */
export function frameToSeconds(frame: number, rate: FrameRate): number {
  return (frame * rate.den) / rate.num;
}

/** A transition centred on the cut at `cutFrame`: `before` frames before it, `after` frames after it. */
export interface PlannedTransition {
  type: TransitionType;
  frames: number;
  before: number;
  after: number;
}

/**
 * One piece of a video track's stream. Each covers `[startFrame, endFrame)` of the timeline
 * (frames), extended by `lead` frames before (the incoming transition's first half, drawn from
 * source before the in-point) and `tail` frames after (the outgoing transition's second half,
 * drawn from source after the out-point). Consecutive segments tile the track without gaps.
 */
export interface Segment {
  /** `clip`: a video/image/color clip; `blank`: transparent (gaps, text and caption clips). */
  kind: "clip" | "blank";
  clip?: Clip;
  /** Timeline frame at which the clip's source plays its in-point (`trim`): the snapped clip start. */
  origin: number;
  startFrame: number;
  endFrame: number;
  lead: number;
  tail: number;
  transition?: PlannedTransition;
  /** The transition of the next segment (into it), whose first half this segment's tail covers. */
  outTransition?: PlannedTransition;
  /**
   * The stream's frames `[start, end)` before a window cut it (`clipSegmentsToWindow`), so that
   * what progresses over the clip (motion) looks the same in a window as in the whole render.
   */
  uncut?: { start: number; end: number };
}

/** Frames `[streamStart, streamEnd)` a segment's stream covers, handles included. */
export const streamStart = (s: Segment) => s.startFrame - s.lead;
/** End frame (exclusive) of a segment's stream. */
export const streamEnd = (s: Segment) => s.endFrame + s.tail;

/** Timeline frames of one clip after snapping, clamped to the composition length. */
export interface SnappedClip {
  startFrame: number;
  endFrame: number;
}

/** Snaps a clip to frames (start and end rounded separately, so adjacent clips stay adjacent). */
export function snapClip(
  clip: Pick<Clip, "start" | "duration">,
  rate: FrameRate,
  totalFrames: number,
): SnappedClip {
  const startFrame = Math.min(secondsToFrame(clip.start, rate), totalFrames);
  const endFrame = Math.min(secondsToFrame(clip.start + clip.duration, rate), totalFrames);
  return { startFrame, endFrame };
}

/** Splits a transition of `duration` seconds into whole frames centred on the cut (≥ 2 frames). */
export function planTransition(type: TransitionType, duration: number, rate: FrameRate): PlannedTransition {
  const frames = Math.max(2, secondsToFrame(duration, rate));
  const before = Math.floor(frames / 2);
  return { type, frames, before, after: frames - before };
}

const isVisual = (clip: Clip) =>
  clip.asset.type === "video" || clip.asset.type === "image" || clip.asset.type === "color";

/**
 * Lays a track out as contiguous segments over `[0, totalFrames)`: clips (video, image,
 * color) and transparent blanks (gaps, text and caption clips, whose text the ASS pass draws).
 * An audio track lays out the same way with its audio clips as `clip` segments.
 * Transitions become `lead`/`tail` handles of the two segments they join; a transition with
 * nothing before it (clip at frame 0), or that no longer fits after snapping, is dropped with a
 * `TRANSITION_IGNORED` warning. Adjacent blanks without a transition are merged.
 */
export function layoutTrack(
  track: Track,
  rate: FrameRate,
  totalFrames: number,
  warnings: RenderWarning[],
): Segment[] {
  const segments: Segment[] = [];
  let cursor = 0;
  const pushBlank = (startFrame: number, endFrame: number) => {
    if (endFrame <= startFrame) return;
    const last = segments.at(-1);
    if (last && last.kind === "blank" && last.endFrame === startFrame) last.endFrame = endFrame;
    else segments.push({ kind: "blank", origin: startFrame, startFrame, endFrame, lead: 0, tail: 0 });
  };
  for (const clip of track.clips) {
    const snapped = snapClip(clip, rate, totalFrames);
    const startFrame = Math.max(snapped.startFrame, cursor);
    const endFrame = snapped.endFrame;
    if (endFrame <= startFrame) continue;
    pushBlank(cursor, startFrame);
    const isClip = track.kind === "audio" ? clip.asset.type === "audio" : isVisual(clip);
    const origin = snapped.startFrame;
    const seg: Segment = {
      kind: isClip ? "clip" : "blank",
      clip,
      origin,
      startFrame,
      endFrame,
      lead: 0,
      tail: 0,
    };
    if (clip.transition) {
      const t = planTransition(clip.transition.type, clip.transition.duration, rate);
      const prev = segments.at(-1);
      const fitsPrev = prev && prev.endFrame - prev.startFrame - prev.lead >= t.after;
      const fitsThis = endFrame - startFrame >= t.before;
      if (!prev || !fitsPrev || !fitsThis) {
        warnings.push({
          code: "TRANSITION_IGNORED",
          message: prev
            ? "transition does not fit between the clips after frame snapping; cut instead"
            : "transition into the first clip of a track at 0 has nothing to transition from; cut instead",
          clipId: clip.id,
        });
      } else {
        prev.tail = t.after;
        prev.outTransition = t;
        seg.lead = t.before;
        seg.transition = t;
      }
    }
    if (seg.kind === "blank" && !seg.transition) {
      pushBlank(startFrame, endFrame);
    } else {
      segments.push(seg);
    }
    cursor = endFrame;
  }
  pushBlank(cursor, totalFrames);
  return segments;
}

/**
 * Widens a requested render window `[startFrame, endFrame)` so that no transition straddles
 * its edges (a transition is either wholly inside or wholly outside); the renderer trims the
 * widened output back to the request. Returns the widened window.
 */
export function widenWindow(
  tracks: Segment[][],
  startFrame: number,
  endFrame: number,
): { start: number; end: number } {
  const windows: { s: number; e: number }[] = [];
  for (const segs of tracks) {
    for (const seg of segs) {
      if (seg.transition)
        windows.push({ s: seg.startFrame - seg.lead, e: seg.startFrame + seg.transition.after });
    }
  }
  let start = startFrame;
  let end = endFrame;
  for (let changed = true; changed; ) {
    changed = false;
    for (const w of windows) {
      if (w.s < start && start < w.e) {
        start = w.s;
        changed = true;
      }
      if (w.s < end && end < w.e) {
        end = w.e;
        changed = true;
      }
    }
  }
  return { start, end };
}

/**
 * Restricts a track's segments to the window `[start, end)`: drops segments whose stream lies
 * outside it, cuts the rest at the edges (a cut segment loses the transition on that side,
 * which `widenWindow` guarantees lies outside the window). Frames stay absolute.
 */
export function clipSegmentsToWindow(segments: Segment[], start: number, end: number): Segment[] {
  const out: Segment[] = [];
  for (const original of segments) {
    if (streamEnd(original) <= start || streamStart(original) >= end) continue;
    const seg: Segment = { ...original };
    if (streamStart(seg) < start || streamEnd(seg) > end) {
      seg.uncut = original.uncut ?? { start: streamStart(original), end: streamEnd(original) };
    }
    if (streamStart(seg) < start) {
      // widenWindow guarantees the window does not start inside a transition, so either the
      // whole incoming transition is before `start` (drop it) or the stream starts at or after it.
      if (seg.startFrame <= start) {
        seg.startFrame = start;
        seg.lead = 0;
        delete seg.transition;
      } else {
        seg.lead = seg.startFrame - start;
      }
    }
    if (streamEnd(seg) > end) {
      if (seg.endFrame >= end) {
        seg.endFrame = end;
        seg.tail = 0;
        delete seg.outTransition;
      } else {
        seg.tail = end - seg.endFrame;
      }
    }
    out.push(seg);
  }
  return out;
}

/** Greatest common divisor of two non-negative integers (Euclid); `gcd(a, 0)` is `a`. */
export function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
