/**
 * Input normalisation for the analysis helpers: validates a transcript (string or timed
 * segments), sorts segments, joins their text into one string with a character → time
 * map, and cuts the parsed text into timed units (sentences, long ones split).
 */
import { type ErrorDetail, invalidRequest, payloadTooLarge } from "../../errors.ts";
import type { ParsedText } from "./nlp.ts";

/** One timed piece of speech. Times in seconds from the start of the media. */
export interface Segment {
  /** Start time in seconds (finite, ≥ 0). */
  start: number;
  /** End time in seconds (finite, ≥ `start`). */
  end: number;
  /** What is said. */
  text: string;
  /** Optional speaker label; a change of speaker is evidence of a topic boundary. */
  speaker?: string;
}

/** A transcript: plain text (spread over the media duration by character position) or segments. */
export type Transcript = string | Segment[];

/** Most segments accepted in one request; more is a 413. */
export const MAX_SEGMENTS = 50_000;

/** A segment after validation and sorting, with its place in the joined text. */
export interface TimedPiece {
  start: number;
  end: number;
  speaker: string | undefined;
  charStart: number;
  charEnd: number;
}

/** Joined text plus the pieces that map character offsets to times. */
export interface TimedText {
  text: string;
  /** Sorted by start time, then end time; never empty. */
  pieces: TimedPiece[];
}

const MAX_DETAILS = 20;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Message-less helper: collects details and throws one 400 at the end. */
class Problems {
  readonly details: ErrorDetail[] = [];
  add(path: string, message: string): void {
    if (this.details.length < MAX_DETAILS) this.details.push({ path, message });
  }
  throwIfAny(message: string): void {
    if (this.details.length > 0) throw invalidRequest(message, this.details);
  }
}

/**
 * Validates a segment array at JSON Pointer `path` (e.g. `/transcript`, `/subtitles`).
 * @throws AppError 413 `payload_too_large` beyond {@link MAX_SEGMENTS} segments;
 *   400 `invalid_request` naming each bad field (`/transcript/3/end`) or an empty/blank transcript.
 */
export function validateSegments(value: unknown, path: string): Segment[] {
  if (!Array.isArray(value)) {
    throw invalidRequest(`${path.slice(1)} must be an array of segments`, [
      { path, message: "must be an array of { start, end, text, speaker? }" },
    ]);
  }
  if (value.length > MAX_SEGMENTS) {
    throw payloadTooLarge(
      `${path.slice(1)} has ${value.length} segments; at most ${MAX_SEGMENTS} are accepted`,
    );
  }
  if (value.length === 0) {
    throw invalidRequest(`${path.slice(1)} is empty`, [
      { path, message: "must contain at least one segment" },
    ]);
  }
  const problems = new Problems();
  const out: Segment[] = [];
  let anyText = false;
  value.forEach((seg: unknown, i) => {
    const p = `${path}/${i}`;
    if (!isRecord(seg)) {
      problems.add(p, "must be an object { start, end, text, speaker? }");
      return;
    }
    const { start, end, text, speaker } = seg;
    const startOk = typeof start === "number" && Number.isFinite(start) && start >= 0;
    if (!startOk) problems.add(`${p}/start`, "must be a finite number of seconds >= 0");
    if (typeof end !== "number" || !Number.isFinite(end))
      problems.add(`${p}/end`, "must be a finite number of seconds");
    else if (startOk && end < (start as number)) problems.add(`${p}/end`, "must be >= start");
    if (typeof text !== "string") problems.add(`${p}/text`, "must be a string");
    else if (text.trim() !== "") anyText = true;
    if (speaker !== undefined && speaker !== null && typeof speaker !== "string") {
      problems.add(`${p}/speaker`, "must be a string when present");
    }
    if (problems.details.length === 0) {
      out.push({
        start: start as number,
        end: end as number,
        text: text as string,
        ...(typeof speaker === "string" ? { speaker } : {}),
      });
    }
  });
  problems.throwIfAny(`${path.slice(1)} has invalid segments`);
  if (!anyText) {
    throw invalidRequest(`${path.slice(1)} is empty or whitespace-only`, [
      { path, message: "must contain some text" },
    ]);
  }
  return out;
}

/**
 * Validates a transcript (string or segments) at `/transcript`.
 * @throws AppError 400 for a blank string, a wrong type or bad segments; 413 for too many segments.
 */
export function validateTranscript(value: unknown, path = "/transcript"): Transcript {
  if (typeof value === "string") {
    if (value.trim() === "") {
      throw invalidRequest("transcript is empty or whitespace-only", [
        { path, message: "must contain some text" },
      ]);
    }
    return value;
  }
  if (Array.isArray(value)) return validateSegments(value, path);
  throw invalidRequest("transcript must be a string or an array of segments", [
    { path, message: "must be a string or an array of { start, end, text, speaker? }" },
  ]);
}

/** Latest segment end of a transcript in seconds (0 for a string). */
export function lastEnd(t: Transcript): number {
  if (typeof t === "string") return 0;
  let m = 0;
  for (const s of t) if (s.end > m) m = s.end;
  return m;
}

/**
 * Validates an optional number option: absent → `fallback`; otherwise it must be finite,
 * within [min, max] and (when `integer`) whole.
 * @throws AppError 400 naming `path`.
 */
export function readNumberOption(
  value: unknown,
  opts: {
    path: string;
    fallback: number;
    min: number;
    max: number;
    integer?: boolean;
    minExclusive?: boolean;
  },
): number {
  if (value === undefined || value === null) return opts.fallback;
  const name = opts.path.slice(1);
  const bad = (message: string) => invalidRequest(`${name} ${message}`, [{ path: opts.path, message }]);
  if (typeof value !== "number" || !Number.isFinite(value)) throw bad("must be a finite number");
  if (opts.integer && !Number.isInteger(value)) throw bad("must be an integer");
  if (opts.minExclusive ? value <= opts.min : value < opts.min) {
    throw bad(`must be ${opts.minExclusive ? ">" : ">="} ${opts.min}`);
  }
  if (value > opts.max) throw bad(`must be <= ${opts.max}`);
  return value;
}

/**
 * Joins a validated transcript into one text with a time map. A string is spread evenly
 * over [0, duration] by character position; segments are sorted by (start, end) and keep
 * their own times (overlaps allowed).
 */
export function toTimedText(t: Transcript, duration: number): TimedText {
  if (typeof t === "string") {
    return {
      text: t,
      pieces: [{ start: 0, end: duration, speaker: undefined, charStart: 0, charEnd: t.length }],
    };
  }
  let inOrder = true;
  for (let i = 1; i < t.length && inOrder; i++) {
    const a = t[i - 1] as Segment;
    const b = t[i] as Segment;
    inOrder = a.start < b.start || (a.start === b.start && a.end <= b.end);
  }
  const sorted = inOrder
    ? t
    : t
        .map((s, i) => ({ s, i }))
        .sort((a, b) => a.s.start - b.s.start || a.s.end - b.s.end || a.i - b.i)
        .map((x) => x.s);
  const parts: string[] = [];
  const pieces: TimedPiece[] = [];
  let offset = 0;
  for (const s of sorted) {
    // Line breaks inside a subtitle are layout, not sentence ends.
    const text = MESSY_SPACE.test(s.text) ? s.text.replace(/\s+/g, " ").trim() : s.text;
    if (text === "") continue;
    if (parts.length > 0) {
      parts.push(" ");
      offset += 1;
    }
    pieces.push({
      start: s.start,
      end: s.end,
      speaker: s.speaker,
      charStart: offset,
      charEnd: offset + text.length,
    });
    parts.push(text);
    offset += text.length;
  }
  return { text: parts.join(""), pieces };
}

/** Whitespace other than single inner spaces. */
const MESSY_SPACE = /\s{2,}|[^\S ]|^\s|\s$/;

/** Index of the piece holding character `offset` (the last piece starting at or before it). */
export function pieceAt(tt: TimedText, offset: number): number {
  let lo = 0;
  let hi = tt.pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((tt.pieces[mid] as TimedPiece).charStart <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Time in seconds at character `offset`, interpolated within its piece. */
export function timeAt(tt: TimedText, offset: number): number {
  const p = tt.pieces[pieceAt(tt, offset)] as TimedPiece;
  const len = p.charEnd - p.charStart;
  if (len <= 0) return p.start;
  const f = Math.min(1, Math.max(0, (offset - p.charStart) / len));
  return p.start + f * (p.end - p.start);
}

/** A stretch of speech used as the atom of segmentation and summarisation. */
export interface TimedUnit {
  /** Token range [tokenStart, tokenEnd) in the parse. */
  tokenStart: number;
  tokenEnd: number;
  /** Seconds; non-decreasing across units. */
  start: number;
  end: number;
  /** Silence before this unit in seconds (0 for the first). */
  pauseBefore: number;
  /** True when the speaker label differs from the previous unit's. */
  speakerChange: boolean;
  /** Index of the piece where the unit starts. */
  piece: number;
}

/** Longest unit in word tokens before it is cut (unpunctuated ASR text has no sentences). */
const MAX_UNIT_WORDS = 40;

/**
 * Cuts the parse into timed units: one per sentence, except that sentences longer than
 * {@link MAX_UNIT_WORDS} words are split at segment starts (or every ~25 words when there are none).
 */
export function toTimedUnits(tt: TimedText, parsed: ParsedText): TimedUnit[] {
  const ranges: Array<[number, number]> = [];
  for (let s = 0; s < parsed.sentenceStart.length; s++) {
    const a = parsed.sentenceStart[s] as number;
    const b = parsed.sentenceEnd[s] as number;
    let words = 0;
    for (let i = a; i < b; i++) if (parsed.kind[i] === "word") words++;
    if (words <= MAX_UNIT_WORDS) {
      ranges.push([a, b]);
      continue;
    }
    let from = a;
    let count = 0;
    let lastPiece = pieceAt(tt, parsed.start[a] as number);
    for (let i = a; i < b; i++) {
      const piece = pieceAt(tt, parsed.start[i] as number);
      const atPieceStart = piece !== lastPiece;
      lastPiece = piece;
      if (i > from && ((atPieceStart && count >= 12) || count >= 25) && b - i > 3) {
        ranges.push([from, i]);
        from = i;
        count = 0;
      }
      if (parsed.kind[i] === "word") count++;
    }
    ranges.push([from, b]);
  }
  const units: TimedUnit[] = [];
  let prevEnd = 0;
  let prevSpeaker: string | undefined;
  for (const [a, b] of ranges) {
    const startChar = parsed.start[a] as number;
    const endChar = parsed.end[b - 1] as number;
    const piece = pieceAt(tt, startChar);
    const endPiece = pieceAt(tt, Math.max(startChar, endChar - 1));
    const start = Math.max(prevEnd, timeAt(tt, startChar));
    const end = Math.max(start, timeAt(tt, endChar));
    const speaker = tt.pieces[piece]?.speaker;
    units.push({
      tokenStart: a,
      tokenEnd: b,
      start,
      end,
      pauseBefore: units.length === 0 ? 0 : Math.max(0, start - prevEnd),
      speakerChange:
        units.length > 0 && speaker !== undefined && prevSpeaker !== undefined && speaker !== prevSpeaker,
      piece,
    });
    prevEnd = end;
    prevSpeaker = tt.pieces[endPiece]?.speaker ?? speaker;
  }
  return units;
}
