/** Building transcript segments from what vendors return: segments and words listed apart, or words only. */
import type { TranscriptSegment, TranscriptWord } from "./types.ts";

/** Longest pause inside one segment built from words, seconds. */
const MAX_PAUSE_SECONDS = 1;
/** Most words in one segment built from words. */
const MAX_SEGMENT_WORDS = 40;

/** The segment made of `words` (in order): their span and their texts joined; null for none. */
export function segmentOf(words: TranscriptWord[]): TranscriptSegment | null {
  const first = words[0];
  const last = words.at(-1);
  if (!first || !last) return null;
  return { start: first.start, end: last.end, text: words.map((w) => w.text).join(" "), words };
}

/**
 * Puts each word into the segment whose span holds the word's midpoint (or the nearest one),
 * keeping both in time order. Segments' texts are kept as the vendor wrote them (trimmed).
 */
export function attachWords(
  segments: { start: number; end: number; text: string }[],
  words: TranscriptWord[],
): TranscriptSegment[] {
  const out: TranscriptSegment[] = [...segments]
    .sort((a, b) => a.start - b.start)
    .map((s) => ({ start: s.start, end: s.end, text: s.text.trim(), words: [] }));
  if (out.length === 0) return words.length > 0 ? segmentsFromWords(words) : [];
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const mid = (w.start + w.end) / 2;
    let best = out[0] as TranscriptSegment;
    let distance = Number.POSITIVE_INFINITY;
    for (const s of out) {
      const d = mid < s.start ? s.start - mid : mid > s.end ? mid - s.end : 0;
      if (d < distance) {
        best = s;
        distance = d;
      }
      if (d === 0) break;
    }
    best.words.push(w);
  }
  return out;
}

/**
 * Groups timed words into segments: a new segment after a word that ends a sentence (. ? !),
 * at a pause longer than a second, or after {@link MAX_SEGMENT_WORDS} words.
 */
export function segmentsFromWords(words: TranscriptWord[]): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let group: TranscriptWord[] = [];
  const flush = () => {
    const first = group[0];
    const last = group.at(-1);
    if (first && last) {
      segments.push({
        start: first.start,
        end: last.end,
        text: group.map((w) => w.text).join(" "),
        words: group,
      });
    }
    group = [];
  };
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const last = group.at(-1);
    if (last && (w.start - last.end > MAX_PAUSE_SECONDS || group.length >= MAX_SEGMENT_WORDS)) flush();
    group.push(w);
    if (/[.?!]["')\]]?$/.test(w.text)) flush();
  }
  flush();
  return segments;
}
