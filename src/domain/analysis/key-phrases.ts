/**
 * Key-phrase candidates and ranking. Candidates are maximal runs of nouns, proper nouns
 * and adjectives ending in a noun (the noun-phrase filter of Mihalcea & Tarau 2004 and
 * Hulth 2003); words are ranked with TextRank (Mihalcea & Tarau 2004, "TextRank: Bringing
 * Order into Texts", EMNLP) and phrases by their words' ranks and frequency. Chapter
 * titles use TF-IDF of phrases against the other chapters (Salton & Buckley 1988).
 */
import { isContentToken, type ParsedText, type PosTag, UNSPACED_SCRIPT } from "./nlp.ts";
import type { TermIndex } from "./terms.ts";

/** One occurrence of a candidate phrase. */
export interface PhraseOccurrence {
  /** Lemma key, e.g. "espresso machine". */
  key: string;
  /** Term ids of the phrase's words. */
  terms: number[];
  /** Readable form: proper nouns and acronyms keep their case, other words are lower-cased. */
  display: string;
  /** Index of the first token. */
  token: number;
  /** False for the shorter noun-final tails also emitted for counting ("espresso machine" in "new espresso machine"). */
  maximal: boolean;
}

/** A distinct candidate phrase with its occurrences aggregated. */
export interface Phrase {
  key: string;
  terms: number[];
  /** Most frequent readable form. */
  display: string;
  count: number;
  /** First token where it occurs. */
  firstToken: number;
  /** Number of words. */
  words: number;
}

/** Nouns too generic to name a topic or a picture. */
export const GENERIC_NOUNS: ReadonlySet<string> = new Set(
  (
    "thing stuff lot lots way kind sort bit type people person guy guys gal folks everyone everybody someone " +
    "somebody something anything nothing everything time times moment today tomorrow yesterday tonight " +
    "question answer problem idea reason fact example case point part number side end start beginning " +
    "place area lot yes no sir man woman right okay deal matter issue stage step course sense word words " +
    "version piece level job work world life year years day days week weeks month months minute minutes " +
    "second seconds hour hours use result results group fine story channel video comments comment plan " +
    "plenty everyone hey hi hello thanks bye lot guys"
  ).split(" "),
);

/** Adjectives that say nothing about the topic ("new", "great"); dropped from the front of phrases. */
export const GENERIC_ADJECTIVES: ReadonlySet<string> = new Set(
  (
    "new old good great bad big small little huge massive nice real whole different same other few many " +
    "much more most own best better worse worst certain main entire full high low large long short next " +
    "last first second third actual basic simple easy hard important key awesome amazing cool crazy " +
    "incredible quick fast slow"
  ).split(" "),
);

const PHRASE_POS: ReadonlySet<PosTag> = new Set<PosTag>(["NOUN", "PROPN", "ADJ", "X", "UNK"]);
const HEAD_POS: ReadonlySet<PosTag> = new Set<PosTag>(["NOUN", "PROPN", "X", "UNK"]);
const MAX_PHRASE_WORDS = 4;
const ACRONYM = /^[\p{Lu}\d]{2,6}$/u;
const TITLE_CASE = /^\p{Lu}[\p{Ll}\p{M}'’-]+$/u;

function isPhraseToken(p: ParsedText, i: number): boolean {
  if (!isContentToken(p, i) || !PHRASE_POS.has(p.pos[i] as PosTag)) return false;
  return !GENERIC_NOUNS.has(p.lemma[i] as string);
}

/** Tokens of an unknown language stand alone: without stop words, runs would swallow function words. */
function isStandalone(p: ParsedText, i: number): boolean {
  return p.pos[i] === "X";
}

function isLongEnoughAlone(p: ParsedText, i: number): boolean {
  const v = p.normal[i] as string;
  return UNSPACED_SCRIPT.test(v) ? [...v].length >= 2 : [...v].length >= 4;
}

function displayWord(p: ParsedText, i: number, sentenceInitial: boolean): string {
  const v = p.value[i] as string;
  if (p.pos[i] === "PROPN" || ACRONYM.test(v)) return v;
  if (!sentenceInitial && TITLE_CASE.test(v) && p.pos[i] !== "ADJ") return v;
  return v.toLowerCase();
}

/**
 * Candidate phrase occurrences in tokens [from, to) of `parsed`, one per maximal run of
 * phrase words (capped to its last four words), never crossing a sentence boundary.
 */
export function findPhraseOccurrences(
  parsed: ParsedText,
  index: TermIndex,
  from = 0,
  to = parsed.size,
): PhraseOccurrence[] {
  const out: PhraseOccurrence[] = [];
  const sentenceStarts = new Set(parsed.sentenceStart);
  const emit = (first: number, last: number, maximal: boolean) => {
    const terms: number[] = [];
    const lemmas: string[] = [];
    const words: string[] = [];
    for (let i = first; i <= last; i++) {
      terms.push(index.termOf[i] as number);
      lemmas.push(parsed.lemma[i] as string);
      words.push(displayWord(parsed, i, sentenceStarts.has(i)));
    }
    out.push({ key: lemmas.join(" "), terms, display: words.join(" "), token: first, maximal });
  };
  let runStart = -1;
  const flush = (end: number) => {
    if (runStart < 0) return;
    let last = end - 1;
    while (last >= runStart && !HEAD_POS.has(parsed.pos[last] as PosTag)) last--;
    let first = Math.max(runStart, last - MAX_PHRASE_WORDS + 1);
    while (first < last && GENERIC_ADJECTIVES.has(parsed.lemma[first] as string)) first++;
    if (last >= first) {
      emit(first, last, true);
      // Noun-final tails, so "espresso machine" is counted inside "compact espresso machine".
      for (let f = first + 1; f <= last; f++) emit(f, last, false);
    }
    runStart = -1;
  };
  for (let i = from; i < to; i++) {
    if (sentenceStarts.has(i)) flush(i);
    if (isPhraseToken(parsed, i) && (index.termOf[i] as number) >= 0) {
      if (isStandalone(parsed, i)) {
        flush(i);
        if (isLongEnoughAlone(parsed, i)) emit(i, i, true);
        continue;
      }
      if (runStart < 0) runStart = i;
    } else {
      flush(i);
    }
  }
  flush(to);
  return out;
}

/** Groups occurrences by lemma key, keeping the most frequent display form. */
export function aggregatePhrases(occurrences: PhraseOccurrence[]): Phrase[] {
  const byKey = new Map<string, { phrase: Phrase; forms: Map<string, number> }>();
  for (const o of occurrences) {
    let e = byKey.get(o.key);
    if (!e) {
      e = {
        phrase: {
          key: o.key,
          terms: o.terms,
          display: o.display,
          count: 0,
          firstToken: o.token,
          words: o.terms.length,
        },
        forms: new Map(),
      };
      byKey.set(o.key, e);
    }
    e.phrase.count++;
    e.forms.set(o.display, (e.forms.get(o.display) ?? 0) + 1);
  }
  const out: Phrase[] = [];
  for (const { phrase, forms } of byKey.values()) {
    let bestForm = phrase.display;
    let bestN = 0;
    for (const [form, n] of forms) {
      if (n > bestN) {
        bestForm = form;
        bestN = n;
      }
    }
    phrase.display = bestForm;
    out.push(phrase);
  }
  return out;
}

/**
 * TextRank word scores: PageRank (d = 0.85, 40 iterations) on the undirected co-occurrence
 * graph of phrase words within a window of 2 consecutive candidate words (Mihalcea & Tarau 2004).
 * Returns a score per term id (0 for terms never in a candidate).
 */
export function rankWords(occurrences: PhraseOccurrence[], vocabularySize: number): Float64Array {
  const V = vocabularySize;
  // Undirected edge weights keyed by (min, max) pair; then a CSR adjacency for the power steps.
  const weights = new Map<number, number>();
  const isNode = new Uint8Array(V);
  const link = (a: number, b: number) => {
    if (a === b) return;
    const key = a < b ? a * V + b : b * V + a;
    weights.set(key, (weights.get(key) ?? 0) + 1);
  };
  let prev = -1;
  let prevToken = -10;
  for (const o of occurrences) {
    if (!o.maximal) continue;
    for (let j = 0; j < o.terms.length; j++) {
      isNode[o.terms[j] as number] = 1;
      if (j > 0) link(o.terms[j - 1] as number, o.terms[j] as number);
    }
    // Adjacent phrases (a few tokens apart) are also neighbours in the filtered word sequence.
    if (prev >= 0 && o.token - prevToken <= 4) link(prev, o.terms[0] as number);
    prev = o.terms[o.terms.length - 1] as number;
    prevToken = o.token + o.terms.length - 1;
  }
  const score = new Float64Array(V);
  const degree = new Int32Array(V + 1);
  for (const key of weights.keys()) {
    degree[Math.floor(key / V)] = (degree[Math.floor(key / V)] as number) + 1;
    degree[key % V] = (degree[key % V] as number) + 1;
  }
  const rowPtr = new Int32Array(V + 1);
  for (let v = 0; v < V; v++) rowPtr[v + 1] = (rowPtr[v] as number) + (degree[v] as number);
  const fill = rowPtr.slice(0, V);
  const col = new Int32Array(rowPtr[V] as number);
  const wt = new Float64Array(rowPtr[V] as number);
  const strength = new Float64Array(V);
  // Insertion in key order keeps the floating-point sums deterministic.
  for (const key of [...weights.keys()].sort((a, b) => a - b)) {
    const a = Math.floor(key / V);
    const b = key % V;
    const w = weights.get(key) as number;
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const at = fill[x] as number;
      col[at] = y;
      wt[at] = w;
      fill[x] = at + 1;
      strength[x] = (strength[x] as number) + w;
    }
  }
  for (let v = 0; v < V; v++) if (isNode[v] === 1) score[v] = 1;
  const share = new Float64Array(V);
  const d = 0.85;
  for (let iter = 0; iter < 40; iter++) {
    for (let u = 0; u < V; u++)
      share[u] = (strength[u] as number) > 0 ? (score[u] as number) / (strength[u] as number) : 0;
    let change = 0;
    for (let v = 0; v < V; v++) {
      if (isNode[v] === 0) continue;
      let s = 0;
      for (let j = rowPtr[v] as number, e = rowPtr[v + 1] as number; j < e; j++) {
        s += (wt[j] as number) * (share[col[j] as number] as number);
      }
      const next = 1 - d + d * s;
      change += Math.abs(next - (score[v] as number));
      score[v] = next;
    }
    if (change < 1e-6) break;
  }
  return score;
}

/**
 * Ranks phrases for a whole text: mean TextRank of the words × words^0.75 × (1 + ln count),
 * then keeps at most `limit`, dropping any phrase whose lemmas are a subset or superset of
 * an earlier one ("espresso" after "espresso machine"), so no lemma set repeats.
 */
export function rankKeyPhrases(phrases: Phrase[], wordScore: Float64Array, limit: number): Phrase[] {
  const scored = phrases.map((p) => {
    let s = 0;
    for (const t of p.terms) s += wordScore[t] as number;
    const mean = s / p.terms.length;
    return { p, score: mean * p.words ** 0.75 * (1 + Math.log(p.count)) };
  });
  scored.sort((a, b) => b.score - a.score || a.p.firstToken - b.p.firstToken || (a.p.key < b.p.key ? -1 : 1));
  return selectDistinct(
    scored.map((s) => s.p),
    limit,
  );
}

/** Keeps phrases in order, skipping those whose lemma set nests with a kept one. */
export function selectDistinct(ordered: Phrase[], limit: number, taken: Phrase[] = []): Phrase[] {
  const kept: Phrase[] = [];
  const sets = taken.map((p) => new Set(p.terms));
  for (const p of ordered) {
    if (kept.length >= limit) break;
    const mine = new Set(p.terms);
    const nested = sets.some((s) => isSubset(mine, s) || isSubset(s, mine));
    if (nested) continue;
    kept.push(p);
    sets.push(mine);
  }
  return kept;
}

function isSubset(a: Set<number>, b: Set<number>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** Upper-cases the first letter (sentence case); the rest keeps its readable casing. */
export function sentenceCase(s: string): string {
  const first = s.codePointAt(0);
  if (first === undefined) return s;
  const ch = String.fromCodePoint(first);
  return ch.toUpperCase() + s.slice(ch.length);
}
