/**
 * B-roll suggestions: where a cut-away would help a talking-head edit. Stretches of speech
 * are scored for concrete, filmable nouns and names, numbers and lists, and long runs
 * without a visual change; inserts of `windowSec` are placed by weighted interval
 * scheduling at least `minGapSec` apart.
 *
 * Two passes keep it fast on long inputs: words cut by ICU's segmenter (no tagger) score
 * every candidate window and pick a compatible pool; only the words inside pooled windows
 * are parsed and POS-tagged by wink-nlp and rescored. Before tagging, sentence-initial
 * common words are lower-cased (`truecaseSentenceStarts`): wink tags every capitalised word
 * at a sentence start as a proper noun, which made keywords of "Rest" or "Welcome".
 */
import { invalidRequest } from "../../errors.ts";
import {
  aggregatePhrases,
  findPhraseOccurrences,
  GENERIC_NOUNS,
  type PhraseOccurrence,
  selectDistinct,
} from "./key-phrases.ts";
import { FILLERS, isContentToken, type ParsedText, parseText } from "./nlp.ts";
import { indexTerms } from "./terms.ts";
import {
  lastEnd,
  readNumberOption,
  type Segment,
  type TimedPiece,
  toTimedText,
  validateSegments,
} from "./transcript.ts";
import { truecaseSentenceStarts } from "./truecase.ts";
import { modelKnows, withWink } from "./wink-instance.ts";
import { scanWords } from "./word-scan.ts";

/** Request of `POST /api/v1/broll/suggest`. */
export interface SuggestBrollInput {
  /** Timed subtitle segments (seconds). */
  subtitles: Segment[];
  /** Least time in seconds between the end of one insert and the start of the next (default 10). */
  minGapSec?: number;
  /** Length of each insert in seconds (default 4, at most 60). */
  windowSec?: number;
}

/** One suggested insert. */
export interface BrollSuggestion {
  /** Seconds; `end - start` equals `windowSec`; within the subtitles' span. */
  start: number;
  end: number;
  /** What is said during the insert (the overlapping subtitles). */
  text: string;
  /** Visual key terms said there, most useful first. */
  keywords: string[];
  /** A stock-footage search query. */
  query: string;
  /** How much a cut-away would help, 0..1. */
  score: number;
  /** One sentence saying why. */
  reason: string;
}

/** Response of `POST /api/v1/broll/suggest`. */
export interface SuggestBrollOutput {
  /** Sorted by start; never overlapping; gaps ≥ `minGapSec`. */
  suggestions: BrollSuggestion[];
}

/** Scoring constants, chosen on the hand-checked fixtures in test/fixtures/analysis. */
export const BROLL_TUNING = {
  /** Least final score to suggest an insert. */
  minScore: 0.45,
  /** First-pass score above which a window adds weight to the pool schedule. */
  poolScore: 0.2,
  /** Least first-pass score for a pooled window to be POS-tagged and rescored. */
  tagScore: 0.3,
  /** Seconds of talking without a visual change at which the run factor saturates. */
  runSaturationSec: 45,
  /** A pause this long (seconds) counts as a visual change. */
  changePauseSec: 2,
};

const DEFAULT_GAP = 10;
const DEFAULT_WINDOW = 4;

/** Abstract-noun endings (and gerunds): such nouns rarely have a picture. */
const ABSTRACT_SUFFIX =
  /(?:tion|sion|ness|ity|ment|ism|ance|ence|ancy|ency|ship|hood|dom|ology|acy|ude|ing)$/u;
/** Common abstract nouns without a telling suffix. */
const ABSTRACT_NOUNS: ReadonlySet<string> = new Set(
  (
    "mind mindset thought truth success failure fear love hope goal dream belief value effort change skill " +
    "talent process shift opinion advice knowledge memory context concept theory strategy purpose future past " +
    "chance luck trust habit discipline progress feel anything reality risk rule plan fact detail topic " +
    "subject reason aspect focus kind"
  ).split(" "),
);

/** True for a noun lemma with a likely picture. */
function isConcreteNoun(lemma: string): boolean {
  return !GENERIC_NOUNS.has(lemma) && !ABSTRACT_NOUNS.has(lemma) && !ABSTRACT_SUFFIX.test(lemma);
}
const NUMBER_WORDS: ReadonlySet<string> = new Set(
  (
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred " +
    "thousand million billion percent dozen half"
  ).split(" "),
);
const LIST_WORDS: ReadonlySet<string> = new Set(
  "first second third fourth fifth finally next lastly step steps tip tips number".split(" "),
);
const TITLE_OR_ACRONYM = /^(?:\p{Lu}[\p{Ll}\p{M}'’-]+|[\p{Lu}\d]{2,6})$/u;

/** Per-segment counts (first pass without POS, second with). */
interface Features {
  words: number;
  /** Concrete nouns (second pass) or content words × ½ (first pass). */
  concrete: number;
  names: number;
  numbers: number;
  lists: number;
}

const zero = (): Features => ({ words: 0, concrete: 0, names: 0, numbers: 0, lists: 0 });

/** A validated subtitle segment in start order (see `toTimedText`) with its text. */
interface Piece extends TimedPiece {
  text: string;
}

/** First-pass features of every piece, as columns (one entry per piece). */
interface FeatureTable {
  words: Float64Array;
  concrete: Float64Array;
  names: Float64Array;
  numbers: Float64Array;
  lists: Float64Array;
}

function featureTable(n: number): FeatureTable {
  return {
    words: new Float64Array(n),
    concrete: new Float64Array(n),
    names: new Float64Array(n),
    numbers: new Float64Array(n),
    lists: new Float64Array(n),
  };
}

/** Assigns each token of `parsed` to the piece whose character range holds it. */
function tokensByPiece(
  parsed: ParsedText,
  pieces: Array<{ charStart: number; charEnd: number }>,
): number[][] {
  const out: number[][] = pieces.map(() => []);
  let p = 0;
  for (let i = 0; i < parsed.size; i++) {
    const at = parsed.start[i] as number;
    while (p + 1 < pieces.length && at >= (pieces[p + 1] as { charStart: number }).charStart) p++;
    (out[p] as number[]).push(i);
  }
  return out;
}

/**
 * First-pass features of every piece, from its words as ICU's word segmenter cuts them
 * (see `scanWords`): no POS tags, so content words count half as concrete nouns and
 * capitalised words or acronyms inside a sentence count as names.
 */
function firstPassFeatures(pieces: Piece[]): FeatureTable {
  const scan = scanWords(pieces.map((p) => p.text));
  // Per distinct lexeme: bit 1 number, 2 list word, 4 comma, 8 word, 16 content, 32 name-like, 64 sentence end.
  const flags = scan.lexemes.map((lx) => {
    let b = 0;
    if (lx.kind === "number" || NUMBER_WORDS.has(lx.normal)) b |= 1;
    if (lx.kind === "word" && LIST_WORDS.has(lx.normal)) b |= 2;
    if (lx.normal === ",") b |= 4;
    if (lx.kind === "word") b |= 8;
    if (lx.content) b |= 16;
    if (TITLE_OR_ACRONYM.test(lx.value)) b |= 32;
    if (lx.value === "." || lx.value === "!" || lx.value === "?") b |= 64;
    return b;
  });
  const t = featureTable(pieces.length);
  for (let f = 0; f < pieces.length; f++) {
    let sentenceInitial = true;
    for (let i = scan.lineStart[f] as number; i < (scan.lineStart[f + 1] as number); i++) {
      const b = flags[scan.lexeme[i] as number] as number;
      if (b & 1) t.numbers[f] = (t.numbers[f] as number) + 1;
      if (b & 8) {
        t.words[f] = (t.words[f] as number) + 1;
        if (b & 2) t.lists[f] = (t.lists[f] as number) + 1;
        if (b & 16) {
          if (!sentenceInitial && b & 32) t.names[f] = (t.names[f] as number) + 1;
          else t.concrete[f] = (t.concrete[f] as number) + 0.5;
        }
      } else if (b & 4) t.lists[f] = (t.lists[f] as number) + 0.5;
      sentenceInitial = (b & 64) !== 0;
    }
  }
  return t;
}

function secondPassFeatures(parsed: ParsedText, tokens: number[]): Features {
  const f = zero();
  for (const i of tokens) {
    const kind = parsed.kind[i];
    const norm = parsed.normal[i] as string;
    const pos = parsed.pos[i];
    if (kind === "number" || pos === "NUM" || NUMBER_WORDS.has(norm)) f.numbers++;
    if (kind !== "word") {
      if (norm === ",") f.lists += 0.5;
      continue;
    }
    f.words++;
    if (LIST_WORDS.has(norm)) f.lists++;
    if (!isContentToken(parsed, i) || GENERIC_NOUNS.has(parsed.lemma[i] as string)) continue;
    if (pos === "PROPN") f.names++;
    else if (pos === "NOUN" && isConcreteNoun(parsed.lemma[i] as string)) f.concrete++;
    else if (pos === "X") f.concrete += 0.3; // unknown language: some content, little certainty
  }
  return f;
}

/**
 * Candidate windows as columns: window w is [start[w], end[w]), `runSec[w]` seconds after
 * the last visual change, overlapping pieces piece[first[w]] … piece[first[w + 1] - 1],
 * each with the overlapping share of its duration.
 */
interface Windows {
  count: number;
  start: Float64Array;
  end: Float64Array;
  runSec: Float64Array;
  first: Int32Array;
  piece: Int32Array;
  share: Float64Array;
}

/**
 * The words said inside the window: each overlapping piece's text cut at the characters
 * matching the window's start and end (speech assumed even within a piece), widened to
 * whole words; and `before`, what was said just before its first word (earlier in that
 * piece, else the previous piece; "" at the start of the transcript).
 */
function spokenWithin(ws: Windows, w: number, pieces: Piece[]): { text: string; before: string } {
  const out: string[] = [];
  const wStart = ws.start[w] as number;
  const wEnd = ws.end[w] as number;
  let before: string | undefined;
  for (let k = ws.first[w] as number; k < (ws.first[w + 1] as number); k++) {
    const index = ws.piece[k] as number;
    const p = pieces[index] as Piece;
    const len = p.end - p.start;
    const n = p.text.length;
    let a = 0;
    let b = n;
    if (len > 0) {
      a = Math.max(0, Math.floor(((wStart - p.start) / len) * n));
      b = Math.min(n, Math.ceil(((wEnd - p.start) / len) * n));
      while (a > 0 && p.text[a - 1] !== " ") a--;
      while (b < n && p.text[b] !== " ") b++;
    }
    const slice = p.text.slice(a, b);
    if (before === undefined && slice.trim() !== "") {
      before = p.text.slice(0, a + slice.length - slice.trimStart().length).trim();
      if (before === "") before = index > 0 ? (pieces[index - 1] as Piece).text : "";
    }
    out.push(slice);
  }
  return { text: out.join(" ").trim(), before: before ?? "" };
}

/** The texts of the pieces overlapping window w, joined. */
function said(ws: Windows, w: number, pieces: Piece[]): string {
  const parts: string[] = [];
  for (let k = ws.first[w] as number; k < (ws.first[w + 1] as number); k++) {
    parts.push((pieces[ws.piece[k] as number] as Piece).text);
  }
  return parts.join(" ").trim();
}

/** First-pass features of window w (into `f`): its pieces' features weighted by the overlapping share. */
function windowFeatures(ws: Windows, w: number, t: FeatureTable, f: Features): Features {
  f.words = 0;
  f.concrete = 0;
  f.names = 0;
  f.numbers = 0;
  f.lists = 0;
  for (let k = ws.first[w] as number; k < (ws.first[w + 1] as number); k++) {
    const p = ws.piece[k] as number;
    const share = ws.share[k] as number;
    f.words += share * (t.words[p] as number);
    f.concrete += share * (t.concrete[p] as number);
    f.names += share * (t.names[p] as number);
    f.numbers += share * (t.numbers[p] as number);
    f.lists += share * (t.lists[p] as number);
  }
  return f;
}

interface Score {
  total: number;
  visual: number;
  info: number;
  run: number;
}

function scoreWindow(f: Features, runSec: number, windowSec: number): Score {
  const visual = 1 - Math.exp(-(f.concrete + 1.5 * f.names) / 2.5);
  const info = 1 - Math.exp(-(f.numbers + 0.7 * f.lists) / 2);
  const run = Math.min(1, runSec / BROLL_TUNING.runSaturationSec);
  // Speech density: an insert over silence or one word helps little.
  const talk = Math.min(1, f.words / Math.max(1, 1.5 * windowSec));
  const total = Math.min(1, Math.max(0, talk * (0.6 * visual + 0.2 * info + 0.2 * run)));
  return { total, visual, info, run };
}

/**
 * Weighted interval scheduling (Kleinberg & Tardos 2005, §6.1) of equal-length windows
 * sorted by start: the most total weight with start(next) ≥ end(prev) + gap.
 */
function schedule(ws: Windows, weight: (i: number) => number, gap: number): number[] {
  const n = ws.count;
  const best = new Float64Array(n + 1);
  const take = new Uint8Array(n + 1);
  const prevOf = new Int32Array(n + 1);
  for (let j = 1; j <= n; j++) {
    const wStart = ws.start[j - 1] as number;
    // Last window i (1-based) with end + gap ≤ start of w.
    let lo = 0;
    let hi = j - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((ws.end[mid - 1] as number) + gap <= wStart + 1e-9) lo = mid;
      else hi = mid - 1;
    }
    prevOf[j] = lo;
    const withJ = weight(j - 1) + (best[lo] as number);
    if (weight(j - 1) > 0 && withJ > (best[j - 1] as number)) {
      best[j] = withJ;
      take[j] = 1;
    } else {
      best[j] = best[j - 1] as number;
    }
  }
  const chosen: number[] = [];
  for (let j = n; j > 0; ) {
    if (take[j] === 1) {
      chosen.push(j - 1);
      j = prevOf[j] as number;
    } else j--;
  }
  return chosen.reverse();
}

/** Builds candidate windows: one starting at each segment start, clamped into the span. */
function candidateWindows(pieces: Piece[], windowSec: number): Windows | undefined {
  let spanStart = Number.POSITIVE_INFINITY;
  let spanEnd = Number.NEGATIVE_INFINITY;
  let maxLen = 0;
  for (const p of pieces) {
    spanStart = Math.min(spanStart, p.start);
    spanEnd = Math.max(spanEnd, p.end);
    maxLen = Math.max(maxLen, p.end - p.start);
  }
  if (spanEnd - spanStart < windowSec) return undefined;
  // Visual changes: speaker changes and long pauses (by start order).
  const changes: number[] = [spanStart];
  let maxEnd = (pieces[0] as Piece).end;
  for (let i = 1; i < pieces.length; i++) {
    const p = pieces[i] as Piece;
    const q = pieces[i - 1] as Piece;
    const speakerChange = p.speaker !== undefined && q.speaker !== undefined && p.speaker !== q.speaker;
    if (speakerChange || p.start - maxEnd >= BROLL_TUNING.changePauseSec) changes.push(p.start);
    maxEnd = Math.max(maxEnd, p.end);
  }
  // Millisecond starts, clamped so that start + windowSec stays inside the span; distinct, ascending.
  const lastStart = Math.floor((spanEnd - windowSec) * 1000) / 1000;
  const firstStart = Math.ceil(spanStart * 1000) / 1000;
  const sorted = Float64Array.from(pieces, (p) =>
    Math.min(lastStart, Math.max(firstStart, Math.round(p.start * 1000) / 1000)),
  ).sort();
  const starts: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i] as number;
    if (s >= spanStart && s !== starts[starts.length - 1]) starts.push(s);
  }
  const n = starts.length;
  const ws: Windows = {
    count: n,
    start: Float64Array.from(starts),
    end: new Float64Array(n),
    runSec: new Float64Array(n),
    first: new Int32Array(n + 1),
    piece: new Int32Array(0),
    share: new Float64Array(0),
  };
  const piece: number[] = [];
  const share: number[] = [];
  let c = 0;
  let lo = 0;
  for (let w = 0; w < n; w++) {
    const start = ws.start[w] as number;
    const end = start + windowSec;
    ws.end[w] = end;
    while (c + 1 < changes.length && (changes[c + 1] as number) <= start) c++;
    while (lo < pieces.length && (pieces[lo] as Piece).start < start - maxLen) lo++;
    for (let i = lo; i < pieces.length && (pieces[i] as Piece).start < end; i++) {
      const p = pieces[i] as Piece;
      const overlap = Math.min(end, p.end) - Math.max(start, p.start);
      const len = p.end - p.start;
      if (overlap > 0 || (len === 0 && p.start >= start)) {
        piece.push(i);
        share.push(len > 0 ? overlap / len : 1);
      }
    }
    ws.first[w + 1] = piece.length;
    ws.runSec[w] = start - (changes[c] as number);
  }
  ws.piece = Int32Array.from(piece);
  ws.share = Float64Array.from(share);
  return ws;
}

function describe(score: Score, keywords: string[], runSec: number): string {
  const list = keywords.slice(0, 2).join(" and ");
  const run = runSec >= 20 ? ` after ${Math.round(runSec)} s of talking without a visual change` : "";
  if (score.visual >= score.info && list !== "") {
    return `Mentions ${list}, which footage can show${run}.`;
  }
  if (score.info > 0.3) {
    return `Gives numbers or a list${list ? ` about ${list}` : ""} that a cut-away or graphic can support${run}.`;
  }
  return `A long stretch of talking${run || " without a visual change"} that a cut-away would break up.`;
}

/**
 * Suggests where B-roll (cut-away footage) would help, for a talking-head edit.
 *
 * Every segment start is a candidate insert of `windowSec`. A window's score (0..1) grows
 * with the concrete, picturable nouns (POS-tagged NOUN without abstract suffixes or generic
 * meaning), proper nouns, numbers and list cues said during it, and with the talking time
 * since the last visual change (speaker change or pause ≥ 2 s); it shrinks over silence.
 * Inserts are chosen by weighted interval scheduling (maximum total score) so that any two
 * are ≥ `minGapSec` apart, then those under the score threshold are dropped.
 *
 * @returns suggestions sorted by start, each exactly `windowSec` long, within
 *   [first segment start, last segment end], never overlapping, ≥ `minGapSec` apart, with
 *   the spoken text, keywords, a stock-footage query, a score in 0..1 and a one-sentence
 *   reason. Deterministic; empty when the span is shorter than `windowSec`.
 * @throws AppError 400 `invalid_request` (`/subtitles`, `/subtitles/3/end`, `/minGapSec`,
 *   `/windowSec`) for blank or bad subtitles or options; 413 beyond 50,000 segments.
 */
export function suggestBroll(input: SuggestBrollInput): SuggestBrollOutput {
  if (typeof input !== "object" || input === null) {
    throw invalidRequest("body must be an object", [{ path: "", message: "must be an object" }]);
  }
  const subtitles = validateSegments(input.subtitles, "/subtitles");
  const minGapSec = readNumberOption(input.minGapSec, {
    path: "/minGapSec",
    fallback: DEFAULT_GAP,
    min: 0,
    max: 86_400,
  });
  const windowSec = readNumberOption(input.windowSec, {
    path: "/windowSec",
    fallback: DEFAULT_WINDOW,
    min: 0,
    minExclusive: true,
    max: 60,
  });
  const timed = toTimedText(subtitles, lastEnd(subtitles));
  const pieces = timed.pieces as Piece[];
  for (const p of pieces) p.text = timed.text.slice(p.charStart, p.charEnd);
  if (pieces.length === 0) return { suggestions: [] };
  const windows = candidateWindows(pieces, windowSec);
  if (windows === undefined || windows.count === 0) return { suggestions: [] };

  // Pass 1: ICU words and wink's stop-word list, over everything.
  const first = firstPassFeatures(pieces);
  const score1 = new Float64Array(windows.count);
  const scratch = zero();
  for (let w = 0; w < windows.count; w++) {
    score1[w] = scoreWindow(
      windowFeatures(windows, w, first, scratch),
      windows.runSec[w] as number,
      windowSec,
    ).total;
  }
  const pool = schedule(windows, (i) => (score1[i] as number) - BROLL_TUNING.poolScore, minGapSec).filter(
    (i) => (score1[i] as number) >= BROLL_TUNING.tagScore,
  );
  if (pool.length === 0) return { suggestions: [] };

  // Pass 2: POS-tag only what is said inside the pooled windows, one line per window, with
  // sentence-initial common words lower-cased so that they are not tagged as names.
  const parts: string[] = [];
  const ranges: Array<{ charStart: number; charEnd: number }> = [];
  let offset = 0;
  withWink(["pos"], (nlp) => {
    const knows = modelKnows(nlp);
    for (const wi of pool) {
      const { text, before } = spokenWithin(windows, wi, pieces);
      ranges.push({ charStart: offset, charEnd: offset + text.length });
      parts.push(truecaseSentenceStarts(text, before, knows));
      offset += text.length + 1;
    }
  });
  const parsed2 = parseText(parts.join("\n"), { pos: true, sentences: false });
  const terms2 = indexTerms(parsed2);
  const byWindow = tokensByPiece(parsed2, ranges);
  const occurrences = findPhraseOccurrences(parsed2, terms2);
  const occurrencesByWindow: PhraseOccurrence[][] = pool.map(() => []);
  let r = 0;
  for (const o of occurrences) {
    while (
      r + 1 < ranges.length &&
      (parsed2.start[o.token] as number) >= (ranges[r + 1] as { charStart: number }).charStart
    )
      r++;
    (occurrencesByWindow[r] as PhraseOccurrence[]).push(o);
  }

  const suggestions: BrollSuggestion[] = [];
  pool.forEach((wi, k) => {
    const runSec = windows.runSec[wi] as number;
    const s = scoreWindow(secondPassFeatures(parsed2, byWindow[k] as number[]), runSec, windowSec);
    if (s.total < BROLL_TUNING.minScore) return;
    const phrases = aggregatePhrases(occurrencesByWindow[k] as PhraseOccurrence[])
      .filter((p) => {
        const head = p.firstToken + p.words - 1;
        const pos = parsed2.pos[head];
        if (p.terms.some((t) => FILLERS.has(terms2.vocabulary[t] as string))) return false;
        return (
          pos === "PROPN" || pos === "X" || (pos === "NOUN" && isConcreteNoun(parsed2.lemma[head] as string))
        );
      })
      .sort((a, b) => {
        const pa = parsed2.pos[a.firstToken] === "PROPN" ? 1 : 0;
        const pb = parsed2.pos[b.firstToken] === "PROPN" ? 1 : 0;
        return pb - pa || b.words - a.words || b.count - a.count || a.firstToken - b.firstToken;
      });
    const keywords = selectDistinct(phrases, 5).map((p) => p.display);
    if (keywords.length === 0) return;
    let query = "";
    for (const kw of keywords) {
      const next = query === "" ? kw : `${query} ${kw}`;
      if (next.split(" ").length > 5) break;
      query = next;
    }
    suggestions.push({
      start: windows.start[wi] as number,
      // toFixed drops float noise (4.1 + 4 = 8.100000000000001) without moving the end.
      end: Number((windows.end[wi] as number).toFixed(6)),
      text: said(windows, wi, pieces),
      keywords,
      query: query || (keywords[0] as string),
      score: Math.round(s.total * 1000) / 1000,
      reason: describe(s, keywords, runSec),
    });
  });
  return { suggestions };
}
