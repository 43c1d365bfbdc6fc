/**
 * How one shot is framed: who is followed (one face, two faces together, two faces split into
 * stacked halves, the most active region, or the centre) and the keyframes of its window. Pure;
 * positions are fractions of the source picture, times source seconds.
 */
import type { FaceBox } from "../../media/faces/detector.ts";
import type { ReframeKeyframe } from "../composition/schema.ts";
import {
  activityCentre,
  boxesOver,
  centreInterval,
  cropPath,
  type FaceTrack,
  type LumaFrames,
  simplifyPath,
  trackFaces,
} from "./track.ts";

/** What a shot's window follows. */
export type ShotSubject = "face" | "faces" | "activity" | "centre";

/** The framing of one shot. */
export interface ShotFraming {
  /** `split`: two stacked windows, `keyframes` the upper half's (the left person), `lower` the lower half's. */
  layout: "single" | "split";
  subject: ShotSubject;
  /** Faces followed (0, 1 or 2). */
  faces: number;
  keyframes: ReframeKeyframe[];
  lower?: ReframeKeyframe[];
  /** Why, in a sentence (without the shot's name). */
  reason: string;
}

/** Window size as fractions of the source picture for a box of aspect `aspect` (width / height). */
export function windowSize(
  source: { width: number; height: number },
  aspect: number,
): { w: number; h: number } {
  return {
    w: Math.min(1, (source.height * aspect) / source.width),
    h: Math.min(1, source.width / aspect / source.height),
  };
}

/** Margin kept around a face box inside the window, fraction of the box's size on each side. */
const MARGIN = 0.25;

/** Headroom: the window centre lies this share of the window height below the face's centre. */
const HEADROOM = 0.1;

/**
 * The keyframes of a window of size `win` following the boxes `boxes` (one per sample at
 * `times`, sampled `rate` times a second): 1€-smoothed, dead-zoned, constrained, simplified
 * (see track.ts), with a keyframe at the shot's start and just before its end.
 */
function follow(
  sampled: readonly FaceBox[],
  sampleTimes: readonly number[],
  rate: number,
  win: { w: number; h: number },
  shot: { start: number; end: number },
): ReframeKeyframe[] {
  const { boxes, times } = toShotEnd(sampled, sampleTimes, shot.end - 1e-3);
  // The face box widened by a margin on each side: the detector's box jitters by about a tenth
  // of its size from frame to frame, and the window must hold the face also between samples.
  const xi = boxes.map((b) => centreInterval(b.x - MARGIN * b.w, b.x + (1 + MARGIN) * b.w, win.w));
  const yi = boxes.map((b) => centreInterval(b.y - MARGIN * b.h, b.y + (1 + MARGIN) * b.h, win.h));
  const xs = cropPath(
    boxes.map((b) => b.x + b.w / 2),
    xi,
    rate,
    win.w,
  );
  const ys = cropPath(
    boxes.map((b) => b.y + b.h / 2 + HEADROOM * win.h),
    yi,
    rate,
    win.h,
  );
  return withShotEnds(simplifyPath(times, xs, ys, { x: xi, y: yi }), shot);
}

/**
 * The samples with one more at `end` (the shot's last moment), its box predicted from the last
 * two samples at constant velocity (the prediction step of a constant-velocity Kalman model,
 * without the filter), kept inside the picture: the face keeps moving after the last sample.
 */
function toShotEnd(
  boxes: readonly FaceBox[],
  times: readonly number[],
  end: number,
): { boxes: FaceBox[]; times: number[] } {
  const last = boxes.at(-1);
  const lastT = times.at(-1);
  if (!last || lastT === undefined || end <= lastT + 1e-3) return { boxes: [...boxes], times: [...times] };
  const prev = boxes.at(-2);
  const prevT = times.at(-2);
  const f = prev && prevT !== undefined && lastT > prevT ? (end - lastT) / (lastT - prevT) : 0;
  const x = prev ? last.x + (last.x - prev.x) * f : last.x;
  const y = prev ? last.y + (last.y - prev.y) * f : last.y;
  const predicted = {
    ...last,
    x: Math.min(1 - last.w, Math.max(0, x)),
    y: Math.min(1 - last.h, Math.max(0, y)),
  };
  return { boxes: [...boxes, predicted], times: [...times, end] };
}

/** Holds the first and last keyframe out to the shot's start and to 1 ms before its end. */
function withShotEnds(keyframes: ReframeKeyframe[], shot: { start: number; end: number }): ReframeKeyframe[] {
  const first = keyframes[0];
  const last = keyframes.at(-1);
  if (!first || !last) return keyframes;
  const out = [...keyframes];
  if (first.time > shot.start + 1e-3) out.unshift({ ...first, time: shot.start });
  const end = shot.end - 1e-3;
  if (last.time < end - 1e-3) out.push({ ...last, time: end });
  return out.map((k) => ({ ...k, time: Math.round(k.time * 10_000) / 10_000 }));
}

const still = (x: number, y: number, shot: { start: number }): ReframeKeyframe[] => [
  {
    time: Math.round(shot.start * 10_000) / 10_000,
    x: Math.round(x * 10_000) / 10_000,
    y: Math.round(y * 10_000) / 10_000,
  },
];

/**
 * Frames a shot from the faces detected in its samples.
 * - No face: the window on the most active region of the samples, else the centre.
 * - One face, or others too small or too rarely seen: the window follows it.
 * - Two faces that fit one window together (at every sample): the window follows both.
 * - Two faces farther apart: `split`, each in its own half of the box (the left person above).
 * @param samples - the faces of each sample (boxes as fractions), at `times` (source seconds), `rate` per second.
 * @param aspect - the clip box's aspect (width / height) on the new canvas.
 */
export function frameShot(input: {
  samples: readonly FaceBox[][];
  times: readonly number[];
  rate: number;
  shot: { start: number; end: number };
  source: { width: number; height: number };
  aspect: number;
  luma: LumaFrames;
}): ShotFraming {
  const { samples, times, rate, shot, source, aspect } = input;
  const win = windowSize(source, aspect);
  const tracks = trackFaces(samples);
  const [a, b] = tracks;
  if (!a) {
    const active = activityCentre(input.luma, win);
    if (active) {
      return {
        layout: "single",
        subject: "activity",
        faces: 0,
        keyframes: still(active.x, active.y, shot),
        reason: "no face found; the window is on the most active region",
      };
    }
    return {
      layout: "single",
      subject: "centre",
      faces: 0,
      keyframes: still(0.5, 0.5, shot),
      reason: "no face and little motion found; the window is centred",
    };
  }
  const count = samples.length;
  const more = tracks.length > 2 ? ` (${tracks.length} faces seen; the two most prominent are framed)` : "";
  if (b && b.weight >= 0.35 * a.weight) {
    const both = boxesOver([a, b], count);
    if (both.every((box) => box.w <= win.w * 0.95 && box.h <= win.h * 0.95)) {
      return {
        layout: "single",
        subject: "faces",
        faces: 2,
        keyframes: follow(both, times, rate, win, shot),
        reason: `two faces close enough to share the window; it follows both${more}`,
      };
    }
    const half = windowSize(source, aspect * 2);
    const meanX = (t: FaceTrack) =>
      [...t.boxes.values()].reduce((s, x) => s + x.x + x.w / 2, 0) / t.boxes.size;
    const [left, right] = meanX(a) <= meanX(b) ? [a, b] : [b, a];
    return {
      layout: "split",
      subject: "faces",
      faces: 2,
      keyframes: follow(boxesOver([left], count), times, rate, half, shot),
      lower: follow(boxesOver([right], count), times, rate, half, shot),
      reason: `two faces too far apart for one window; split layout, the left person above${more}`,
    };
  }
  return {
    layout: "single",
    subject: "face",
    faces: 1,
    keyframes: follow(boxesOver([a], count), times, rate, win, shot),
    reason: `the window follows the face${more ? ` (${tracks.length} faces seen; the most prominent is framed)` : ""}`,
  };
}
