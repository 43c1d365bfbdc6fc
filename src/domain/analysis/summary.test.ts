import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catchAppError, expectInvalid } from "../../../test/fixtures/analysis/assertions.ts";
import { makeTopicTalk } from "../../../test/fixtures/analysis/topics.ts";
import { parseText } from "./nlp.ts";
import { cleanSpoken, compressSentence, lexRank, MAX_SUMMARY_CHARS, summarizeClip } from "./summary.ts";
import type { Segment } from "./transcript.ts";

interface Fixture {
  name: string;
  transcript?: string;
  subtitles?: Segment[];
  expect: { summaryAnyOf?: string[]; keywordsAnyOf?: string[] };
}

const FIXTURES = [
  "coffee-review",
  "iceland-vlog",
  "mindset-podcast",
  "photosynthesis-lecture",
  "multilingual",
].map(
  (name) =>
    JSON.parse(
      readFileSync(new URL(`../../../test/fixtures/analysis/${name}.json`, import.meta.url), "utf8"),
    ) as Fixture,
);

function expectOneLine(summary: string): void {
  expect(summary.length).toBeGreaterThan(0);
  expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
  expect(summary).not.toMatch(/[\n\r]/);
  expect(summary).toBe(summary.trim());
  expect(summary).toMatch(/[.!?…。！？]$/u);
}

/** Lemma keys of keywords, to check deduplication by lemma. */
function lemmaKeys(keywords: string[]): string[] {
  return keywords.map((k) => {
    const p = parseText(k, { pos: true, sentences: false });
    return [...new Set(p.lemma.filter((_, i) => p.kind[i] === "word"))].sort().join(" ");
  });
}

describe("summarizeClip on the hand-checked fixtures", () => {
  for (const f of FIXTURES) {
    it(`${f.name}: one sentence-like line, relevant keywords, no lemma duplicates`, () => {
      const { summary, keywords } = summarizeClip({
        transcript: (f.transcript ?? f.subtitles) as string | Segment[],
      });
      expectOneLine(summary);
      expect(keywords.length).toBeGreaterThan(0);
      expect(keywords.length).toBeLessThanOrEqual(8);
      const keys = lemmaKeys(keywords);
      expect(new Set(keys).size).toBe(keys.length);
      if (f.expect.summaryAnyOf) {
        const lower = summary.toLowerCase();
        expect(
          f.expect.summaryAnyOf.some((w) => lower.includes(w.toLowerCase())),
          summary,
        ).toBe(true);
      }
      if (f.expect.keywordsAnyOf) {
        const lower = keywords.map((k) => k.toLowerCase());
        expect(
          f.expect.keywordsAnyOf.some((w) => lower.includes(w.toLowerCase())),
          keywords.join(", "),
        ).toBe(true);
      }
    });
  }
});

describe("summarizeClip", () => {
  const talk = makeTopicTalk({ topics: ["coffee", "hiking"], rounds: 2 });

  it("honours maxKeywords up to 20", () => {
    expect(summarizeClip({ transcript: talk.segments, maxKeywords: 3 }).keywords).toHaveLength(3);
    const many = summarizeClip({ transcript: talk.segments, maxKeywords: 20 }).keywords;
    expect(many.length).toBeGreaterThan(8);
    expect(many.length).toBeLessThanOrEqual(20);
    const keys = lemmaKeys(many);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("never lists a phrase nested in a better one", () => {
    const { keywords } = summarizeClip({ transcript: talk.segments, maxKeywords: 20 });
    const sets = lemmaKeys(keywords).map((k) => new Set(k.split(" ")));
    for (const [i, a] of sets.entries()) {
      for (const [j, b] of sets.entries()) {
        if (i === j) continue;
        expect(
          [...a].every((x) => b.has(x)),
          `${keywords[i]} ⊆ ${keywords[j]}`,
        ).toBe(false);
      }
    }
  });

  it("keeps the capital of an adjective that is part of a name (wink tags 'Soviet' ADJ)", () => {
    const transcript =
      "In 1957 the Soviet Union launched a small satellite. The launch by the Soviet Union shocked the public. " +
      "Later the Soviet Union sent a dog into orbit.";
    const { keywords } = summarizeClip({ transcript });
    expect(keywords).toContain("Soviet Union");
    expect(keywords).not.toContain("soviet Union");
  });

  it("lower-cases a common word that starts a sentence and counts it with its other uses", () => {
    const { keywords } = summarizeClip({
      transcript:
        "Engineers built the old bridge in 1890. Engineers still inspect the bridge every spring. " +
        "The engineers paint the cables when salt reaches them.",
    });
    // Before: both "Engineers" (tagged PROPN) and "engineers" were listed.
    expect(keywords.filter((k) => k.toLowerCase() === "engineers")).toEqual(["engineers"]);
  });

  it("drops a generic adjective from the front of a phrase unless it starts a name", () => {
    const named = summarizeClip({
      transcript: "Engineers in New York watched the launch. Reporters in New York wrote about the launch.",
    }).keywords;
    expect(named).toContain("New York");
    expect(named).not.toContain("York");
    const generic = summarizeClip({
      transcript: "A new camera is great. The new camera has a great lens. New cameras are fun.",
    }).keywords;
    expect(generic).toContain("camera");
    expect(generic.some((k) => /new/iu.test(k))).toBe(false);
  });

  it("compresses a long monologue without punctuation to one line of at most 160 characters", () => {
    const words = Array.from(
      { length: 600 },
      (_, i) => ["camera", "lens", "so", "the", "light", "and", "we"][i % 7],
    );
    const { summary } = summarizeClip({ transcript: words.join(" ") });
    expectOneLine(summary);
  });

  it("is deterministic", () => {
    expect(summarizeClip({ transcript: talk.segments })).toEqual(
      summarizeClip({ transcript: structuredClone(talk.segments) }),
    );
  });

  it("does not crash on non-English, emoji-only or odd text", () => {
    for (const text of [
      "🎉🎉🎉 🚀",
      "今日はコーヒーについて話します。エスプレッソはとても美味しいです。",
      "Привет! Сегодня мы говорим о кофе и о горах.",
      "a",
      "...",
      "x".repeat(5000),
    ]) {
      const { summary, keywords } = summarizeClip({ transcript: text });
      expectOneLine(summary);
      expect(Array.isArray(keywords)).toBe(true);
    }
  });

  it("validates its input", () => {
    expectInvalid(() => summarizeClip({ transcript: " \n\t " }), "/transcript");
    expectInvalid(() => summarizeClip({ transcript: [{ start: 0, end: 1, text: "" }] }), "/transcript");
    expectInvalid(
      () => summarizeClip({ transcript: [{ start: 2, end: 1, text: "a" }] }),
      "/transcript/0/end",
    );
    expectInvalid(() => summarizeClip({ transcript: "text", maxKeywords: 21 }), "/maxKeywords");
    expectInvalid(() => summarizeClip({ transcript: "text", maxKeywords: 0 }), "/maxKeywords");
    expect(catchAppError(() => summarizeClip(undefined as never)).status).toBe(400);
  });
});

describe("compressSentence", () => {
  it("cleans fillers and leading discourse markers", () => {
    expect(cleanSpoken("So, um, the camera is, you know, really light")).toBe("the camera is, really light");
    expect(compressSentence("so, um, the camera is really light").text).toBe("The camera is really light.");
  });

  it("cuts at a clause break when the sentence is too long", () => {
    const long =
      "The new mirrorless camera from Sony has a full frame sensor and a very fast autofocus system, which makes it a " +
      "great choice for wildlife photographers who need to track birds in flight, although the battery life is short";
    const { text } = compressSentence(long);
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text.startsWith("The new mirrorless camera from Sony")).toBe(true);
    expect(text.endsWith(".")).toBe(true);
  });
});

describe("lexRank", () => {
  it("ranks the sentence that shares most with the others first", () => {
    const scores = lexRank(
      [
        [0, 1],
        [0, 1, 2],
        [1, 2],
        [3, 4],
      ],
      5,
    );
    const order = [...scores.keys()].sort((a, b) => (scores[b] as number) - (scores[a] as number));
    expect(order[0]).toBe(1);
    expect(order[3]).toBe(3);
    expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });
});
