/**
 * Long audio through engines with a size limit: cut into overlapping chunks, each transcribed
 * on its own with times from the chunk's start, then shifted back by the chunk's offset and
 * stitched so that every segment is kept exactly once: a segment belongs to the chunk whose
 * own stretch (the chunk minus half of each overlap) holds its midpoint.
 */
import type { TranscriptSegment } from "./types.ts";

/** One chunk of the audio, seconds. `ownStart`..`ownEnd` is the part whose segments it keeps. */
export interface AudioChunk {
  start: number;
  end: number;
  ownStart: number;
  ownEnd: number;
}

/**
 * Cuts `duration` seconds into chunks of at most `maxSeconds`, each overlapping the next by
 * `overlapSeconds` (so a word cut at one chunk's edge is whole in its neighbour).
 * @throws RangeError when `overlapSeconds` is not smaller than half of `maxSeconds`.
 */
export function planChunks(duration: number, maxSeconds: number, overlapSeconds: number): AudioChunk[] {
  if (!(overlapSeconds >= 0 && overlapSeconds * 2 < maxSeconds)) {
    throw new RangeError("overlapSeconds must be non-negative and under half of maxSeconds");
  }
  if (duration <= maxSeconds) return [{ start: 0, end: duration, ownStart: 0, ownEnd: duration }];
  const step = maxSeconds - overlapSeconds;
  const count = Math.ceil((duration - overlapSeconds) / step);
  const chunks: AudioChunk[] = [];
  for (let i = 0; i < count; i++) {
    const start = i * step;
    const end = Math.min(duration, start + maxSeconds);
    chunks.push({
      start,
      end,
      ownStart: i === 0 ? 0 : start + overlapSeconds / 2,
      ownEnd: i === count - 1 ? duration : end - overlapSeconds / 2,
    });
  }
  return chunks;
}

const shift = (t: number, by: number) => Math.round((t + by) * 1000) / 1000;

/**
 * Moves one chunk's segments (times from the chunk's start) onto the media's time line and keeps
 * those whose midpoint lies in the chunk's own stretch.
 */
export function placeChunkSegments(chunk: AudioChunk, segments: TranscriptSegment[]): TranscriptSegment[] {
  const kept: TranscriptSegment[] = [];
  for (const s of segments) {
    const start = shift(s.start, chunk.start);
    const end = shift(s.end, chunk.start);
    const mid = (start + end) / 2;
    if (mid < chunk.ownStart || mid >= chunk.ownEnd) continue;
    kept.push({
      start,
      end,
      text: s.text,
      words: s.words.map((w) => ({
        ...w,
        start: shift(w.start, chunk.start),
        end: shift(w.end, chunk.start),
      })),
    });
  }
  return kept;
}
