import { describe, expect, it } from "vitest";
import { compositionDuration } from "./duration.ts";
import { normalizeComposition } from "./normalize.ts";
import type { CompositionWrite } from "./schema.ts";

const doc: CompositionWrite = {
  name: "N",
  id: "cmp_ignored",
  version: 3,
  canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start: 4, duration: 1, asset: { type: "color", color: "#ff0000" } },
        { id: "clp_keep", start: 1, duration: 2, asset: { type: "color", color: "#00ff00" } },
      ],
    },
  ],
  markers: [
    { time: 5, label: "b" },
    { id: "mrk_a", time: 1, label: "a" },
  ],
};

describe("normalizeComposition", () => {
  it("assigns missing ids, keeps given ones, sorts clips and markers, drops read-only fields", () => {
    const out = normalizeComposition(doc);
    const track = out.tracks[0];
    expect(track?.id).toMatch(/^trk_[0-9A-Z]{26}$/);
    expect(track?.clips.map((c) => c.start)).toEqual([1, 4]);
    expect(track?.clips[0]?.id).toBe("clp_keep");
    expect(track?.clips[1]?.id).toMatch(/^clp_/);
    expect(out.markers?.map((m) => m.id)[0]).toBe("mrk_a");
    expect(out.markers?.[1]?.id).toMatch(/^mrk_/);
    expect(out).not.toHaveProperty("id");
    expect(out).not.toHaveProperty("version");
    expect(out.projectId).toBeNull();
    expect(doc.tracks[0]?.clips[0]?.id).toBeUndefined(); // input untouched
  });
});

describe("compositionDuration", () => {
  it("is the end of the last clip, or canvas.duration when set", () => {
    expect(compositionDuration(doc)).toBe(5);
    expect(compositionDuration({ ...doc, canvas: { ...doc.canvas, duration: 2.5 } })).toBe(2.5);
    expect(compositionDuration({ canvas: {}, tracks: [] })).toBe(0);
  });
});
