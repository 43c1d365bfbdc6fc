// The timeline's waveforms (console/src/waveform.ts): peaks resampled per zoom keep every loud
// moment, and a clip's path shows the part of the source it plays (in-point, speed, length).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  columnsPerSecond,
  levelHeight,
  memoisedColumns,
  resamplePeaks,
  waveformShape,
} from "../../console/src/waveform.ts";

/** The x coordinates of the path's upper envelope whose height is at least `min` (0..1). */
function loudXs(path: string, min: number): number[] {
  const points = path
    .slice(1, path.indexOf("Z"))
    .split("L")
    .map((p) => p.split(" ").map(Number) as [number, number]);
  const upper = points.slice(0, points.length / 2);
  return upper.filter(([, y]) => (50 - y) / 50 >= min - 1e-3).map(([x]) => x);
}

describe("waveform", () => {
  it("draws levels on a decibel scale from -60 dBFS (nothing) to 0 dBFS (full height)", () => {
    expect(levelHeight(1)).toBe(1);
    expect(levelHeight(0)).toBe(0);
    expect(levelHeight(0.001)).toBeCloseTo(0, 6);
    expect(levelHeight(10 ** (-30 / 20))).toBeCloseTo(0.5, 6);
    expect(levelHeight(0.0001)).toBe(0);
  });

  it("resamples by the maximum of each column, so a short peak survives zooming out", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 0, max: 4 }),
        (values, halvings) => {
          const peaks = { rate: 16, values };
          const cps = 16 / 2 ** halvings;
          const columns = resamplePeaks(peaks, cps);
          expect(columns.length).toBe(Math.ceil(values.length / 2 ** halvings));
          expect(Math.max(...columns)).toBeCloseTo(Math.max(...values), 5);
          for (const [i, v] of values.entries())
            expect(columns[Math.floor(i / 2 ** halvings)]).toBeGreaterThanOrEqual(Math.fround(v));
        },
      ),
      { seed: 20261125, numRuns: 200 },
    );
  });

  it("uses about one column per two pixels, never finer than the peaks, at most 4000 per clip", () => {
    const peaks = { rate: 20, values: [] };
    expect(columnsPerSecond(peaks, 320, 1, 10)).toBe(20);
    expect(columnsPerSecond(peaks, 20, 1, 10)).toBe(10);
    expect(columnsPerSecond(peaks, 5, 1, 10)).toBe(2.5);
    // At speed 2 a timeline pixel covers twice the source.
    expect(columnsPerSecond(peaks, 20, 2, 10)).toBe(5);
    // A 10-minute clip at the widest zoom: capped.
    expect(600 * columnsPerSecond(peaks, 320, 1, 600)).toBeLessThanOrEqual(4000);
  });

  it("shows the source from the in-point at the clip's speed: a burst lands where it plays", () => {
    // Quiet (-50 dBFS) except a full-scale burst from 2.0 to 2.5 s of the source.
    const rate = 20;
    const values = Array.from({ length: 100 }, (_, i) => (i >= 40 && i < 50 ? 1 : 10 ** (-50 / 20)));
    const peaks = { rate, values };
    // Trim 1.5 s, speed 2, 1 s long: source 1.5–3.5 s, the burst at timeline 0.25–0.5 s.
    const cps = columnsPerSecond(peaks, 320, 2, 2);
    const shape = waveformShape(memoisedColumns("upl_burst", peaks, cps), cps, {
      trim: 1.5,
      speed: 2,
      duration: 1,
    });
    expect(shape.width).toBeCloseTo(2 * cps, 6);
    const xs = loudXs(shape.path, 0.99);
    const seconds = xs.map((x) => x / cps / 2); // path x → source seconds from the in-point → timeline seconds
    expect(Math.min(...seconds)).toBeCloseTo(0.25, 2);
    expect(Math.max(...seconds)).toBeCloseTo(0.5, 2);
    for (const x of loudXs(shape.path, 0)) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(shape.width + 1e-6);
    }
  });

  it("draws nothing for silence, and a clip longer than its source goes flat after the end", () => {
    const silent = { rate: 20, values: new Array(40).fill(0) };
    expect(waveformShape(resamplePeaks(silent, 20), 20, { trim: 0, speed: 1, duration: 2 }).path).toBe("");
    const loud = { rate: 20, values: new Array(40).fill(1) };
    const shape = waveformShape(resamplePeaks(loud, 20), 20, { trim: 1, speed: 1, duration: 3 });
    expect(shape.width).toBe(60);
    expect(Math.max(...loudXs(shape.path, 0.99))).toBeCloseTo(20, 6); // the source ends 1 s in
  });
});
