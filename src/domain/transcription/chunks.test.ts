import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { placeChunkSegments, planChunks } from "./chunks.ts";
import type { TranscriptSegment } from "./types.ts";

const seg = (start: number, end: number, text: string): TranscriptSegment => ({
  start,
  end,
  text,
  words: [{ start, end, text, confidence: 0.9 }],
});

describe("planChunks", () => {
  it("keeps short audio whole and refuses an overlap of half a chunk or more", () => {
    expect(planChunks(30, 60, 4)).toEqual([{ start: 0, end: 30, ownStart: 0, ownEnd: 30 }]);
    expect(() => planChunks(100, 10, 5)).toThrow(RangeError);
  });

  it("covers the audio with chunks within the limit whose own stretches tile it exactly", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 5000, noNaN: true }),
        fc.integer({ min: 10, max: 900 }),
        fc.double({ min: 0, max: 0.45, noNaN: true }),
        (duration, max, overlapShare) => {
          const overlap = max * overlapShare;
          const chunks = planChunks(duration, max, overlap);
          expect(chunks[0]?.start).toBe(0);
          expect(chunks.at(-1)?.end).toBe(duration);
          expect(chunks[0]?.ownStart).toBe(0);
          expect(chunks.at(-1)?.ownEnd).toBe(duration);
          for (const [i, c] of chunks.entries()) {
            expect(c.end - c.start).toBeLessThanOrEqual(max + 1e-9);
            expect(c.ownStart).toBeGreaterThanOrEqual(c.start);
            expect(c.ownEnd).toBeLessThanOrEqual(c.end);
            const next = chunks[i + 1];
            if (next) {
              expect(next.ownStart).toBeCloseTo(c.ownEnd, 9);
              expect(next.start).toBeLessThan(c.end + 1e-9);
            }
          }
        },
      ),
      { seed: 20261125, numRuns: 300 },
    );
  });
});

describe("placeChunkSegments", () => {
  it("stitches what each chunk heard back into every word exactly once at its exact time", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.array(
          fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.05, max: 2, noNaN: true })),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        (seconds, raw) => {
          const duration = seconds * 7.3;
          // Non-overlapping words at millisecond times.
          const words: [number, number][] = [];
          let t = 0;
          for (const [gap, len] of raw) {
            const start = Math.round((t + gap) * 1000) / 1000;
            const end = Math.round((start + len) * 1000) / 1000;
            if (end > duration) break;
            words.push([start, end]);
            t = end;
          }
          const chunks = planChunks(duration, 30, 4);
          const stitched = chunks.flatMap((chunk) => {
            // A chunk hears the words wholly inside it, timed from its own start.
            const heard = words
              .filter(([s, e]) => s >= chunk.start && e <= chunk.end)
              .map(([s, e], i) => seg(s - chunk.start, e - chunk.start, `w${s}-${i}`));
            return placeChunkSegments(chunk, heard);
          });
          expect(stitched.map((s) => [s.start, s.end])).toEqual(words);
          for (const s of stitched) expect(s.words[0]).toMatchObject({ start: s.start, end: s.end });
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});
