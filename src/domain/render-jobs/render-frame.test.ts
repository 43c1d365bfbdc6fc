import { describe, expect, it } from "vitest";
import type { Timeline } from "../composition/schema.ts";
import { frameWindow } from "./render-frame.ts";

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

describe("frameWindow", () => {
  it("keeps the picture clips within reach of t, drops sound, and keeps the length", () => {
    const w = frameWindow(doc, 6);
    expect(w.tracks.map((t) => t.id)).toEqual(["v", "t"]);
    expect(w.tracks[0]?.clips.map((c) => c.id)).toEqual(["a", "b"]);
    expect(w.tracks[1]?.clips.map((c) => c.id)).toEqual(["x"]);
    expect(w.tracks[1]).not.toHaveProperty("ducking");
    expect(w.canvas.duration).toBe(65);
  });

  it("gives the whole timeline when nothing visible is near t", () => {
    const onlySound: Timeline = { ...doc, tracks: [doc.tracks[1] as Timeline["tracks"][number]] };
    expect(frameWindow(onlySound, 10)).toBe(onlySound);
  });
});
