import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TranscriptSegment } from "../transcription/types.ts";
import { findCandidates, sentencesOf } from "./candidates.ts";

/** A segment whose words are spread evenly over [start, end). */
function segment(start: number, end: number, text: string): TranscriptSegment {
  const words = text.split(" ");
  const step = (end - start) / words.length;
  return {
    start,
    end,
    text,
    words: words.map((w, i) => ({
      start: start + i * step,
      end: start + (i + 1) * step - 0.02,
      text: w,
      confidence: null,
    })),
  };
}

const TALK = [
  segment(0, 4, "Welcome back to the kitchen, friends."),
  segment(5, 9, "and then we talk about the oven"),
  segment(10, 15, "Why does the espresso machine need descaling every month?"),
  segment(16, 21, "The espresso machine builds up limescale from hard water."),
  segment(22, 26, "Descaling the espresso machine takes ten minutes."),
  segment(27, 31, "so that is the oven for today"),
];

describe("auto-edit candidates", () => {
  it("cuts a segment after words that end a sentence, and keeps an unpunctuated utterance whole", () => {
    const s = sentencesOf([
      segment(0, 6, "One thing. Two things? three things"),
      segment(7, 9, "no punctuation here"),
    ]);
    expect(s.map((x) => x.text)).toEqual([
      "One thing.",
      "Two things?",
      "three things",
      "no punctuation here",
    ]);
    expect(s[1]?.start).toBeCloseTo(2, 6);
  });

  it("ranks whole-sentence windows no longer than asked, none overlapping, and says why", () => {
    const found = findCandidates({
      uploadId: "upl_1",
      segments: TALK,
      silences: [],
      shortTerm: [],
      maxDuration: 16,
      prompt: null,
    });
    expect(found.length).toBeGreaterThan(1);
    const sentences = sentencesOf(TALK);
    for (const c of found) {
      expect(c.end - c.start).toBeLessThanOrEqual(16);
      expect(sentences.some((s) => Math.abs(s.start - c.start) < 1e-3)).toBe(true);
      expect(sentences.some((s) => Math.abs(s.end - c.end) < 1e-3)).toBe(true);
    }
    for (const [i, a] of found.entries())
      for (const b of found.slice(i + 1)) expect(a.end <= b.start || b.end <= a.start).toBe(true);
    // The espresso stretch opens with a question naming the key phrase: it wins.
    expect(found[0]?.start).toBeCloseTo(10, 3);
    expect(found[0]?.reasons.join(" ")).toContain("opens with a question");
    expect(found[0]?.title.toLowerCase()).toContain("espresso");
    const dangling = found.find((c) => Math.abs(c.start - 5) < 1e-3);
    if (dangling) expect(dangling.reasons.join(" ")).toContain('starts mid-thought ("and');
  });

  it("raises windows that say the prompt's words", () => {
    const input = { uploadId: "upl_1", segments: TALK, silences: [], shortTerm: [], maxDuration: 9 };
    const plain = findCandidates({ ...input, prompt: null });
    const oven = findCandidates({ ...input, prompt: "a clip about the oven" });
    const ovenScore = (list: typeof plain) => list.find((c) => c.start >= 27 - 1e-3)?.score ?? 0;
    expect(oven[0]?.reasons.some((r) => r.includes("prompt"))).toBe(true);
    expect(ovenScore(oven)).toBeGreaterThan(ovenScore(plain) - 0.2);
    expect(oven.findIndex((c) => c.start >= 27 - 1e-3)).toBeLessThanOrEqual(
      plain.findIndex((c) => c.start >= 27 - 1e-3),
    );
  });

  it("never returns a candidate longer than maxDuration or off the sentence bounds (generated transcripts)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: 0.3, max: 12, noNaN: true }), fc.double({ min: 0, max: 3, noNaN: true })),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        fc.double({ min: 5, max: 30, noNaN: true }),
        (pieces, maxDuration) => {
          let t = 0;
          const segments = pieces.map(([len, gap], i) => {
            const s = segment(t + gap, t + gap + len, `sentence number ${i} about topic ${i % 3} here`);
            t += gap + len;
            return s;
          });
          const found = findCandidates({
            uploadId: "u",
            segments,
            silences: [],
            shortTerm: [],
            maxDuration,
            prompt: null,
          });
          for (const c of found) {
            expect(c.end - c.start).toBeLessThanOrEqual(maxDuration + 1e-3);
            expect(c.score).toBeGreaterThanOrEqual(0);
            expect(c.score).toBeLessThanOrEqual(1);
          }
          // Some sentence fits: some candidate exists.
          if (segments.some((s) => s.end - s.start <= maxDuration)) expect(found.length).toBeGreaterThan(0);
        },
      ),
      { seed: 36, numRuns: 60 },
    );
  });
});
