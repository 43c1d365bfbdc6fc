/**
 * Candidate clips of a long recording: every run of whole sentences no longer than the target
 * length is a window; windows are scored from the transcript (key phrases of the whole
 * recording, a hook in the first sentence, bounded by pauses) and the audio (short-term
 * loudness against the recording's median, how much of the window is speech), and the best
 * non-overlapping ones are kept, each with the reasons of its score. Pure: no I/O, no clock.
 *
 * Key phrases are TextRank phrases (`summarizeClip`, Mihalcea & Tarau 2004); loudness is the
 * EBU R128 short-term loudness (3 s windows, one value per second) of the upload analysis.
 */
import { sentenceCase } from "../analysis/key-phrases.ts";
import { summarizeClip } from "../analysis/summary.ts";
import type { TranscriptSegment } from "../transcription/types.ts";
import type { AutoeditCandidate } from "./types.ts";

/** One sentence of the transcript: source seconds and its text. */
export interface Sentence {
  start: number;
  end: number;
  text: string;
  /** Seconds of it that are words (the sentence's length when the engine gives no word times). */
  spoken: number;
}

/** What the candidates of one upload are found from. */
export interface CandidateInput {
  uploadId: string;
  segments: TranscriptSegment[];
  /** Silences of the upload (source seconds), from its analysis. */
  silences: { start: number; end: number }[];
  /** Short-term loudness per second of the upload, LUFS (null: silent), from its analysis. */
  shortTerm: (number | null)[];
  /** Longest candidate, seconds. */
  maxDuration: number;
  /** What the user asked for, or null. */
  prompt: string | null;
}

/** Weights of the score's parts (they add up to 1; a prompt takes {@link PROMPT_WEIGHT} of it). */
export const SCORE_WEIGHTS = {
  keyPhrases: 0.25,
  hook: 0.15,
  bounded: 0.15,
  energy: 0.15,
  speech: 0.15,
  length: 0.15,
} as const;
/** Share of the score given to words of the prompt, when there is one. */
export const PROMPT_WEIGHT = 0.2;
/** A pause at least this long before and after a window makes it stand alone, seconds. */
export const BOUNDING_PAUSE = 0.3;
/** Most candidates returned per request. */
export const MAX_CANDIDATES = 20;

const SENTENCE_END = /[.!?…]["'”’)]*$/;
/** Words that open a sentence in the middle of a thought. */
const DANGLING = new Set(["and", "but", "so", "because", "or", "then", "also", "which", "that"]);
/** Openings that draw a listener in: questions, direct address, promises. */
const HOOK_OPENINGS =
  /^(what|why|how|who|when|where|did you|do you|have you|here'?s|imagine|the secret|the truth|the reason|you|if you|never|stop|listen|look)\b/i;
const WORD = /[\p{L}\p{N}']+/gu;
const STOP_WORDS = new Set(
  "a an the and or but of to in on at for with about from by is are was were be been it this that these those i you he she we they me my your our their make made clip clips video videos short vertical captions caption".split(
    " ",
  ),
);

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The transcript's sentences: each segment cut after words that end a sentence (`.`, `!`, `?`);
 * a segment without such punctuation (the offline engine's utterances, which end on a pause) is
 * one sentence.
 */
export function sentencesOf(segments: readonly TranscriptSegment[]): Sentence[] {
  const out: Sentence[] = [];
  for (const seg of [...segments].sort((a, b) => a.start - b.start)) {
    const text = seg.text.trim();
    if (!text) continue;
    if (seg.words.length === 0) {
      out.push({ start: seg.start, end: seg.end, text, spoken: seg.end - seg.start });
      continue;
    }
    let from = 0;
    seg.words.forEach((w, i) => {
      const last = i === seg.words.length - 1;
      if (!last && !SENTENCE_END.test(w.text.trim())) return;
      const words = seg.words.slice(from, i + 1);
      from = i + 1;
      const first = words[0];
      const end = words[words.length - 1];
      if (!first || !end) return;
      out.push({
        start: first.start,
        end: end.end,
        text: words.map((x) => x.text.trim()).join(" "),
        spoken: words.reduce((n, x) => n + Math.max(0, x.end - x.start), 0),
      });
    });
  }
  return out;
}

/** Content words of a prompt, lower-cased (stop words and words under 3 letters left out). */
export function promptWords(prompt: string | null): string[] {
  if (!prompt) return [];
  const words = (prompt.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= 3 && !STOP_WORDS.has(w));
  return [...new Set(words)];
}

/** Occurrences of `phrase` in `text` (both lower-case), on word boundaries. */
function occurrences(text: string, phrase: string): number {
  if (!phrase) return 0;
  let n = 0;
  let at = text.indexOf(phrase);
  const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  while (at >= 0) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + phrase.length])) n += 1;
    at = text.indexOf(phrase, at + phrase.length);
  }
  return n;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Mean short-term loudness over source seconds `[start, end)`, LUFS; null when all silent. */
function meanLoudness(shortTerm: readonly (number | null)[], start: number, end: number): number | null {
  const values: number[] = [];
  for (let s = Math.floor(start); s < Math.ceil(end) && s < shortTerm.length; s++) {
    const v = shortTerm[s];
    if (v !== null && v !== undefined) values.push(v);
  }
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** Seconds of pause before `t` (to the previous sentence's end, or the start of the media). */
function pauseAround(
  sentences: readonly Sentence[],
  silences: readonly { start: number; end: number }[],
  i: number,
  side: "before" | "after",
): number {
  const s = sentences[i] as Sentence;
  const neighbour = sentences[side === "before" ? i - 1 : i + 1];
  const gap =
    side === "before"
      ? s.start - (neighbour?.end ?? 0)
      : (neighbour?.start ?? Number.POSITIVE_INFINITY) - s.end;
  // A silence the analysis found touching the boundary counts as well (sentences may overlap it).
  const t = side === "before" ? s.start : s.end;
  const silence = silences.find((x) => x.start - 0.15 <= t && t <= x.end + 0.15);
  return Math.max(gap, silence ? silence.end - silence.start : 0);
}

/** A window of sentences `[first, last]` with its score parts, before titles. */
interface Window {
  first: number;
  last: number;
  start: number;
  end: number;
  parts: Record<keyof typeof SCORE_WEIGHTS | "prompt", number>;
  reasons: string[];
  score: number;
}

/**
 * The ranked candidates of one upload (at most {@link MAX_CANDIDATES}, none overlapping), each a
 * run of whole sentences no longer than `maxDuration`, with a title and the reasons of its score.
 * A sentence longer than `maxDuration` on its own is never part of a candidate.
 */
export function findCandidates(input: CandidateInput): AutoeditCandidate[] {
  const sentences = sentencesOf(input.segments);
  if (sentences.length === 0) return [];
  const keywords = globalKeyPhrases(sentences);
  const wanted = promptWords(input.prompt);
  const loudValues = input.shortTerm.filter((v): v is number => v !== null);
  const medianLoudness = median(loudValues);
  const windows: Window[] = [];
  for (let first = 0; first < sentences.length; first++) {
    const s0 = sentences[first] as Sentence;
    let last = -1;
    for (let j = first; j < sentences.length; j++) {
      if ((sentences[j] as Sentence).end - s0.start > input.maxDuration) break;
      last = j;
    }
    if (last < 0) continue;
    windows.push(scoreWindow({ ...input, sentences, keywords, wanted, medianLoudness }, first, last));
  }
  // Key-phrase density is relative: the densest window of the recording gets 1.
  const densest = Math.max(0, ...windows.map((w) => w.parts.keyPhrases));
  for (const w of windows) {
    w.parts.keyPhrases = densest > 0 ? w.parts.keyPhrases / densest : 0;
    const base = (Object.keys(SCORE_WEIGHTS) as (keyof typeof SCORE_WEIGHTS)[]).reduce(
      (n, k) => n + SCORE_WEIGHTS[k] * w.parts[k],
      0,
    );
    w.score = r3(wanted.length ? (1 - PROMPT_WEIGHT) * base + PROMPT_WEIGHT * w.parts.prompt : base);
  }
  const chosen: Window[] = [];
  for (const w of [...windows].sort((a, b) => b.score - a.score || a.start - b.start)) {
    if (chosen.length >= MAX_CANDIDATES) break;
    if (chosen.some((c) => w.start < c.end && c.start < w.end)) continue;
    chosen.push(w);
  }
  return chosen.map((w) => ({
    uploadId: input.uploadId,
    start: r3(w.start),
    end: r3(w.end),
    score: w.score,
    title: titleOf(sentences.slice(w.first, w.last + 1)),
    reasons: w.reasons,
  }));
}

/** The recording's key phrases, lower-cased, most important first. */
function globalKeyPhrases(sentences: readonly Sentence[]): string[] {
  const { keywords } = summarizeClip({
    transcript: sentences.map((s) => ({ start: s.start, end: s.end, text: s.text })),
    maxKeywords: 20,
  });
  return keywords.map((k) => k.toLowerCase());
}

/** A title: the window's own top key phrases, else its first words. */
function titleOf(sentences: readonly Sentence[]): string {
  const text = sentences.map((s) => s.text).join(" ");
  const { keywords } = summarizeClip({
    transcript: sentences.map((s) => ({ start: s.start, end: s.end, text: s.text })),
    maxKeywords: 3,
  });
  if (keywords.length > 0) return sentenceCase(keywords.join(", "));
  const words = text.split(/\s+/).slice(0, 8).join(" ");
  return sentenceCase(words);
}

function scoreWindow(
  c: CandidateInput & {
    sentences: readonly Sentence[];
    keywords: readonly string[];
    wanted: readonly string[];
    medianLoudness: number | null;
  },
  first: number,
  last: number,
): Window {
  const inWindow = c.sentences.slice(first, last + 1);
  const start = (inWindow[0] as Sentence).start;
  const end = (inWindow[inWindow.length - 1] as Sentence).end;
  const duration = Math.max(0.001, end - start);
  const text = ` ${inWindow.map((s) => s.text.toLowerCase()).join(" ")} `;
  const reasons: string[] = [];

  // Key phrases of the whole recording, per minute of the window.
  const hits = c.keywords.map((k) => ({ k, n: occurrences(text, k) })).filter((h) => h.n > 0);
  const keyHits = hits.reduce((n, h) => n + h.n, 0);
  if (hits.length > 0) {
    reasons.push(
      `mentions ${hits.length} of the recording's key phrases (${hits
        .slice(0, 3)
        .map((h) => `"${h.k}"`)
        .join(", ")}) ${keyHits} time${keyHits === 1 ? "" : "s"}`,
    );
  } else reasons.push("mentions none of the recording's key phrases");

  // A hook: the first sentence draws the listener in; a dangling opening does the opposite.
  const opening = (inWindow[0] as Sentence).text.trim();
  const firstWord = (opening.toLowerCase().match(WORD) ?? [""])[0] as string;
  let hook = 0;
  if (DANGLING.has(firstWord)) {
    reasons.push(`starts mid-thought ("${firstWord} …")`);
  } else {
    if (HOOK_OPENINGS.test(opening) || opening.includes("?")) {
      hook += 0.5;
      reasons.push("opens with a question or direct address");
    }
    if (c.keywords.some((k) => occurrences(` ${opening.toLowerCase()} `, k) > 0)) {
      hook += 0.5;
      reasons.push("names a key phrase in its first sentence");
    }
    if (hook === 0) hook = 0.25;
  }

  // Complete: it starts and ends on a pause, so the cut falls between thoughts.
  const before = pauseAround(c.sentences, c.silences, first, "before");
  const after = pauseAround(c.sentences, c.silences, last, "after");
  const bounded = (before >= BOUNDING_PAUSE ? 0.5 : 0) + (after >= BOUNDING_PAUSE ? 0.5 : 0);
  reasons.push(
    bounded === 1
      ? `${inWindow.length} whole sentence${inWindow.length === 1 ? "" : "s"}, with a pause before and after`
      : `${inWindow.length} whole sentence${inWindow.length === 1 ? "" : "s"}; ${before < BOUNDING_PAUSE ? "no pause before it" : ""}${before < BOUNDING_PAUSE && after < BOUNDING_PAUSE ? " and " : ""}${after < BOUNDING_PAUSE ? "no pause after it" : ""}`,
  );

  // Energy: the window's short-term loudness against the recording's median.
  const loud = meanLoudness(c.shortTerm, start, end);
  let energy = 0.5;
  if (loud !== null && c.medianLoudness !== null) {
    const delta = loud - c.medianLoudness;
    energy = clamp01(0.5 + delta / 10);
    reasons.push(
      `${Math.abs(delta).toFixed(1)} LU ${delta >= 0 ? "louder" : "quieter"} than the recording's median`,
    );
  }

  // Speech: how much of it is words; long silences inside drag it down.
  const spoken = inWindow.reduce((n, s) => n + s.spoken, 0);
  const speech = clamp01(spoken / duration);
  const longGaps = c.silences.filter((s) => s.start >= start && s.end <= end && s.end - s.start > 1).length;
  reasons.push(
    `speech fills ${Math.round(speech * 100)} % of it${longGaps ? `, ${longGaps} silence${longGaps === 1 ? "" : "s"} over 1 s inside` : ""}`,
  );

  const length = clamp01(duration / c.maxDuration);
  reasons.push(`${duration.toFixed(1)} s of the ${c.maxDuration} s asked for`);

  let prompt = 0;
  if (c.wanted.length) {
    const found = c.wanted.filter((w) => occurrences(text, w) > 0);
    prompt = found.length / c.wanted.length;
    reasons.push(
      found.length
        ? `says ${found.length} of the prompt's words (${found.slice(0, 3).join(", ")})`
        : "says none of the prompt's words",
    );
  }

  return {
    first,
    last,
    start,
    end,
    parts: { keyPhrases: keyHits / (duration / 60), hook, bounded, energy, speech, length, prompt },
    reasons,
    score: 0,
  };
}

/**
 * The candidates of several uploads ranked together (best first), at most {@link MAX_CANDIDATES}.
 */
export function rankCandidates(perUpload: readonly AutoeditCandidate[][]): AutoeditCandidate[] {
  return perUpload
    .flat()
    .sort((a, b) => b.score - a.score || a.uploadId.localeCompare(b.uploadId) || a.start - b.start)
    .slice(0, MAX_CANDIDATES);
}
