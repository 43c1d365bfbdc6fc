/**
 * Key-phrase candidates and ranking. Candidates are maximal runs of nouns, proper nouns
 * and adjectives ending in a noun (the noun-phrase filter of Mihalcea & Tarau 2004 and
 * Hulth 2003); words are ranked with TextRank (Mihalcea & Tarau 2004, "TextRank: Bringing
 * Order into Texts", EMNLP) and phrases by their words' ranks and frequency. Chapter
 * titles use TF-IDF of phrases against the other chapters (Salton & Buckley 1988).
 */
import TinyQueue from "tinyqueue";
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

/** A node of a trie over integer sequences (term ids, display words). */
interface TrieNode<T> {
  next: Map<number, TrieNode<T>> | undefined;
  value: T | undefined;
}

const trieNode = <T>(): TrieNode<T> => ({ next: undefined, value: undefined });

function child<T>(node: TrieNode<T>, key: number): TrieNode<T> {
  node.next ??= new Map();
  let c = node.next.get(key);
  if (c === undefined) {
    c = trieNode<T>();
    node.next.set(key, c);
  }
  return c;
}

/** A distinct phrase of one {@link findPhraseOccurrences} call, with its display forms. */
interface PhraseEntry {
  key: string;
  terms: number[];
  forms: TrieNode<string>;
}

/**
 * Candidate phrase occurrences in tokens [from, to) of `parsed`, one per maximal run of
 * phrase words (capped to its last four words), never crossing a sentence boundary.
 * Occurrences of the same phrase (and display form) share their `key`, `terms` and
 * `display` values, which are built once per distinct phrase and form.
 */
export function findPhraseOccurrences(
  parsed: ParsedText,
  index: TermIndex,
  from = 0,
  to = parsed.size,
): PhraseOccurrence[] {
  const out: PhraseOccurrence[] = [];
  const sentenceInitial = new Uint8Array(parsed.size + 1);
  for (const s of parsed.sentenceStart) sentenceInitial[s] = 1;
  // Per surface form: 1 = known, 2 = acronym, 4 = title case; and its lower-cased value.
  const formFlags = new Uint8Array(parsed.forms);
  const lowered: Array<string | undefined> = new Array(parsed.forms);
  const phrases = trieNode<PhraseEntry>();
  /** Display word of token i, as a key: 2·form + 1 when the word keeps its case. */
  const displayKey = (i: number): number => {
    const form = parsed.form[i] as number;
    let flags = formFlags[form] as number;
    if (flags === 0) {
      const v = parsed.value[i] as string;
      flags = 1 | (ACRONYM.test(v) ? 2 : 0) | (TITLE_CASE.test(v) ? 4 : 0);
      formFlags[form] = flags;
    }
    const pos = parsed.pos[i];
    const keep =
      pos === "PROPN" ||
      (flags & 2) !== 0 ||
      (sentenceInitial[i] === 0 && (flags & 4) !== 0 && pos !== "ADJ");
    return 2 * form + (keep ? 1 : 0);
  };
  const displayWord = (i: number, key: number): string => {
    const v = parsed.value[i] as string;
    if ((key & 1) === 1) return v;
    const form = parsed.form[i] as number;
    let low = lowered[form];
    if (low === undefined) {
      low = v.toLowerCase();
      lowered[form] = low;
    }
    return low;
  };
  const keys = new Int32Array(MAX_PHRASE_WORDS);
  const emit = (first: number, last: number, maximal: boolean) => {
    let node = phrases;
    for (let i = first; i <= last; i++) node = child(node, index.termOf[i] as number);
    let entry = node.value;
    if (entry === undefined) {
      const terms: number[] = [];
      const lemmas: string[] = [];
      for (let i = first; i <= last; i++) {
        terms.push(index.termOf[i] as number);
        lemmas.push(parsed.lemma[i] as string);
      }
      entry = { key: lemmas.join(" "), terms, forms: trieNode<string>() };
      node.value = entry;
    }
    // Display keys, last word first: a capitalised adjective inside a sentence keeps its case
    // before a word that keeps its own ("Soviet Union", "New York"; wink tags them ADJ).
    for (let i = last; i >= first; i--) {
      let key = displayKey(i);
      if (
        (key & 1) === 0 &&
        i < last &&
        ((keys[i + 1 - first] as number) & 1) === 1 &&
        parsed.pos[i] === "ADJ" &&
        sentenceInitial[i] === 0 &&
        ((formFlags[parsed.form[i] as number] as number) & 4) !== 0
      ) {
        key |= 1;
      }
      keys[i - first] = key;
    }
    let formNode = entry.forms;
    for (let i = first; i <= last; i++) formNode = child(formNode, keys[i - first] as number);
    let display = formNode.value;
    if (display === undefined) {
      const words: string[] = [];
      for (let i = first; i <= last; i++) words.push(displayWord(i, keys[i - first] as number));
      display = words.join(" ");
      formNode.value = display;
    }
    out.push({ key: entry.key, terms: entry.terms, display, token: first, maximal });
  };
  let runStart = -1;
  const flush = (end: number) => {
    if (runStart < 0) return;
    let last = end - 1;
    while (last >= runStart && !HEAD_POS.has(parsed.pos[last] as PosTag)) last--;
    let first = Math.max(runStart, last - MAX_PHRASE_WORDS + 1);
    // Generic adjectives ("new", "great") are dropped from the front, unless capitalised inside
    // a sentence before a proper noun: then they are part of a name ("New York").
    while (
      first < last &&
      GENERIC_ADJECTIVES.has(parsed.lemma[first] as string) &&
      !(
        sentenceInitial[first] === 0 &&
        parsed.pos[first + 1] === "PROPN" &&
        TITLE_CASE.test(parsed.value[first] as string)
      )
    )
      first++;
    if (last >= first) {
      emit(first, last, true);
      // Noun-final tails, so "espresso machine" is counted inside "compact espresso machine".
      for (let f = first + 1; f <= last; f++) emit(f, last, false);
    }
    runStart = -1;
  };
  for (let i = from; i < to; i++) {
    if (sentenceInitial[i] === 1) flush(i);
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
  // Most phrases have one display form: a map of forms is made only for those with more.
  interface Entry {
    phrase: Phrase;
    firstForm: string;
    firstCount: number;
    forms: Map<string, number> | undefined;
  }
  const byKey = new Map<string, Entry>();
  const entries: Entry[] = [];
  for (const o of occurrences) {
    let e = byKey.get(o.key);
    if (e === undefined) {
      e = {
        phrase: {
          key: o.key,
          terms: o.terms,
          display: o.display,
          count: 0,
          firstToken: o.token,
          words: o.terms.length,
        },
        firstForm: o.display,
        firstCount: 0,
        forms: undefined,
      };
      byKey.set(o.key, e);
      entries.push(e);
    }
    e.phrase.count++;
    if (e.forms === undefined && o.display === e.firstForm) e.firstCount++;
    else {
      if (e.forms === undefined) e.forms = new Map([[e.firstForm, e.firstCount]]);
      e.forms.set(o.display, (e.forms.get(o.display) ?? 0) + 1);
    }
  }
  const out: Phrase[] = [];
  for (const { phrase, firstForm, forms } of entries) {
    // The most frequent form; the earliest seen among equals.
    let bestForm = firstForm;
    if (forms !== undefined) {
      let bestN = 0;
      for (const [form, n] of forms) {
        if (n > bestN) {
          bestForm = form;
          bestN = n;
        }
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
  // Undirected edges as (min, max) pair keys, one per co-occurrence; sorted, a run of equal
  // keys is one edge whose weight is the run's length. Then a CSR adjacency for the power steps.
  let keys = new Float64Array(1024);
  let links = 0;
  const isNode = new Uint8Array(V);
  const link = (a: number, b: number) => {
    if (a === b) return;
    if (links === keys.length) {
      const grown = new Float64Array(2 * links);
      grown.set(keys);
      keys = grown;
    }
    keys[links++] = a < b ? a * V + b : b * V + a;
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
  const sorted = keys.subarray(0, links).sort();
  const score = new Float64Array(V);
  const degree = new Int32Array(V + 1);
  for (let k = 0; k < links; k++) {
    const key = sorted[k] as number;
    if (k > 0 && sorted[k - 1] === key) continue;
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
  const add = (x: number, y: number, w: number) => {
    const at = fill[x] as number;
    col[at] = y;
    wt[at] = w;
    fill[x] = at + 1;
    strength[x] = (strength[x] as number) + w;
  };
  for (let k = 0; k < links; ) {
    const key = sorted[k] as number;
    let e = k + 1;
    while (e < links && sorted[e] === key) e++;
    const a = Math.floor(key / V);
    const b = key % V;
    add(a, b, e - k);
    add(b, a, e - k);
    k = e;
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
  const score = new Float64Array(phrases.length);
  phrases.forEach((p, i) => {
    let s = 0;
    for (const t of p.terms) s += wordScore[t] as number;
    const mean = s / p.terms.length;
    score[i] = mean * p.words ** 0.75 * (1 + Math.log(p.count));
  });
  const order = (i: number, j: number) => {
    const a = phrases[i] as Phrase;
    const b = phrases[j] as Phrase;
    return (
      (score[j] as number) - (score[i] as number) || a.firstToken - b.firstToken || (a.key < b.key ? -1 : 1)
    );
  };
  return selectDistinct(inOrder(phrases, order), limit);
}

/**
 * Yields `items` sorted by `compare` (on indices into `items`; ties keep the input order,
 * as a stable sort would), lazily: a binary heap (`tinyqueue`) costs O(n) to build and
 * O(log n) per item taken, so taking the first few of thousands of candidates avoids
 * sorting them all.
 */
export function* inOrder<T>(items: readonly T[], compare: (i: number, j: number) => number): Generator<T> {
  const queue = new TinyQueue(Array.from(items.keys()), (i, j) => compare(i, j) || i - j);
  while (queue.length > 0) yield items[queue.pop() as number] as T;
}

/** Keeps phrases in order, skipping those whose lemma set nests with a kept one. */
export function selectDistinct(ordered: Iterable<Phrase>, limit: number, taken: Phrase[] = []): Phrase[] {
  const kept: Phrase[] = [];
  // Term lists are short (at most four words): plain arrays beat sets here.
  const sets: number[][] = taken.map((p) => p.terms);
  for (const p of ordered) {
    if (kept.length >= limit) break;
    const mine = p.terms;
    const nested = sets.some((s) => isSubset(mine, s) || isSubset(s, mine));
    if (nested) continue;
    kept.push(p);
    sets.push(mine);
  }
  return kept;
}

/** Whether every term of `a` is in `b` (as sets). */
function isSubset(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (!b.includes(a[i] as number)) return false;
  return true;
}

/** Upper-cases the first letter (sentence case); the rest keeps its readable casing. */
export function sentenceCase(s: string): string {
  const first = s.codePointAt(0);
  if (first === undefined) return s;
  const ch = String.fromCodePoint(first);
  return ch.toUpperCase() + s.slice(ch.length);
}
