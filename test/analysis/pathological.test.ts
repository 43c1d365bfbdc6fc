import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakLongRuns, MAX_PIECE_CHARS, parseText } from "../../src/domain/analysis/nlp.ts";
import { createAnalysisRunner, textSize } from "../../src/domain/analysis/runner.ts";
import { AppError } from "../../src/errors.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/analysis/${name}.json`, import.meta.url), "utf8")) as {
    subtitles: { start: number; end: number; text: string }[];
  };

describe("breakLongRuns", () => {
  it("cuts runs longer than MAX_PIECE_CHARS and leaves ordinary text alone", () => {
    const plain = "An ordinary sentence with https://example.com/a/short/url in it.";
    expect(breakLongRuns(plain)).toEqual({ text: plain, inserted: [] });
    const long = "x".repeat(MAX_PIECE_CHARS * 2 + 3);
    const cut = breakLongRuns(`ab ${long}`);
    expect(cut.text.split(" ").map((p) => p.length)).toEqual([2, MAX_PIECE_CHARS, MAX_PIECE_CHARS, 3]);
    expect(cut.inserted).toEqual([3 + MAX_PIECE_CHARS, 3 + 2 * MAX_PIECE_CHARS + 1]);
  });

  it("never splits a surrogate pair", () => {
    const cut = breakLongRuns("a".repeat(MAX_PIECE_CHARS - 1) + "😀".repeat(3));
    for (const piece of cut.text.split(" ")) expect(piece.isWellFormed()).toBe(true);
  });

  it("keeps token offsets in the original text", () => {
    const text = `Long ${"A".repeat(1000)} ends. Then more words.`;
    const parsed = parseText(text, { pos: true, sentences: true });
    for (let i = 0; i < parsed.size; i++) {
      expect(text.slice(parsed.start[i], parsed.end[i])).toBe(parsed.value[i]);
    }
    expect(parsed.value.at(-2)).toBe("words");
  });
});

describe("analysis runner", () => {
  it("measures the text of a body", () => {
    expect(textSize({ transcript: "abc" })).toBe(3);
    expect(textSize({ subtitles: [{ text: "ab" }, { text: "c" }] })).toBe(5);
    expect(textSize(null)).toBe(0);
  });

  it("gives the same output on a thread as inline, and the function's own 400 from a thread", async () => {
    const threaded = createAnalysisRunner({ threads: 1, inlineMaxChars: 0, timeoutSec: 60, maxQueue: 4 });
    const inline = createAnalysisRunner({ threads: 1, inlineMaxChars: 1e9, timeoutSec: 60, maxQueue: 4 });
    try {
      const body = { transcript: fixture("coffee-review").subtitles, maxKeywords: 5 };
      expect(await threaded.run("summary", body)).toEqual(await inline.run("summary", body));
      const err = await threaded.run("chapters", { transcript: "some words here" }).catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 400, details: [{ path: "/duration" }] });
    } finally {
      await threaded.close();
      await inline.close();
    }
  });

  it("stops a threaded analysis over its time budget with a clear 413", async () => {
    const runner = createAnalysisRunner({ threads: 1, inlineMaxChars: 0, timeoutSec: 0.001, maxQueue: 4 });
    try {
      const err = await runner.run("summary", { transcript: "word ".repeat(50_000) }).catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err.status).toBe(413);
      expect(err.message).toMatch(/took longer than/);
    } finally {
      await runner.close();
    }
  });
});

describe("pathological transcripts over HTTP", () => {
  let t: TestApp;
  let base: string;
  let reader: string;
  beforeAll(async () => {
    t = await startTestApp();
    base = await t.listen();
    reader = (await t.createAccount({ scopes: ["read"] })).key;
  });
  afterAll(() => t.close());

  const heavy: Array<[string, string, object]> = [
    [
      "/api/v1/chapters/detect",
      "one 1,000,000-letter word",
      { duration: 10, maxChapters: 3, minChapterSec: 1 },
    ],
    ["/api/v1/clips/summarize", "one 1,000,000-letter word", {}],
  ];

  it.each(heavy)("%s with %s finishes, and /health answers while it runs", async (url, _what, extra) => {
    const order: string[] = [];
    const analysis = fetch(`${base}${url}`, {
      method: "POST",
      headers: { ...bearer(reader), "content-type": "application/json" },
      body: JSON.stringify({ transcript: "A".repeat(1_000_000), ...extra }),
    }).then(async (res) => {
      order.push("analysis");
      return { status: res.status, body: await res.json() };
    });
    // Health checks back to back from just after the analysis was sent until it answers: the
    // first must answer before the analysis does (a blocked event loop would answer it after).
    await new Promise((r) => setTimeout(r, 10));
    let settled = false;
    void analysis.finally(() => {
      settled = true;
    });
    while (!settled) {
      const health = await fetch(`${base}/api/v1/health`);
      expect(health.status).toBe(200);
      order.push("health");
    }
    const done = await analysis;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(order[0]).toBe("health");
    expect(order).toContain("analysis");
  });

  it("handles punctuation runs, hyphen chains and unbroken scripts", async () => {
    for (const transcript of [
      "!".repeat(100_000),
      "a-".repeat(50_000),
      "中文".repeat(50_000),
      "aB1.-".repeat(20_000),
    ]) {
      const res = await fetch(`${base}/api/v1/clips/summarize`, {
        method: "POST",
        headers: { ...bearer(reader), "content-type": "application/json" },
        body: JSON.stringify({ transcript }),
      });
      expect(res.status).toBe(200);
    }
  });
});
