import { describe, expect, it } from "vitest";
import {
  correctedGain,
  LIMITER_HEADROOM_DB,
  limiterEngages,
  loudnessFilters,
  loudnessGain,
  MAX_LOUDNESS_GAIN_DB,
  parseLoudnessMeasurement,
} from "./loudness.ts";

describe("loudness normalisation", () => {
  it("brings the measured integrated loudness to the target, the ceiling under the asked true peak", () => {
    expect(loudnessGain({ integrated: -14, truePeak: -1 }, { integrated: -31.5, truePeak: -12 })).toEqual({
      gainDb: 17.5,
      ceilingDb: -1 - LIMITER_HEADROOM_DB,
    });
    // Loud sources are brought down; the true peak defaults to -1 dBTP.
    expect(loudnessGain({ integrated: -16 }, { integrated: -8, truePeak: 0 })).toEqual({
      gainDb: -8,
      ceilingDb: -2,
    });
  });

  it("leaves a silent soundtrack alone and never applies more than the largest gain", () => {
    expect(loudnessGain({ integrated: -14 }, { integrated: null, truePeak: null })).toBeNull();
    expect(loudnessGain({ integrated: -5 }, { integrated: -69, truePeak: -50 })?.gainDb).toBe(
      MAX_LOUDNESS_GAIN_DB,
    );
  });

  it("runs a second pass only when the peaks reach the ceiling, and corrects by what is missing", () => {
    const gain = { gainDb: 10, ceilingDb: -2 };
    expect(limiterEngages(gain, { integrated: -24, truePeak: -12.5 })).toBe(false);
    expect(limiterEngages(gain, { integrated: -24, truePeak: -11 })).toBe(true);
    expect(correctedGain(gain, { integrated: -14 }, { integrated: -14.6, truePeak: -2 })).toEqual({
      gainDb: 10.6,
      ceilingDb: -2,
    });
  });

  it("applies the gain, then the limiter at 4× the sample rate", () => {
    expect(loudnessFilters({ gainDb: 3.456, ceilingDb: -2 })).toEqual([
      "volume=3.46dB",
      "aresample=192000",
      "alimiter=limit=0.7943:attack=5:release=50:level=0",
      "aresample=48000",
    ]);
  });

  it("reads the last integrated loudness and the highest true peak of an ebur128 print", () => {
    const print = [
      "frame:0    pts:0       pts_time:0",
      "lavfi.r128.I=-70.000",
      "lavfi.r128.true_peak=0.100",
      "frame:1    pts:4800    pts_time:0.1",
      "lavfi.r128.I=-23.420",
      "lavfi.r128.true_peak=0.500",
      "",
    ].join("\n");
    expect(parseLoudnessMeasurement(print)).toEqual({ integrated: -23.4, truePeak: -6 });
  });
});
