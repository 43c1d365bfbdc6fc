/**
 * Chapter detection: validated transcript → timed sentences → optimal lexical-cohesion
 * segmentation with timing cues (see `segmenter.ts`) → TF-IDF key-phrase titles.
 */
import { invalidRequest } from "../../errors.ts";
import {
  aggregatePhrases,
  findPhraseOccurrences,
  inOrder,
  type Phrase,
  type PhraseOccurrence,
  selectDistinct,
  sentenceCase,
} from "./key-phrases.ts";
import { type SegmentationAtom, segmentAtoms } from "./segmenter.ts";
import { termsIn } from "./terms.ts";
import { buildTimedDocument, type TimedDocument } from "./timed-document.ts";
import {
  lastEnd,
  readNumberOption,
  type TimedUnit,
  type Transcript,
  validateTranscript,
} from "./transcript.ts";

/** Request of `POST /api/v1/chapters/detect`. */
export interface DetectChaptersInput {
  /** Plain text (spread evenly over `duration`) or timed segments (seconds). */
  transcript: Transcript;
  /** Length of the media in seconds; > 0 and not before the last segment's end. */
  duration: number;
  /** Most chapters to return (integer 1..100); default grows with `duration` (see {@link defaultMaxChapters}). */
  maxChapters?: number;
  /** Shortest chapter in seconds (default 30). */
  minChapterSec?: number;
}

/** One chapter: [start, end) in seconds and a 2–6 word title. */
export interface Chapter {
  start: number;
  end: number;
  title: string;
}

/** Response of `POST /api/v1/chapters/detect`. */
export interface DetectChaptersOutput {
  chapters: Chapter[];
}

/** Segmentation tuning (nats), chosen on the evaluation set described in bench/analysis/RESULTS.md. */
export const CHAPTER_TUNING = {
  /** Multiplier of Utiyama & Isahara's per-segment prior log(N). */
  priorWeight: 1.7,
  /** Dirichlet concentration per term of the chapter language models, at most (0 = Laplace, as Utiyama & Isahara). */
  alpha: 1,
  /**
   * Total Dirichlet concentration (α·V, pseudo-counts) at most. With a fixed α per term the
   * prior's weight grows with the vocabulary V, and on long transcripts (V ≈ 5,000) a
   * segment of a few hundred words can barely beat it, so 3-hour recordings came out as
   * 2–3 chapters (evaluation set C in bench/analysis/RESULTS.md).
   */
  alphaTotal: 500,
  /** Bonus for a boundary after a pause of ≥ 3 s (scaled linearly from 0.8 s). */
  pauseBonus: 5,
  /** Bonus for a boundary at a change of speaker. */
  speakerBonus: 3,
  /** Most atoms in the DP; longer transcripts are grouped into blocks of sentences. */
  maxAtoms: 300,
};

const DEFAULT_MIN_CHAPTER_SEC = 30;
const MAX_CHAPTERS_LIMIT = 100;

/**
 * Default cap on chapters: one per minute of media, at most 50, and no more than
 * `minChapterSec` allows. The segmentation's prior usually picks fewer.
 */
export function defaultMaxChapters(duration: number, minChapterSec: number): number {
  const byMin = minChapterSec > 0 ? Math.floor(duration / minChapterSec) : MAX_CHAPTERS_LIMIT;
  return Math.max(1, Math.min(50, byMin, Math.ceil(duration / 60)));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function pauseCue(u: TimedUnit): number {
  const pause = Math.min(1, Math.max(0, (u.pauseBefore - 0.8) / 2.2));
  return CHAPTER_TUNING.pauseBonus * pause + (u.speakerChange ? CHAPTER_TUNING.speakerBonus : 0);
}

/** Dirichlet concentration per term for a transcript of `vocabularySize` distinct terms (see {@link CHAPTER_TUNING}). */
export function chapterAlpha(vocabularySize: number): number {
  return Math.min(CHAPTER_TUNING.alpha, CHAPTER_TUNING.alphaTotal / Math.max(1, vocabularySize));
}

/** Groups units into at most `maxAtoms` atoms of similar word counts; returns each atom's first unit. */
function groupUnits(doc: TimedDocument, maxAtoms: number): number[] {
  const n = doc.units.length;
  if (n <= maxAtoms) return doc.units.map((_, i) => i);
  const weights = doc.units.map((u) => Math.max(1, u.tokenEnd - u.tokenStart));
  const total = weights.reduce((a, b) => a + b, 0);
  const target = total / maxAtoms;
  const firsts = [0];
  let acc = 0;
  for (let i = 0; i < n; i++) {
    if (acc >= target && i > 0) {
      firsts.push(i);
      acc = 0;
    }
    acc += weights[i] as number;
  }
  return firsts;
}

/**
 * Finds chapter boundaries as unit indices (a chapter starts at each), honouring
 * `minChapterSec` and `maxChapters`.
 */
export function findChapterStarts(
  doc: TimedDocument,
  opts: { duration: number; minChapterSec: number; maxChapters: number },
): number[] {
  const firsts = groupUnits(doc, CHAPTER_TUNING.maxAtoms);
  const atoms: SegmentationAtom[] = firsts.map((first, a) => {
    const next = firsts[a + 1] ?? doc.units.length;
    const u0 = doc.units[first] as TimedUnit;
    const uLast = doc.units[next - 1] as TimedUnit;
    return {
      terms: termsIn(doc.terms, u0.tokenStart, uLast.tokenEnd),
      start: round3(u0.start),
      cue: pauseCue(u0),
    };
  });
  const bounds = segmentAtoms(atoms, {
    duration: opts.duration,
    minSegmentSec: opts.minChapterSec,
    maxSegments: opts.maxChapters,
    vocabularySize: doc.terms.vocabulary.length,
    priorWeight: CHAPTER_TUNING.priorWeight,
    alpha: chapterAlpha(doc.terms.vocabulary.length),
  });
  return bounds.map((a) => firsts[a] as number);
}

/** Words of a title as counted for the 2–6 word rule. */
export function titleWords(title: string): number {
  return title.split(/\s+/).filter((w) => w !== "").length;
}

/** Candidate titles for one chapter, best first, each 2–6 words. */
function titleCandidates(ranked: Iterable<Phrase>): string[] {
  const phrases = selectDistinct(ranked, 6);
  const out: string[] = [];
  const add = (t: string) => {
    const words = titleWords(t);
    if (words >= 2 && words <= 6 && !out.includes(t)) out.push(t);
  };
  const [p1, p2, p3] = phrases;
  if (p1) {
    if (p1.words >= 2) add(p1.display);
    if (p2 && p1.words + p2.words <= 5) add(`${p1.display} and ${p2.display}`);
    if (p1.words < 2) add(`About ${p1.display}`);
    if (p2 && p2.words >= 2) add(p2.display);
    if (p3 && p1.words + p3.words <= 5) add(`${p1.display} and ${p3.display}`);
    if (p2 && p3 && p2.words + p3.words <= 5) add(`${p2.display} and ${p3.display}`);
    if (p2 && p2.words < 2) add(`About ${p2.display}`);
  }
  return out.map(sentenceCase);
}

/**
 * Titles chapters with their most distinctive key phrases: TF-IDF of candidate noun
 * phrases in the chapter against the other chapters, multi-word phrases preferred.
 * Titles are 2–6 words and unique (case-insensitively).
 */
export function titleChapters(doc: TimedDocument, chapterTokenStarts: number[]): string[] {
  const occurrences = findPhraseOccurrences(doc.parsed, doc.terms);
  const C = chapterTokenStarts.length;
  const perChapter: PhraseOccurrence[][] = Array.from({ length: C }, () => []);
  let c = 0;
  for (const o of occurrences) {
    while (c + 1 < C && o.token >= (chapterTokenStarts[c + 1] as number)) c++;
    (perChapter[c] as PhraseOccurrence[]).push(o);
  }
  const phrasesPer = perChapter.map((occ) => aggregatePhrases(occ));
  // Word-level TF-IDF against the other chapters: a word used across many phrases of a
  // chapter ("espresso" in "espresso machine", "espresso shot") marks its topic.
  const V = doc.terms.vocabulary.length;
  const wordDf = new Int32Array(V);
  const wordTf = perChapter.map((occ) => {
    const tf = new Int32Array(V);
    for (const o of occ) {
      if (!o.maximal) continue;
      for (const t of o.terms) {
        if (tf[t] === 0) wordDf[t] = (wordDf[t] as number) + 1;
        tf[t] = (tf[t] as number) + 1;
      }
    }
    return tf;
  });
  const used = new Set<string>();
  return phrasesPer.map((list, i) => {
    const tf = wordTf[i] as Int32Array;
    const score = new Float64Array(list.length);
    list.forEach((p, k) => {
      let sum = 0;
      for (const t of p.terms) sum += (tf[t] as number) * Math.log(1 + C / ((wordDf[t] as number) || 1));
      score[k] = (sum / Math.sqrt(p.words)) * (1 + 0.3 * Math.log(p.count));
    });
    const ranked = inOrder(
      list,
      (a, b) =>
        (score[b] as number) - (score[a] as number) ||
        (list[a] as Phrase).firstToken - (list[b] as Phrase).firstToken,
    );
    const candidates = titleCandidates(ranked);
    let title = candidates.find((t) => !used.has(t.toLowerCase()));
    if (!title) {
      const base = candidates[0] ?? `Chapter ${i + 1}`;
      const trimmed = base.split(/\s+/).slice(0, 4).join(" ");
      title = used.has(base.toLowerCase()) ? `${trimmed} (part ${i + 1})` : base;
      if (titleWords(title) < 2) title = `Chapter ${i + 1}`;
    }
    used.add(title.toLowerCase());
    return title;
  });
}

/**
 * Splits a talk into chapters by topic.
 *
 * Units are sentences (long unpunctuated ones cut at segment starts), timed by their
 * segments; a string transcript is spread over `duration` by character position. The
 * segmentation minimises Utiyama & Isahara's (2001) description-length cost of each
 * chapter's content lemmas plus a per-chapter prior, minus bonuses for long pauses and
 * speaker changes at boundaries, by exact dynamic programming under `minChapterSec` and
 * `maxChapters`. Titles are TF-IDF key phrases against the other chapters (2–6 words, unique).
 *
 * @returns chapters contiguous in seconds: the first starts at 0, each ends where the next
 *   starts, the last ends at `duration`; every chapter is at least `minChapterSec` long unless
 *   there is only one. Deterministic.
 * @throws AppError 400 `invalid_request` with JSON Pointer details (`/transcript`,
 *   `/transcript/3/end`, `/duration`, `/maxChapters`, `/minChapterSec`) for a blank transcript,
 *   bad segments, `duration` ≤ 0 or before the last segment's end; 413 beyond 50,000 segments.
 */
export function detectChapters(input: DetectChaptersInput): DetectChaptersOutput {
  if (typeof input !== "object" || input === null) {
    throw invalidRequest("body must be an object", [{ path: "", message: "must be an object" }]);
  }
  const transcript = validateTranscript(input.transcript);
  const duration = readNumberOption(input.duration, {
    path: "/duration",
    fallback: Number.NaN,
    min: 0,
    minExclusive: true,
    max: Number.MAX_SAFE_INTEGER,
  });
  if (Number.isNaN(duration)) {
    throw invalidRequest("duration is required", [
      { path: "/duration", message: "must be a number of seconds > 0" },
    ]);
  }
  const last = lastEnd(transcript);
  if (duration < last) {
    throw invalidRequest("duration is before the end of the last segment", [
      { path: "/duration", message: `must be >= the last segment's end (${last} s)` },
    ]);
  }
  const minChapterSec = readNumberOption(input.minChapterSec, {
    path: "/minChapterSec",
    fallback: DEFAULT_MIN_CHAPTER_SEC,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
  });
  const maxChapters = readNumberOption(input.maxChapters, {
    path: "/maxChapters",
    fallback: defaultMaxChapters(duration, minChapterSec),
    min: 1,
    max: MAX_CHAPTERS_LIMIT,
    integer: true,
  });

  const doc = buildTimedDocument(transcript, duration);
  const tooShort = duration < 2 * minChapterSec || doc.units.length < 2 || maxChapters < 2;
  const starts = tooShort ? [] : findChapterStarts(doc, { duration, minChapterSec, maxChapters });
  const unitStarts = [0, ...starts];
  const times = unitStarts.map((u, i) => (i === 0 ? 0 : round3((doc.units[u] as TimedUnit).start)));
  const tokenStarts = unitStarts.map((u) => (doc.units[u] as TimedUnit | undefined)?.tokenStart ?? 0);
  const titles = titleChapters(doc, tokenStarts);
  return {
    chapters: times.map((start, i) => ({
      start,
      end: i + 1 < times.length ? (times[i + 1] as number) : duration,
      title: titles[i] as string,
    })),
  };
}
