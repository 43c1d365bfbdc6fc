import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  centreInterval,
  cropPath,
  deadZone,
  KEYFRAME_TOLERANCE,
  oneEuro,
  simplifyPath,
  trackFaces,
} from "./track.ts";

const box = (x: number, y = 0.3, w = 0.1) => ({ x, y, w, h: w * 1.5, score: 0.9 });

describe("reframe tracking", () => {
  it("keeps the window still while a face only jitters", () => {
    const jitter = Array.from({ length: 40 }, (_, k) => 0.5 + 0.01 * Math.sin(k * 2.1));
    const path = deadZone(oneEuro(jitter, 4), 0.06 * 0.32);
    expect(new Set(path).size).toBe(1);
  });

  it("follows two faces as two tracks, heaviest first, and drops a one-off detection", () => {
    const samples = Array.from({ length: 10 }, (_, k) => [
      box(0.1 + k * 0.01, 0.3, 0.12),
      box(0.7, 0.3, 0.08),
      ...(k === 4 ? [box(0.4, 0.8, 0.05)] : []),
    ]);
    const tracks = trackFaces(samples);
    expect(tracks).toHaveLength(2);
    expect(tracks[0]?.boxes.get(9)?.x).toBeCloseTo(0.19);
    expect(tracks[1]?.boxes.size).toBe(10);
  });

  it("keyframes stay within the tolerance of the path and keep the face inside the window", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.05, max: 0.85, noNaN: true }), { minLength: 2, maxLength: 60 }),
        fc.double({ min: 0.15, max: 0.9, noNaN: true }),
        (lefts, win) => {
          const faceW = Math.min(0.1, win * 0.9);
          const times = lefts.map((_, k) => k / 4);
          const intervals = lefts.map((x) => centreInterval(x, Math.min(1, x + faceW), win));
          const xs = cropPath(
            lefts.map((x) => x + faceW / 2),
            intervals,
            4,
            win,
          );
          const ys = xs.map(() => 0.5);
          const yi = xs.map((): [number, number] => [0.5, 0.5]);
          const keyframes = simplifyPath(times, xs, ys, { x: intervals, y: yi });
          for (let k = 0; k < times.length; k += 1) {
            const t = times[k] as number;
            const i = keyframes.findLastIndex((f) => f.time <= t);
            const a = keyframes[i];
            const b = keyframes[i + 1] ?? a;
            if (!a || !b) throw new Error("no keyframe");
            const v = b === a ? a.x : a.x + ((b.x - a.x) * (t - a.time)) / (b.time - a.time);
            const [lo, hi] = intervals[k] as [number, number];
            expect(Math.abs(v - (xs[k] as number))).toBeLessThanOrEqual(KEYFRAME_TOLERANCE + 1e-4);
            expect(v).toBeGreaterThanOrEqual(lo - 1e-4);
            expect(v).toBeLessThanOrEqual(hi + 1e-4);
          }
        },
      ),
      { seed: 20261128, numRuns: 200 },
    );
  });
});
