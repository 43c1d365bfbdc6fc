import { describe, expect, it } from "vitest";
import { catchAppError, expectInvalid } from "../../../test/fixtures/analysis/assertions.ts";
import { makeTopicTalk, TOPIC_SENTENCES } from "../../../test/fixtures/analysis/topics.ts";
import {
  CHAPTER_TUNING,
  type Chapter,
  chapterAlpha,
  defaultMaxChapters,
  detectChapters,
  titleWords,
} from "./chapters.ts";

function expectWellFormed(chapters: Chapter[], duration: number, minChapterSec: number): void {
  expect(chapters.length).toBeGreaterThan(0);
  expect(chapters[0]?.start).toBe(0);
  expect(chapters[chapters.length - 1]?.end).toBe(duration);
  const titles = new Set<string>();
  chapters.forEach((c, i) => {
    if (i > 0) expect(c.start).toBe(chapters[i - 1]?.end);
    expect(c.end).toBeGreaterThan(c.start);
    if (chapters.length > 1) expect(c.end - c.start).toBeGreaterThanOrEqual(minChapterSec);
    const words = titleWords(c.title);
    expect(words, c.title).toBeGreaterThanOrEqual(2);
    expect(words, c.title).toBeLessThanOrEqual(6);
    expect(c.title).not.toMatch(/\n/);
    expect(c.title.charAt(0)).toBe(c.title.charAt(0).toUpperCase());
    titles.add(c.title.toLowerCase());
  });
  expect(titles.size).toBe(chapters.length);
}

describe("detectChapters", () => {
  const talk = makeTopicTalk({ topics: ["coffee", "hiking", "finance", "gardening"], rounds: 2 });

  it("finds the topic changes of a four-topic talk", () => {
    const { chapters } = detectChapters({ transcript: talk.segments, duration: talk.duration });
    expectWellFormed(chapters, talk.duration, 30);
    expect(chapters).toHaveLength(4);
    chapters.slice(1).forEach((c, i) => {
      expect(Math.abs(c.start - (talk.topicStarts[i + 1] as number))).toBeLessThan(8.5);
    });
  });

  it("titles chapters with their own key phrases", () => {
    const { chapters } = detectChapters({ transcript: talk.segments, duration: talk.duration });
    expect(chapters[0]?.title.toLowerCase()).toMatch(/espresso|coffee|milk|barista|grinder/);
    expect(chapters[1]?.title.toLowerCase()).toMatch(/trail|mountain|summit|lake|tent|pine|hik/);
    expect(chapters[2]?.title.toLowerCase()).toMatch(
      /budget|savings|bank|account|money|card|fee|pension|salary/,
    );
    expect(chapters[3]?.title.toLowerCase()).toMatch(/soil|garden|compost|tomato|plant|leaves|greenhouse/);
  });

  it("respects maxChapters", () => {
    for (const maxChapters of [1, 2, 3]) {
      const { chapters } = detectChapters({
        transcript: talk.segments,
        duration: talk.duration,
        maxChapters,
      });
      expect(chapters.length).toBeLessThanOrEqual(maxChapters);
      expectWellFormed(chapters, talk.duration, 30);
    }
  });

  it("respects minChapterSec", () => {
    for (const minChapterSec of [10, 45, 70, 100]) {
      const { chapters } = detectChapters({
        transcript: talk.segments,
        duration: talk.duration,
        minChapterSec,
      });
      expectWellFormed(chapters, talk.duration, minChapterSec);
    }
  });

  it("returns one chapter when the media is too short to split", () => {
    const short = makeTopicTalk({ topics: ["coffee", "hiking"], segmentSec: 2 });
    const { chapters } = detectChapters({ transcript: short.segments, duration: 40, minChapterSec: 30 });
    expect(chapters).toHaveLength(1);
    expectWellFormed(chapters, 40, 30);
    const one = detectChapters({ transcript: "Just one sentence about espresso.", duration: 12 });
    expect(one.chapters).toEqual([{ start: 0, end: 12, title: expect.any(String) }]);
    expectWellFormed(one.chapters, 12, 30);
  });

  it("spreads a string transcript over the duration", () => {
    const text = ["coffee", "hiking", "finance"]
      .flatMap((t) => [...(TOPIC_SENTENCES[t] ?? []), ...(TOPIC_SENTENCES[t] ?? [])])
      .join(" ");
    const duration = 300;
    const { chapters } = detectChapters({ transcript: text, duration });
    expectWellFormed(chapters, duration, 30);
    expect(chapters).toHaveLength(3);
    expect(Math.abs((chapters[1]?.start ?? 0) - 100)).toBeLessThan(10);
    expect(Math.abs((chapters[2]?.start ?? 0) - 200)).toBeLessThan(10);
  });

  it("uses long pauses and speaker changes as boundary evidence", () => {
    const cued = makeTopicTalk({
      topics: ["coffee", "hiking", "finance"],
      rounds: 2,
      topicPauseSec: 4,
      speakers: true,
    });
    const { chapters } = detectChapters({ transcript: cued.segments, duration: cued.duration });
    expect(chapters).toHaveLength(3);
    chapters.slice(1).forEach((c, i) => {
      expect(Math.abs(c.start - (cued.topicStarts[i + 1] as number))).toBeLessThan(0.01);
    });
  });

  it("sorts out-of-order segments and accepts overlaps", () => {
    const shuffled = [...talk.segments].reverse().map((s, i) => (i % 7 === 0 ? { ...s, end: s.end + 2 } : s));
    const a = detectChapters({ transcript: shuffled, duration: talk.duration + 3 });
    expectWellFormed(a.chapters, talk.duration + 3, 30);
    expect(a.chapters).toHaveLength(4);
  });

  it("never returns an empty chapter, even with minChapterSec 0 and segments sharing start times", () => {
    const doubled = talk.segments.flatMap((s) => [s, { ...s, text: s.text.toUpperCase() }]);
    const { chapters } = detectChapters({ transcript: doubled, duration: talk.duration, minChapterSec: 0 });
    expectWellFormed(chapters, talk.duration, 0);
  });

  it("is deterministic", () => {
    const a = detectChapters({ transcript: talk.segments, duration: talk.duration });
    const b = detectChapters({ transcript: structuredClone(talk.segments), duration: talk.duration });
    expect(b).toEqual(a);
  });

  it("does not crash on non-English, mixed and emoji text", () => {
    const texts = [
      "今日はコーヒーについて話します。エスプレッソはとても美味しいです。次は山登りの話です。山の頂上からの景色は最高でした。",
      "Сегодня мы говорим о кофе. Эспрессо очень вкусный. Потом мы пошли в горы. Вид с вершины был прекрасен.",
      "Hoy hablamos de café 🎉☕. Después fuimos a la montaña 🏔️. ¡Qué vista! 🚀🚀🚀",
      "🎉🎉🎉 🚀 ☕☕ 👍",
      "مرحبا بكم في هذا الفيديو عن القهوة والجبال",
    ];
    for (const text of texts) {
      const { chapters } = detectChapters({ transcript: text, duration: 200, minChapterSec: 20 });
      expectWellFormed(chapters, 200, 20);
    }
  });

  it("keeps titles unique when chapters share a topic", () => {
    const repeated = makeTopicTalk({ topics: ["coffee", "hiking", "coffee", "hiking", "coffee"], rounds: 1 });
    const { chapters } = detectChapters({
      transcript: repeated.segments,
      duration: repeated.duration,
      minChapterSec: 20,
    });
    expectWellFormed(chapters, repeated.duration, 20);
  });

  it("validates its input with JSON Pointer paths", () => {
    const segments = talk.segments;
    expectInvalid(() => detectChapters({ transcript: "   ", duration: 10 }), "/transcript");
    expectInvalid(() => detectChapters({ transcript: "text", duration: 0 }), "/duration");
    expectInvalid(() => detectChapters({ transcript: "text", duration: -5 }), "/duration");
    expectInvalid(() => detectChapters({ transcript: "text", duration: Number.NaN }), "/duration");
    expectInvalid(() => detectChapters({ transcript: "text" } as never), "/duration");
    expectInvalid(() => detectChapters({ transcript: segments, duration: 10 }), "/duration");
    expectInvalid(() => detectChapters({ transcript: "text", duration: 10, maxChapters: 0 }), "/maxChapters");
    expectInvalid(
      () => detectChapters({ transcript: "text", duration: 10, maxChapters: 2.5 }),
      "/maxChapters",
    );
    expectInvalid(
      () => detectChapters({ transcript: "text", duration: 10, minChapterSec: -1 }),
      "/minChapterSec",
    );
    const bad = segments.map((s, i) => (i === 3 ? { ...s, end: s.start - 1 } : s));
    expectInvalid(() => detectChapters({ transcript: bad, duration: talk.duration }), "/transcript/3/end");
    expect(catchAppError(() => detectChapters(null as never)).status).toBe(400);
  });

  it("caps chapters by length by default", () => {
    expect(defaultMaxChapters(60, 30)).toBe(1);
    expect(defaultMaxChapters(600, 30)).toBe(10);
    expect(defaultMaxChapters(3 * 3600, 30)).toBe(50);
    expect(defaultMaxChapters(3 * 3600, 600)).toBe(18);
    expect(defaultMaxChapters(100, 0)).toBe(2);
  });
});

describe("chapterAlpha", () => {
  it("keeps α = 1 per term for small vocabularies and caps the total concentration α·V for large ones", () => {
    expect(chapterAlpha(100)).toBe(1);
    expect(chapterAlpha(CHAPTER_TUNING.alphaTotal)).toBe(1);
    expect(chapterAlpha(5000) * 5000).toBeCloseTo(CHAPTER_TUNING.alphaTotal, 9);
    expect(chapterAlpha(0)).toBe(1);
  });
});
