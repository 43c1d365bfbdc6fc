import { describe, expect, it } from "vitest";
import { summarizeChange } from "./version-summary.ts";

const clip = (id: string, start: number, extra: Record<string, unknown> = {}) => ({
  id,
  start,
  duration: 2,
  asset: { type: "color", color: "#ff0000" },
  ...extra,
});
const state = (clips: unknown[], extra: Record<string, unknown> = {}) => ({
  name: "Cut",
  projectId: null,
  canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
  tracks: [{ id: "trk_a", kind: "video", clips }],
  ...extra,
});

describe("summarizeChange", () => {
  it("names a single change", () => {
    const before = state([clip("clp_a", 0), clip("clp_b", 4)]);
    expect(summarizeChange(before, { ...before, name: "Final" })).toBe('renamed to "Final"');
    expect(summarizeChange(before, state([clip("clp_a", 0), clip("clp_b", 12.5)]))).toBe(
      "moved clip clp_b to 12.5 s",
    );
    expect(summarizeChange(before, state([clip("clp_a", 0, { duration: 3 }), clip("clp_b", 4)]))).toBe(
      "changed duration of clip clp_a",
    );
    expect(summarizeChange(before, state([clip("clp_a", 0)]))).toBe("removed clip clp_b");
    expect(summarizeChange(before, state([clip("clp_a", 0), clip("clp_b", 4), clip("clp_c", 8)]))).toBe(
      "added clip clp_c at 8 s",
    );
    expect(summarizeChange(before, { ...before, canvas: { ...before.canvas, fps: 25 } })).toBe(
      "set canvas fps to 25",
    );
    expect(
      summarizeChange(before, { ...before, audio: { loudness: { integrated: -14, truePeak: -1 } } }),
    ).toBe("set loudness to -14 LUFS, true peak -1 dBTP");
    expect(summarizeChange({ ...before, audio: { loudness: { integrated: -16 } } }, before)).toBe(
      "removed the loudness target",
    );
    expect(summarizeChange(before, before)).toBe("no changes");
    expect(summarizeChange({}, before)).toMatch(/^\d+ changes to name, project, canvas and tracks$/);
  });

  it("counts several changes by area, in one line of at most 200 characters", () => {
    const before = state([clip("clp_a", 0), clip("clp_b", 4), clip("clp_c", 8)]);
    const after = state([clip("clp_a", 1), clip("clp_b", 5), clip("clp_c", 9, { volume: 0.5 })]);
    expect(summarizeChange(before, after)).toBe("3 changes to tracks");
    expect(summarizeChange(before, { ...after, name: "x".repeat(500) })).toBe("4 changes to name and tracks");
    expect(summarizeChange(before, { ...before, name: "y".repeat(500) }).length).toBeLessThanOrEqual(200);
  });
});
