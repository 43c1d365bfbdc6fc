import { describe, expect, it } from "vitest";
import { clip, colorAsset, track } from "../../../test/fixtures/render/compositions.ts";
import {
  clipSegmentsToWindow,
  frameToSeconds,
  layoutTrack,
  planTransition,
  secondsToFrame,
  snapClip,
  streamEnd,
  streamStart,
  toFrameRate,
  widenWindow,
} from "./timeline.ts";
import type { RenderWarning } from "./types.ts";

const r25 = toFrameRate(25);

describe("frame rates and snapping", () => {
  it("maps NTSC rates to exact rationals", () => {
    expect(toFrameRate(29.97)).toEqual({ num: 30000, den: 1001 });
    expect(toFrameRate(23.976)).toEqual({ num: 24000, den: 1001 });
    expect(toFrameRate(59.94)).toEqual({ num: 60000, den: 1001 });
    expect(toFrameRate(25)).toEqual({ num: 25, den: 1 });
    expect(toFrameRate(12.5)).toEqual({ num: 25, den: 2 });
  });

  it("snaps times to the nearest frame and back", () => {
    expect(secondsToFrame(1.02, r25)).toBe(26);
    expect(secondsToFrame(1.01, r25)).toBe(25);
    expect(frameToSeconds(30, toFrameRate(29.97))).toBeCloseTo(1.001, 6);
    expect(secondsToFrame(10, toFrameRate(29.97))).toBe(300);
  });

  it("keeps adjacent clips adjacent after snapping (start and end rounded separately)", () => {
    const a = snapClip({ start: 0, duration: 1.013 }, r25, 1000);
    const b = snapClip({ start: 1.013, duration: 1 }, r25, 1000);
    expect(a.endFrame).toBe(b.startFrame);
  });

  it("splits a transition into whole frames centred on the cut", () => {
    expect(planTransition("fade", 0.4, r25)).toEqual({ type: "fade", frames: 10, before: 5, after: 5 });
    expect(planTransition("fade", 0.44, r25)).toEqual({ type: "fade", frames: 11, before: 5, after: 6 });
    expect(planTransition("fade", 0.01, r25).frames).toBe(2);
  });
});

describe("layoutTrack", () => {
  it("tiles the track with clips and blanks; a transition adds handles on both sides of the cut", () => {
    const warnings: RenderWarning[] = [];
    const t = track("video", [
      clip({ start: 0, duration: 2, asset: colorAsset("#ff0000") }),
      clip({
        start: 2,
        duration: 2,
        asset: colorAsset("#00ff00"),
        transition: { type: "wipeleft", duration: 0.4 },
      }),
      clip({ start: 5, duration: 1, asset: colorAsset("#0000ff") }),
    ]);
    const segs = layoutTrack(t, r25, 175, warnings);
    expect(segs.map((s) => [s.kind, s.startFrame, s.endFrame, s.lead, s.tail])).toEqual([
      ["clip", 0, 50, 0, 5],
      ["clip", 50, 100, 5, 0],
      ["blank", 100, 125, 0, 0],
      ["clip", 125, 150, 0, 0],
      ["blank", 150, 175, 0, 0],
    ]);
    // The transition window [45, 55) is centred on the cut at frame 50 and the timeline keeps its length.
    const second = segs[1];
    expect(second && [streamStart(second), second.startFrame + (second.transition?.after ?? 0)]).toEqual([
      45, 55,
    ]);
    expect(segs.at(-1)?.endFrame).toBe(175);
    expect(warnings).toEqual([]);
  });

  it("drops a transition into a track's first clip at 0 with a warning", () => {
    const warnings: RenderWarning[] = [];
    const c = clip({
      start: 0,
      duration: 1,
      asset: colorAsset("#ff0000"),
      transition: { type: "fade", duration: 0.4 },
    });
    const segs = layoutTrack(track("video", [c]), r25, 25, warnings);
    expect(segs[0]?.lead).toBe(0);
    expect(warnings).toEqual([expect.objectContaining({ code: "TRANSITION_IGNORED", clipId: c.id })]);
  });

  it("treats text clips as transparent blanks and merges them with gaps", () => {
    const segs = layoutTrack(
      track("video", [
        clip({
          start: 1,
          duration: 1,
          asset: { type: "text", text: "x", style: { family: "sans", size: 10 } },
        }),
      ]),
      r25,
      75,
      [],
    );
    expect(segs).toEqual([expect.objectContaining({ kind: "blank", startFrame: 0, endFrame: 75 })]);
  });

  it("cuts clips at the composition end", () => {
    const segs = layoutTrack(
      track("video", [clip({ start: 0, duration: 5, asset: colorAsset("#ff0000") })]),
      r25,
      50,
      [],
    );
    expect(segs.map((s) => [s.startFrame, s.endFrame])).toEqual([[0, 50]]);
  });
});

describe("render windows", () => {
  const t = track("video", [
    clip({ start: 0, duration: 2, asset: colorAsset("#ff0000") }),
    clip({
      start: 2,
      duration: 2,
      asset: colorAsset("#00ff00"),
      transition: { type: "fade", duration: 0.4 },
    }),
  ]);
  const segs = layoutTrack(t, r25, 100, []);

  it("widens a window that would cut through a transition", () => {
    expect(widenWindow([segs], 48, 60)).toEqual({ start: 45, end: 60 });
    expect(widenWindow([segs], 10, 52)).toEqual({ start: 10, end: 55 });
    expect(widenWindow([segs], 60, 70)).toEqual({ start: 60, end: 70 });
  });

  it("clips segments to the window, dropping transitions that fall outside", () => {
    const cut = clipSegmentsToWindow(segs, 60, 70);
    expect(
      cut.map((s) => [s.startFrame, s.endFrame, s.lead, s.tail, s.origin, Boolean(s.transition)]),
    ).toEqual([[60, 70, 0, 0, 50, false]]);
    const whole = clipSegmentsToWindow(segs, 45, 60);
    expect(whole.map((s) => [streamStart(s), streamEnd(s)])).toEqual([
      [45, 55],
      [45, 60],
    ]);
  });
});
