import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

interface Fixture {
  subtitles: { start: number; end: number; text: string; speaker?: string }[];
}
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/analysis/${name}.json`, import.meta.url), "utf8")) as Fixture;

let t: TestApp;
let reader: string;
beforeAll(async () => {
  t = await startTestApp();
  reader = (await t.createAccount({ scopes: ["read"] })).key;
});
afterAll(() => t.close());

const post = (url: string, payload: unknown, key = reader) =>
  t.app.inject({ method: "POST", url, headers: bearer(key), payload: payload as object });

describe("POST /api/v1/chapters/detect", () => {
  it("returns contiguous chapters from 0 to duration with unique 2–6 word titles, deterministically", async () => {
    const subs = fixture("mindset-podcast").subtitles;
    const duration = Math.ceil((subs.at(-1)?.end ?? 0) + 5);
    const body = { transcript: subs, duration, minChapterSec: 20 };
    const res = await post("/api/v1/chapters/detect", body);
    expect(res.statusCode, res.body).toBe(200);
    const { chapters } = res.json() as { chapters: { start: number; end: number; title: string }[] };
    expect(chapters.length).toBeGreaterThanOrEqual(1);
    expect(chapters[0]?.start).toBe(0);
    expect(chapters.at(-1)?.end).toBe(duration);
    chapters.forEach((c, i) => {
      if (i > 0) expect(c.start).toBe(chapters[i - 1]?.end);
      expect(c.end - c.start).toBeGreaterThanOrEqual(chapters.length > 1 ? 20 : 0);
      const words = c.title.split(/\s+/).length;
      expect(words).toBeGreaterThanOrEqual(2);
      expect(words).toBeLessThanOrEqual(6);
    });
    expect(new Set(chapters.map((c) => c.title.toLowerCase())).size).toBe(chapters.length);
    const again = await post("/api/v1/chapters/detect", body);
    expect(again.body).toBe(res.body);
  });

  it("spreads a plain-text transcript over duration; a short one is one chapter", async () => {
    const res = await post("/api/v1/chapters/detect", {
      transcript: "A short note about nothing much.",
      duration: 12,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().chapters).toHaveLength(1);
    expect(res.json().chapters[0]).toMatchObject({ start: 0, end: 12 });
  });

  it.each([
    [{ transcript: "   \n\t ", duration: 10 }, "/transcript"],
    [{ transcript: [{ start: 0, end: 2, text: "hi" }], duration: 0 }, "/duration"],
    [{ transcript: [{ start: 5, end: 2, text: "backwards" }], duration: 10 }, "/transcript/0/end"],
    [{ transcript: [{ start: 0, end: 20, text: "too long" }], duration: 10 }, "/duration"],
    [{ transcript: [{ start: -1, end: 2, text: "x" }], duration: 10 }, "/transcript/0/start"],
    [{ duration: 10 }, "/transcript"],
  ])("400 names the field: %j", async (body, path) => {
    const res = await post("/api/v1/chapters/detect", body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("413 beyond 50,000 segments and beyond 2 MB of JSON", async () => {
    const many = Array.from({ length: 50_001 }, (_, i) => ({ start: i, end: i + 1, text: "a" }));
    const tooMany = await post("/api/v1/chapters/detect", { transcript: many, duration: 50_002 });
    expect(tooMany.statusCode).toBe(413);
    const huge = await post("/api/v1/chapters/detect", { transcript: "word ".repeat(500_000), duration: 10 });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe("payload_too_large");
  });
});

describe("POST /api/v1/clips/summarize", () => {
  it("gives one line of at most 160 characters and ranked, deduplicated keywords", async () => {
    const res = await post("/api/v1/clips/summarize", {
      transcript: fixture("coffee-review").subtitles,
      maxKeywords: 5,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { summary, keywords } = res.json() as { summary: string; keywords: string[] };
    expect(summary.length).toBeGreaterThan(10);
    expect(summary.length).toBeLessThanOrEqual(160);
    expect(summary).not.toContain("\n");
    expect(keywords.length).toBeGreaterThan(0);
    expect(keywords.length).toBeLessThanOrEqual(5);
    expect(new Set(keywords.map((k) => k.toLowerCase())).size).toBe(keywords.length);
  });

  it("handles mixed-language text with emoji without failing", async () => {
    const res = await post("/api/v1/clips/summarize", { transcript: fixture("multilingual").subtitles });
    expect(res.statusCode).toBe(200);
    expect(res.json().summary.length).toBeLessThanOrEqual(160);
  });

  it("rejects maxKeywords above 20", async () => {
    const res = await post("/api/v1/clips/summarize", { transcript: "Some words here.", maxKeywords: 21 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toBe("/maxKeywords");
  });
});

describe("POST /api/v1/broll/suggest", () => {
  it("places non-overlapping inserts of windowSec, minGapSec apart, within the subtitles, scored 0..1", async () => {
    const subs = fixture("iceland-vlog").subtitles;
    const res = await post("/api/v1/broll/suggest", { subtitles: subs, windowSec: 3, minGapSec: 8 });
    expect(res.statusCode, res.body).toBe(200);
    const { suggestions } = res.json() as {
      suggestions: {
        start: number;
        end: number;
        score: number;
        query: string;
        reason: string;
        text: string;
      }[];
    };
    expect(suggestions.length).toBeGreaterThan(0);
    const first = Math.min(...subs.map((s) => s.start));
    const last = Math.max(...subs.map((s) => s.end));
    suggestions.forEach((s, i) => {
      expect(s.end - s.start).toBeCloseTo(3, 5);
      expect(s.start).toBeGreaterThanOrEqual(first);
      expect(s.end).toBeLessThanOrEqual(last + 1e-9);
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
      expect(s.query.length).toBeGreaterThan(0);
      expect(s.reason).toMatch(/\.$/);
      const prev = suggestions[i - 1];
      if (prev) expect(s.start - prev.end).toBeGreaterThanOrEqual(8 - 1e-9);
    });
  });

  it("needs subtitles as segments", async () => {
    const res = await post("/api/v1/broll/suggest", { subtitles: "not segments" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toMatch(/^\/subtitles/);
  });
});
