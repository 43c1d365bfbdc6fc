import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canvas, clip, imageAsset, track, videoAsset } from "../../../test/fixtures/render/compositions.ts";
import type { KeyframeIndex } from "../../media/keyframes.ts";
import type { Timeline } from "../composition/schema.ts";
import { chooseBoundaries, prerollFrames, startPrerollFrames } from "./keyframes.ts";
import { layoutTracks } from "./plan.ts";
import { planSegments, planSplitSegments } from "./segments.ts";
import { toFrameRate } from "./timeline.ts";
import { SEEK_PREROLL_SEC } from "./video-branch.ts";

/** Keyframes every `gop` seconds over `seconds` of a `fps` source. */
const every = (gop: number, seconds: number, fps = 25): KeyframeIndex => ({
  times: Array.from({ length: Math.floor(seconds / gop) + 1 }, (_, i) => i * gop),
  fps,
});

/** One 60 s video clip of `upl_a` (trim 0.3 s) over a 25 fps canvas, a still above it. */
const oneClip = (): Timeline => ({
  canvas: canvas(320, 180, 25),
  tracks: [
    track("video", [clip({ start: 0, duration: 60, trim: 0.3, asset: videoAsset("upl_a") })]),
    track("video", [clip({ start: 0, duration: 60, asset: imageAsset("upl_logo") })]),
  ],
});

describe("prerollFrames", () => {
  it("counts the source frames from the keyframe the preroll's seek lands on", () => {
    const kf = every(10, 60);
    expect(prerollFrames(kf, 12, 1)).toBeCloseTo(50); // seeks to 11: keyframe 10
    expect(prerollFrames(kf, 11, 1)).toBeCloseTo(25); // seeks to 10, a keyframe: the preroll only
    expect(prerollFrames(kf, 10, 1)).toBeCloseTo(250); // seeks to 9: keyframe 0
    expect(prerollFrames(kf, 0.5, 1)).toBeCloseTo(12.5); // seeks to the file's start
  });

  it("seeking to keyframes: nothing on a keyframe (or a quarter frame before one), the GOP's head else", () => {
    const kf = every(10, 60);
    const outputFrame = 1 / 25;
    expect(prerollFrames(kf, 10, 1, outputFrame)).toBe(0);
    expect(prerollFrames(kf, 10 - 0.009, 1, outputFrame)).toBe(0); // keyframe 10 is shown first
    expect(prerollFrames(kf, 10 - 0.011, 1, outputFrame)).toBeCloseTo(9.989 * 25); // frame 9.96 shows: keyframe 0
    expect(prerollFrames(kf, 12, 1, outputFrame)).toBeCloseTo(50); // keyframe 10 is within the preroll
    expect(prerollFrames(kf, 11, 1, outputFrame)).toBeCloseTo(25);
  });
});

describe("chooseBoundaries", () => {
  it("keeps every boundary within a quarter segment of its nominal frame, the segments long enough, the least cost", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 2, max: 30 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (length, count, seed) => {
          const total = (count - 1) * length + 1 + (seed % length);
          const cost = (f: number) => ((f * 2654435761 + seed) >>> 0) % 97;
          const bounds = chooseBoundaries(total, length, count, cost);
          const slack = Math.floor(length / 4);
          const starts = [0, ...bounds, total];
          const minLen = Math.min(length - 2 * slack, total - (count - 1) * length);
          return (
            bounds.length === count - 1 &&
            bounds.every((b, i) => {
              const nominal = (i + 1) * length;
              const inWindow = Math.abs(b - nominal) <= slack;
              let cheapest = true;
              for (let f = nominal - slack; f <= Math.min(nominal + slack, total - minLen); f += 1) {
                if (cost(f) < cost(b)) cheapest = false;
              }
              return inWindow && cheapest;
            }) &&
            starts.every((s, i) => i === 0 || s - (starts[i - 1] as number) >= minLen)
          );
        },
      ),
      { seed: 20261125, numRuns: 200 },
    );
  });

  it("keeps a boundary nominal when a frame of its window has no known cost, and ties nearest the nominal frame", () => {
    expect(chooseBoundaries(100, 40, 3, (f) => (f === 45 ? Number.NaN : 1))).toEqual([40, 80]);
    expect(chooseBoundaries(100, 40, 3, () => 0)).toEqual([40, 80]);
  });
});

describe("planSplitSegments", () => {
  const rate = toFrameRate(25);
  const ranges = (keyframes?: Map<string, KeyframeIndex>, range?: { start: number; duration: number }) =>
    planSplitSegments(
      { composition: oneClip(), output: { format: "mp4", ...(range ? { range } : {}) } },
      10,
      keyframes,
    );

  it("equals planSegments without keyframe data (and in a range of the composition)", () => {
    expect(ranges()).toEqual(planSegments(1500, rate, 10));
    expect(ranges(new Map())).toEqual(planSegments(1500, rate, 10));
    const shifted = planSegments(25 * 35, rate, 10).map((r) => ({
      startFrame: r.startFrame + 250,
      endFrame: r.endFrame + 250,
    }));
    expect(ranges(undefined, { start: 10, duration: 35 })).toEqual(shifted);
  });

  it("moves each boundary to where the seek lands on a keyframe, covering the render exactly", () => {
    // Keyframes every 4 s: a segment starting at output t reads source t + 0.3 and seeks to the
    // keyframe before it; starting on one, t = 4k - 0.3 (frames 92.5 + 100k), costs nothing.
    const result = ranges(new Map([["upl_a", every(4, 60)]]));
    expect(result[0]?.startFrame).toBe(0);
    expect(result.at(-1)?.endFrame).toBe(1500);
    result.forEach((r, i) => {
      if (i > 0) expect(r.startFrame).toBe(result[i - 1]?.endFrame);
    });
    const bounds = result.slice(1).map((r) => r.startFrame);
    bounds.forEach((b, i) => {
      expect(Math.abs(b - (i + 1) * 250)).toBeLessThanOrEqual(62);
    });
    const tracks = layoutTracks(oneClip(), rate, 1500, []);
    const kf = new Map([["upl_a", every(4, 60)]]);
    for (const b of bounds) {
      // At most half a frame: nothing of the group of pictures before it.
      expect(startPrerollFrames(tracks, b, rate, kf, SEEK_PREROLL_SEC)).toBeLessThan(0.5 + 1e-6);
    }
    // A nominal boundary costs more: at 10 s (source 10.3 s) the seek lands on keyframe 8.
    expect(startPrerollFrames(tracks, 250, rate, kf, SEEK_PREROLL_SEC)).toBeCloseTo(2.3 * 25);
  });

  it("counts only the clip played across a transition, not the one starting in it", () => {
    const composition: Timeline = {
      canvas: canvas(320, 180, 25),
      tracks: [
        track("video", [
          clip({ start: 0, duration: 30, asset: videoAsset("upl_a") }),
          clip({
            start: 30,
            duration: 30,
            asset: videoAsset("upl_b"),
            transition: { type: "fade", duration: 2 },
          }),
        ]),
      ],
    };
    const tracks = layoutTracks(composition, rate, 1500, []);
    const kf = new Map([["upl_a", every(10, 60)]]);
    // At 30 s the segment starts at the fade's start (29 s): clip a at source 29, seek 28, keyframe 20.
    expect(startPrerollFrames(tracks, 750, rate, kf, SEEK_PREROLL_SEC)).toBeCloseTo(9 * 25);
    // Inside clip b alone, its source has no index: unknown.
    expect(startPrerollFrames(tracks, 1000, rate, kf, SEEK_PREROLL_SEC)).toBeNaN();
  });
});
