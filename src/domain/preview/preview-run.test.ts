import { describe, expect, it } from "vitest";
import type { Timeline } from "../composition/schema.ts";
import { previewWindow } from "./preview-run.ts";

const clip = (id: string, start: number, duration: number) => ({
  id,
  start,
  duration,
  asset: { type: "color" as const, color: "#ff0000" },
});

const doc: Timeline = {
  canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
  tracks: [
    { id: "v", kind: "video", clips: [clip("a", 0, 5), clip("b", 5, 5), clip("c", 30, 5), clip("d", 60, 5)] },
    { id: "m", kind: "audio", clips: [clip("s", 0, 65)] },
    { id: "t", kind: "video", ducking: { under: ["m"] }, clips: [clip("x", 0, 65)] },
  ],
};

describe("previewWindow", () => {
  it("keeps the picture clips within reach of t, drops sound, and keeps the length", () => {
    const w = previewWindow(doc, 6, 6, { sound: false });
    expect(w.tracks.map((t) => t.id)).toEqual(["v", "t"]);
    expect(w.tracks[0]?.clips.map((c) => c.id)).toEqual(["a", "b"]);
    expect(w.tracks[1]?.clips.map((c) => c.id)).toEqual(["x"]);
    expect(w.tracks[1]).not.toHaveProperty("ducking");
    expect(w.canvas.duration).toBe(65);
  });

  it("gives the whole timeline when nothing visible is near t", () => {
    const onlySound: Timeline = { ...doc, tracks: [doc.tracks[1] as Timeline["tracks"][number]] };
    expect(previewWindow(onlySound, 10, 10, { sound: false })).toBe(onlySound);
    expect(previewWindow(onlySound, 10, 15, { sound: true })).toBe(onlySound);
  });

  it("keeps the sound and its ducking for a played window, and the clips near either end", () => {
    const w = previewWindow(doc, 18, 22, { sound: true });
    expect(w.tracks.map((t) => t.id)).toEqual(["v", "m", "t"]);
    expect(w.tracks[0]?.clips.map((c) => c.id)).toEqual(["b", "c"]);
    expect(w.tracks[2]).toHaveProperty("ducking", { under: ["m"] });
    expect(previewWindow(doc, 40, 50, { sound: true }).tracks[0]?.clips.map((c) => c.id)).toEqual(["c", "d"]);
  });
});
