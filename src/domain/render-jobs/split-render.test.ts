import { describe, expect, it } from "vitest";
import { canvas, clip, colorAsset, track } from "../../../test/fixtures/render/compositions.ts";
import type { RenderRow } from "../../db/repositories/renders.ts";
import { jobIdFor } from "../../queue/flow.ts";
import { PART_RANKS, partPriorities, splitSegmentSec, splitSegments } from "./split-render.ts";

/** A render of `seconds` of colour at 25 fps with the given output options. */
function render(seconds: number, options: Partial<RenderRow["options"]> = {}) {
  return {
    composition: {
      canvas: canvas(160, 90, 25),
      tracks: [track("video", [clip({ start: 0, duration: seconds, asset: colorAsset("#123456") })])],
    },
    options: { format: "mp4", quality: "draft", ...options },
  } as unknown as Pick<RenderRow, "composition" | "options">;
}

describe("splitSegments", () => {
  it("cuts a long mp4 into segments of whole frames covering every output frame once", () => {
    const split = splitSegments(render(50), 20);
    expect(split?.ranges).toEqual([
      { startFrame: 0, endFrame: 500 },
      { startFrame: 500, endFrame: 1000 },
      { startFrame: 1000, endFrame: 1250 },
    ]);
  });

  it("cuts the requested range only, in frames of the whole composition", () => {
    const split = splitSegments(render(60, { range: { start: 10, duration: 25 } }), 10);
    expect(split?.ranges).toEqual([
      { startFrame: 250, endFrame: 500 },
      { startFrame: 500, endFrame: 750 },
      { startFrame: 750, endFrame: 875 },
    ]);
  });

  it("leaves a render in one piece when disabled, not longer than a segment, or not an mp4", () => {
    expect(splitSegments(render(50), 0)).toBeNull();
    expect(splitSegments(render(20), 20)).toBeNull();
    expect(splitSegments(render(50, { format: "webm" }), 20)).toBeNull();
    expect(splitSegments(render(50, { format: "gif" }), 20)).toBeNull();
  });
});

describe("splitSegmentSec", () => {
  it("splits a long mp4 only, unless every mp4 render is to be made as segments; 0 never splits", () => {
    expect(splitSegmentSec(render(50), 20, false)).toBe(20);
    expect(splitSegmentSec(render(20), 20, false)).toBe(0);
    expect(splitSegmentSec(render(50), 0, false)).toBe(0);
    expect(splitSegmentSec(render(20), 20, true)).toBe(20);
    expect(splitSegmentSec(render(5), 20, true)).toBe(20);
    expect(splitSegmentSec(render(5), 0, true)).toBe(0);
    expect(splitSegmentSec(render(50, { format: "webm" }), 20, true)).toBe(0);
  });
});

describe("jobIdFor", () => {
  it("is a stable UUID per key", () => {
    const id = jobIdFor("rsg_01ABC");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(jobIdFor("rsg_01ABC")).toBe(id);
    expect(jobIdFor("rsg_01ABD")).not.toBe(id);
  });
});

describe("partPriorities", () => {
  it("ranks the video segments longest first in timeline order, then the audio", () => {
    const part = (kind: "video" | "audio", index: number, startFrame: number, endFrame: number) => ({
      kind,
      index,
      startFrame,
      endFrame,
    });
    // As listed in the database: the audio row among the segments, the last segment shorter.
    const parts = [
      part("video", 0, 0, 500),
      part("audio", 0, 0, 1250),
      part("video", 2, 1000, 1250),
      part("video", 1, 500, 1000),
    ];
    expect(partPriorities(parts)).toEqual([3, 0, 1, 2]);
  });

  it("keeps the render's fair priority leading: every part of a later render ranks below", () => {
    const parts = Array.from({ length: 31 }, (_, i) => ({
      kind: "video" as const,
      index: i,
      startFrame: i,
      endFrame: i + 1,
    }));
    const first = partPriorities(parts, 0);
    const second = partPriorities(parts, -1);
    expect(Math.min(...first)).toBe(0);
    expect(Math.max(...second)).toBeLessThan(Math.min(...first));
    expect(Math.min(...second)).toBe(-PART_RANKS);
  });
});
