import { describe, expect, it } from "vitest";
import { makeTopicTalk } from "../../../test/fixtures/analysis/topics.ts";
import { pk, windowDiff } from "./segmentation-metrics.ts";
import { segmentAtoms } from "./segmenter.ts";
import { textTiling } from "./texttiling.ts";
import { buildTimedDocument } from "./timed-document.ts";

describe("Pk and WindowDiff", () => {
  it("are 0 for a perfect hypothesis", () => {
    expect(pk(20, [5, 12], [5, 12])).toBe(0);
    expect(windowDiff(20, [5, 12], [5, 12])).toBe(0);
  });

  it("count disagreements over probes of width k", () => {
    // n = 10, reference boundary at 5, none hypothesised, k = 2: probes (3,5) and (4,6) straddle it.
    expect(pk(10, [5], [], 2)).toBeCloseTo(2 / 8, 10);
    expect(windowDiff(10, [5], [], 2)).toBeCloseTo(2 / 8, 10);
    // A near miss costs less than a miss.
    expect(pk(12, [5], [6], 3)).toBeCloseTo(2 / 9, 10);
    expect(pk(12, [5], [], 3)).toBeCloseTo(3 / 9, 10);
  });

  it("WindowDiff penalises extra boundaries that Pk can miss", () => {
    const ref = [10];
    const hyp = [10, 11];
    expect(windowDiff(30, ref, hyp, 5)).toBeGreaterThan(pk(30, ref, hyp, 5));
  });

  it("use half the mean reference segment length by default", () => {
    // n = 12, 3 segments of 4: k = 2.
    expect(pk(12, [4, 8], [])).toBeCloseTo(pk(12, [4, 8], [], 2), 10);
  });
});

describe("segmentAtoms", () => {
  const atoms = (groups: number[][], secondsEach = 10) =>
    groups.map((terms, i) => ({ terms, start: i * secondsEach, cue: 0 }));

  it("splits where the vocabulary changes", () => {
    const a = [0, 1, 2, 0, 1, 2];
    const b = [5, 6, 7, 5, 6, 7];
    const bounds = segmentAtoms(atoms([a, a, a, a, b, b, b, b]), {
      duration: 80,
      minSegmentSec: 10,
      maxSegments: 5,
      vocabularySize: 8,
      alpha: 1,
    });
    expect(bounds).toEqual([4]);
  });

  it("honours the least segment length and the most segments", () => {
    const groups = [
      [0, 0, 0],
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, 3],
      [4, 4, 4],
      [5, 5, 5],
    ];
    const free = segmentAtoms(atoms(groups), {
      duration: 60,
      minSegmentSec: 0,
      maxSegments: 10,
      vocabularySize: 6,
      alpha: 1,
      priorWeight: 0.1,
    });
    expect(free.length).toBeGreaterThan(2);
    const capped = segmentAtoms(atoms(groups), {
      duration: 60,
      minSegmentSec: 0,
      maxSegments: 2,
      vocabularySize: 6,
      alpha: 1,
      priorWeight: 0.1,
    });
    expect(capped.length).toBeLessThanOrEqual(1);
    const long = segmentAtoms(atoms(groups), {
      duration: 60,
      minSegmentSec: 25,
      maxSegments: 10,
      vocabularySize: 6,
      alpha: 1,
      priorWeight: 0.1,
    });
    const starts = [0, ...long.map((b) => b * 10), 60];
    for (let i = 1; i < starts.length; i++)
      expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(25);
  });

  it("moves a boundary to a timing cue", () => {
    const a = [0, 1, 2];
    const mixed = [0, 1, 5, 6];
    const b = [5, 6, 7];
    const at = atoms([a, a, a, mixed, mixed, b, b, b]);
    (at[4] as { cue: number }).cue = 20;
    const bounds = segmentAtoms(at, {
      duration: 80,
      minSegmentSec: 10,
      maxSegments: 2,
      vocabularySize: 8,
      alpha: 1,
    });
    expect(bounds).toEqual([4]);
  });
});

describe("textTiling", () => {
  it("finds a boundary near the change of topic of a two-topic text", () => {
    const talk = makeTopicTalk({ topics: ["coffee", "finance"], rounds: 3 });
    const doc = buildTimedDocument(talk.segments, talk.duration);
    const breaks = doc.units.slice(1).map((u) => u.tokenStart);
    const chosen = textTiling(doc.parsed, doc.terms, breaks);
    expect(chosen.length).toBeGreaterThan(0);
    const changeToken = doc.units[24]?.tokenStart as number;
    const nearest = Math.min(...chosen.map((t) => Math.abs(t - changeToken)));
    expect(nearest).toBeLessThan(60);
    for (const t of chosen) expect(breaks).toContain(t);
  });

  it("returns no boundary for text shorter than two pseudo-sentences", () => {
    const doc = buildTimedDocument("A short clip about espresso.", 10);
    expect(textTiling(doc.parsed, doc.terms, [])).toEqual([]);
  });
});
