/**
 * A transcript in the shapes other tools take: caption cues (SRT, WebVTT), plain text, and the
 * `transcript` segment array the analysis helpers (`chapters/detect`, `clips/summarize`,
 * `broll/suggest`) accept unchanged.
 */
import { stringifySync } from "subtitle";
import type { TranscriptResult, TranscriptSegment, TranscriptWord } from "./types.ts";

/** One word of a caption cue, seconds. */
export interface CueWord {
  start: number;
  end: number;
  text: string;
}

/** A caption cue, seconds, with the times of its words (none when the engine gave no word times). */
export interface CaptionCue {
  start: number;
  end: number;
  /** The words joined by spaces. */
  text: string;
  words: CueWord[];
}

/** Longest caption line, characters (the common broadcast limit of 42 per line). */
export const CUE_MAX_CHARS = 42;
/** Longest cue, seconds. */
export const CUE_MAX_SECONDS = 7;

/**
 * Caption cues of a transcript: each segment's words grouped greedily into cues of at most
 * {@link CUE_MAX_CHARS} characters and {@link CUE_MAX_SECONDS} seconds, timed by the words and
 * keeping them (karaoke captions highlight each at its time). A segment without word times is
 * one cue without words.
 */
export function captionCues(result: Pick<TranscriptResult, "segments">): CaptionCue[] {
  const cues: CaptionCue[] = [];
  for (const segment of result.segments) {
    if (segment.words.length === 0) {
      if (segment.text.trim())
        cues.push({ start: segment.start, end: segment.end, text: segment.text.trim(), words: [] });
      continue;
    }
    let group: TranscriptWord[] = [];
    const flush = () => {
      const first = group[0];
      const last = group.at(-1);
      if (first && last)
        cues.push({
          start: first.start,
          end: last.end,
          text: group.map((w) => w.text).join(" "),
          words: group.map((w) => ({ start: w.start, end: w.end, text: w.text })),
        });
      group = [];
    };
    for (const word of segment.words) {
      const first = group[0];
      const length = group.reduce((n, w) => n + w.text.length + 1, word.text.length);
      if (first && (length > CUE_MAX_CHARS || word.end - first.start > CUE_MAX_SECONDS)) flush();
      group.push(word);
    }
    flush();
  }
  return cues;
}

/** Caption text of a transcript as SubRip (`srt`) or WebVTT (`vtt`). */
export function subtitleText(result: Pick<TranscriptResult, "segments">, format: "srt" | "vtt"): string {
  const nodes = captionCues(result).map((c) => ({
    type: "cue" as const,
    data: { start: Math.round(c.start * 1000), end: Math.round(c.end * 1000), text: c.text },
  }));
  return stringifySync(nodes, { format: format === "srt" ? "SRT" : "WebVTT" });
}

/** The transcript as plain text: one line per segment. */
export function plainText(result: Pick<TranscriptResult, "segments">): string {
  return result.segments.map((s) => s.text).join("\n") + (result.segments.length > 0 ? "\n" : "");
}

/**
 * The `transcript` array the analysis helpers accept: `{ start, end, text }` per segment
 * (words dropped), segments with no text left out.
 */
export function analysisTranscript(
  segments: TranscriptSegment[],
): { start: number; end: number; text: string }[] {
  return segments.filter((s) => s.text.trim()).map((s) => ({ start: s.start, end: s.end, text: s.text }));
}
