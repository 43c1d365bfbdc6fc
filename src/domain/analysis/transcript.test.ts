import { describe, expect, it } from "vitest";
import { catchAppError, expectInvalid } from "../../../test/fixtures/analysis/assertions.ts";
import { parseText } from "./nlp.ts";
import {
  MAX_SEGMENTS,
  readNumberOption,
  timeAt,
  toTimedText,
  toTimedUnits,
  validateSegments,
  validateTranscript,
} from "./transcript.ts";

describe("validateTranscript", () => {
  it("rejects blank strings and blank segment lists with a 400 on /transcript", () => {
    for (const blank of ["", "   ", "\n\t  \n"]) {
      const err = expectInvalid(() => validateTranscript(blank), "/transcript");
      expect(err.message).toMatch(/empty or whitespace-only/);
    }
    expectInvalid(() => validateTranscript([{ start: 0, end: 1, text: "  " }]), "/transcript");
    expectInvalid(() => validateTranscript([]), "/transcript");
  });

  it("rejects other types", () => {
    expectInvalid(() => validateTranscript(42), "/transcript");
    expectInvalid(() => validateTranscript({ text: "x" }), "/transcript");
  });

  it("names every bad field with a JSON Pointer", () => {
    const err = catchAppError(() =>
      validateTranscript([
        { start: 0, end: 1, text: "ok" },
        { start: -1, end: 2, text: "negative start" },
        { start: 3, end: 2, text: "end before start" },
        { start: 0, end: Number.NaN, text: "nan end" },
        { start: 0, end: 1, text: 5 },
        "not an object",
        { start: 0, end: 1, text: "bad speaker", speaker: 3 },
        { start: Number.POSITIVE_INFINITY, end: 1, text: "infinite" },
      ]),
    );
    expect(err.status).toBe(400);
    expect(err.details?.map((d) => d.path)).toEqual([
      "/transcript/1/start",
      "/transcript/2/end",
      "/transcript/3/end",
      "/transcript/4/text",
      "/transcript/5",
      "/transcript/6/speaker",
      "/transcript/7/start",
    ]);
  });

  it("uses the given path for subtitles", () => {
    expectInvalid(
      () =>
        validateSegments(
          [
            { start: 0, end: 1, text: "a" },
            { start: 2, end: 1, text: "b" },
          ],
          "/subtitles",
        ),
      "/subtitles/1/end",
    );
  });

  it("rejects more than 50,000 segments with a 413", () => {
    const many = Array.from({ length: MAX_SEGMENTS + 1 }, (_, i) => ({ start: i, end: i + 1, text: "a" }));
    const err = catchAppError(() => validateTranscript(many));
    expect(err.status).toBe(413);
    expect(err.code).toBe("payload_too_large");
  });

  it("accepts zero-length and overlapping segments", () => {
    const segs = validateTranscript([
      { start: 5, end: 5, text: "zero" },
      { start: 1, end: 8, text: "long" },
      { start: 2, end: 3, text: "inside" },
    ]);
    expect(Array.isArray(segs) && segs.length).toBe(3);
  });
});

describe("readNumberOption", () => {
  it("applies the fallback, bounds and integer rule", () => {
    const o = { path: "/maxKeywords", fallback: 8, min: 1, max: 20, integer: true };
    expect(readNumberOption(undefined, o)).toBe(8);
    expect(readNumberOption(5, o)).toBe(5);
    expectInvalid(() => readNumberOption(0, o), "/maxKeywords");
    expectInvalid(() => readNumberOption(21, o), "/maxKeywords");
    expectInvalid(() => readNumberOption(2.5, o), "/maxKeywords");
    expectInvalid(() => readNumberOption("3", o), "/maxKeywords");
    expectInvalid(() => readNumberOption(Number.NaN, o), "/maxKeywords");
  });
});

describe("toTimedText", () => {
  it("spreads a string over the duration by character position", () => {
    const tt = toTimedText("abcdefghij", 100);
    expect(timeAt(tt, 0)).toBe(0);
    expect(timeAt(tt, 5)).toBe(50);
    expect(timeAt(tt, 10)).toBe(100);
  });

  it("sorts segments and interpolates within each", () => {
    const tt = toTimedText(
      [
        { start: 10, end: 14, text: "second part" },
        { start: 0, end: 4, text: "first\n part" },
      ],
      20,
    );
    expect(tt.text).toBe("first part second part");
    expect(timeAt(tt, 0)).toBe(0);
    expect(timeAt(tt, 11)).toBe(10);
    expect(timeAt(tt, 22)).toBe(14);
  });

  it("cuts timed units at sentences with non-decreasing times and pause/speaker cues", () => {
    const tt = toTimedText(
      [
        { start: 0, end: 2, text: "Hello there.", speaker: "A" },
        { start: 6, end: 8, text: "New topic now.", speaker: "B" },
      ],
      10,
    );
    const units = toTimedUnits(tt, parseText(tt.text, { pos: false, sentences: true }));
    expect(units).toHaveLength(2);
    expect(units[1]?.start).toBe(6);
    expect(units[1]?.pauseBefore).toBe(4);
    expect(units[1]?.speakerChange).toBe(true);
  });

  it("splits long unpunctuated speech into several units", () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i % 17}`).join(" ");
    const tt = toTimedText(words, 60);
    const units = toTimedUnits(tt, parseText(tt.text, { pos: false, sentences: true }));
    expect(units.length).toBeGreaterThan(4);
    for (let i = 1; i < units.length; i++)
      expect(units[i]?.start).toBeGreaterThanOrEqual(units[i - 1]?.start ?? 0);
  });
});
