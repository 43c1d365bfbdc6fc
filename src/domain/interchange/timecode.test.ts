import { describe, expect, it } from "vitest";
import { framesToTimecode, timecodeRate, timecodeToFrames } from "./timecode.ts";

describe("timecode", () => {
  it("labels 29.97 drop-frame as SMPTE 12M does: 00 and 01 skipped each minute but every tenth", () => {
    const df = timecodeRate(29.97, true);
    expect(framesToTimecode(1799, df)).toBe("00:00:59;29");
    expect(framesToTimecode(1800, df)).toBe("00:01:00;02");
    expect(framesToTimecode(17982, df)).toBe("00:10:00;00");
    expect(framesToTimecode(107892, df)).toBe("01:00:00;00");
    expect(timecodeToFrames("01:00:00;00", df)).toBe(107892);
    expect(() => timecodeToFrames("00:01:00;00", df)).toThrow(/does not exist/);
    const ndf = timecodeRate(29.97, false);
    expect(framesToTimecode(108000, ndf)).toBe("01:00:00:00");
    expect(timecodeRate(25, true).drop).toBe(false);
    expect(framesToTimecode(4 * 60 * 60 * 25, timecodeRate(25, false))).toBe("04:00:00:00");
  });

  it("round-trips every frame of 24 hours, drop-frame and not, labels strictly increasing", () => {
    // Non-drop counting is the same arithmetic at every base rate: 29.97 NDF and 25 stand for all.
    for (const [fps, drop] of [
      [29.97, true],
      [59.94, true],
      [29.97, false],
      [25, false],
    ] as const) {
      const rate = timecodeRate(fps, drop);
      // A drop-frame day: 24 h × 6 tens of minutes × (600 × base − 9 × dropped labels).
      const frames = drop
        ? 24 * 6 * (600 * rate.base - 9 * (rate.base === 60 ? 4 : 2))
        : 24 * 3600 * rate.base;
      let previous = "";
      for (let n = 0; n < frames; n++) {
        const tc = framesToTimecode(n, rate);
        if (timecodeToFrames(tc, rate) !== n) throw new Error(`${fps}${drop ? " DF" : ""}: ${n} → ${tc}`);
        if (tc.replace(";", ":") <= previous) throw new Error(`${fps}: ${tc} after ${previous}`);
        previous = tc.replace(";", ":");
      }
      expect(framesToTimecode(frames, rate).replace(";", ":")).toBe("00:00:00:00");
    }
  }, 120_000);
});
