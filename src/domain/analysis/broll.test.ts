import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catchAppError, expectInvalid } from "../../../test/fixtures/analysis/assertions.ts";
import { makeTopicTalk } from "../../../test/fixtures/analysis/topics.ts";
import { type BrollSuggestion, suggestBroll } from "./broll.ts";
import type { Segment } from "./transcript.ts";

interface Fixture {
  name: string;
  subtitles: Segment[];
  expect: { brollMin: number; brollMax: number; brollKeywordsAnyOf?: string[] };
}

const load = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../test/fixtures/analysis/${name}.json`, import.meta.url), "utf8"),
  ) as Fixture;
const FIXTURES = ["coffee-review", "iceland-vlog", "mindset-podcast", "multilingual"].map(load);

function expectValid(
  suggestions: BrollSuggestion[],
  subtitles: Segment[],
  windowSec: number,
  minGapSec: number,
): void {
  const spanStart = Math.min(...subtitles.map((s) => s.start));
  const spanEnd = Math.max(...subtitles.map((s) => s.end));
  suggestions.forEach((s, i) => {
    expect(s.end - s.start).toBeCloseTo(windowSec, 6);
    expect(s.start).toBeGreaterThanOrEqual(spanStart);
    expect(s.end).toBeLessThanOrEqual(spanEnd + 1e-6);
    expect(s.score).toBeGreaterThanOrEqual(0);
    expect(s.score).toBeLessThanOrEqual(1);
    expect(s.text.trim()).not.toBe("");
    expect(s.keywords.length).toBeGreaterThan(0);
    expect(s.query.trim()).not.toBe("");
    expect(s.reason).toMatch(/^[A-Z].*\.$/u);
    expect(s.reason.match(/[.!?](\s|$)/gu)?.length).toBe(1);
    if (i > 0) {
      const prev = suggestions[i - 1] as BrollSuggestion;
      expect(s.start).toBeGreaterThanOrEqual(prev.end + minGapSec - 1e-6);
    }
  });
}

describe("suggestBroll on the hand-checked fixtures", () => {
  for (const f of FIXTURES) {
    it(`${f.name}: ${f.expect.brollMin}..${f.expect.brollMax} valid inserts on visual moments`, () => {
      const { suggestions } = suggestBroll({ subtitles: f.subtitles });
      expectValid(suggestions, f.subtitles, 4, 10);
      expect(suggestions.length).toBeGreaterThanOrEqual(f.expect.brollMin);
      expect(suggestions.length).toBeLessThanOrEqual(f.expect.brollMax);
      if (f.expect.brollKeywordsAnyOf) {
        const expected = new Set(f.expect.brollKeywordsAnyOf.map((k) => k.toLowerCase()));
        const hits = suggestions.filter((s) => s.keywords.some((k) => expected.has(k.toLowerCase())));
        // Most inserts sit on something a hand-checker listed as filmable.
        expect(hits.length, JSON.stringify(suggestions.map((s) => s.keywords))).toBeGreaterThanOrEqual(
          Math.ceil(suggestions.length / 2),
        );
      }
    });
  }

  it("suggests more for a visual travel vlog than for an abstract monologue", () => {
    const visual = suggestBroll({ subtitles: load("iceland-vlog").subtitles }).suggestions;
    const abstract = suggestBroll({ subtitles: load("mindset-podcast").subtitles }).suggestions;
    expect(visual.length).toBeGreaterThan(abstract.length);
  });
});

describe("suggestBroll", () => {
  const talk = makeTopicTalk({ topics: ["coffee", "hiking", "finance", "gardening"], rounds: 2 });

  it("keeps windows, gaps, span and scores valid for other window and gap sizes", () => {
    for (const [windowSec, minGapSec] of [
      [4, 10],
      [2.5, 0],
      [8, 30],
      [1, 3.3],
    ] as const) {
      const { suggestions } = suggestBroll({ subtitles: talk.segments, windowSec, minGapSec });
      expect(suggestions.length).toBeGreaterThan(0);
      expectValid(suggestions, talk.segments, windowSec, minGapSec);
    }
  });

  it("returns nothing when the subtitles span less than one window", () => {
    const subtitles = [{ start: 10, end: 12, text: "The espresso machine and the grinder on the counter." }];
    expect(suggestBroll({ subtitles }).suggestions).toEqual([]);
  });

  it("stays inside a span that does not start at 0 and handles overlapping, unsorted segments", () => {
    const shifted = talk.segments.map((s) => ({ ...s, start: s.start + 100, end: s.end + 100.5 })).reverse();
    const { suggestions } = suggestBroll({ subtitles: shifted });
    expect(suggestions.length).toBeGreaterThan(0);
    expectValid(suggestions, shifted, 4, 10);
  });

  it("is deterministic", () => {
    expect(suggestBroll({ subtitles: talk.segments })).toEqual(
      suggestBroll({ subtitles: structuredClone(talk.segments) }),
    );
  });

  it("does not crash on emoji-only and non-English subtitles", () => {
    const subtitles = [
      { start: 0, end: 3, text: "🎉🎉🎉" },
      { start: 3, end: 6, text: "🚀 ☕ 🏔️" },
      { start: 6, end: 12, text: "東京タワーと富士山の写真を撮りました。" },
      { start: 12, end: 20, text: "Мы поехали в Москву и видели Красную площадь." },
    ];
    const { suggestions } = suggestBroll({ subtitles });
    expectValid(suggestions, subtitles, 4, 10);
  });

  it("validates its input", () => {
    expectInvalid(() => suggestBroll({ subtitles: [] }), "/subtitles");
    expectInvalid(() => suggestBroll({ subtitles: "text" as never }), "/subtitles");
    expectInvalid(() => suggestBroll({ subtitles: [{ start: 0, end: 1, text: "   " }] }), "/subtitles");
    expectInvalid(
      () =>
        suggestBroll({
          subtitles: [
            { start: 0, end: 1, text: "a" },
            { start: 1, end: 2, text: "b" },
            { start: -2, end: 2, text: "c" },
          ],
        }),
      "/subtitles/2/start",
    );
    expectInvalid(() => suggestBroll({ subtitles: talk.segments, windowSec: 0 }), "/windowSec");
    expectInvalid(() => suggestBroll({ subtitles: talk.segments, windowSec: 61 }), "/windowSec");
    expectInvalid(() => suggestBroll({ subtitles: talk.segments, minGapSec: -1 }), "/minGapSec");
    expectInvalid(
      () => suggestBroll({ subtitles: talk.segments, minGapSec: Number.POSITIVE_INFINITY }),
      "/minGapSec",
    );
    expect(catchAppError(() => suggestBroll(null as never)).status).toBe(400);
  });
});

describe("suggestBroll keywords at sentence starts", () => {
  it("does not take a capitalised common word that starts a sentence for a name", () => {
    const subtitles = [
      { start: 0, end: 4.2, text: "Welcome back to the channel, today we are roasting coffee at home." },
      { start: 4.2, end: 9.8, text: "First, the green beans: I use a washed Ethiopian from a small farm." },
      { start: 9.8, end: 15.1, text: "The popcorn machine gets to first crack in about four minutes." },
      { start: 15.1, end: 21.0, text: "Then the beans cool in a metal colander for two minutes." },
      { start: 21.0, end: 27.4, text: "Rest them in a glass jar overnight before you grind them." },
    ];
    for (const minGapSec of [10, 5]) {
      const { suggestions } = suggestBroll({ subtitles, minGapSec });
      const keywords = suggestions.flatMap((s) => s.keywords);
      expect(keywords).toContain("glass jar");
      expect(keywords).not.toContain("Rest");
      expect(keywords).not.toContain("Welcome");
      for (const s of suggestions) expect(s.query).not.toMatch(/^(?:Rest|Welcome)\b/u);
    }
    // A name inside a sentence keeps its capital.
    expect(suggestBroll({ subtitles }).suggestions.flatMap((s) => s.keywords)).toContain("Ethiopian");
  });
});
