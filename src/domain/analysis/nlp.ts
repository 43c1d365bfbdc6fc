/**
 * Thin wrapper over wink-nlp: one parse of a text into flat per-token arrays (offsets,
 * normal form, lemma, part of speech, kind, stop-word flag) and sentence ranges.
 * The model is loaded once per process; per-token look-ups are memoised per distinct
 * token in a parse, and per word across parses in bounded per-process memos
 * ({@link WORD_MEMO_LIMIT}), because wink's `its.*` accessors dominate the cost on long texts.
 */

import type { LRUCache } from "lru-cache";
import type { ItsFunction, WinkMethods } from "wink-nlp";
import { isCapitalisedCommonWord } from "./truecase.ts";
import { intrinsicLexiconSize, modelKnows, modelWordMemo, withWink } from "./wink-instance.ts";

/** Universal POS tags as wink reports them. */
export type PosTag =
  | "ADJ"
  | "ADP"
  | "ADV"
  | "AUX"
  | "CCONJ"
  | "DET"
  | "INTJ"
  | "NOUN"
  | "NUM"
  | "PART"
  | "PRON"
  | "PROPN"
  | "PUNCT"
  | "SCONJ"
  | "SYM"
  | "VERB"
  | "X"
  | "SPACE"
  | "UNK";

/** Coarse token kind derived from wink's token type. */
export type TokenKind = "word" | "number" | "punctuation" | "symbol" | "space" | "other";

/** A parsed text: parallel arrays indexed by token, plus sentence token ranges. */
export interface ParsedText {
  text: string;
  /** Number of tokens. */
  size: number;
  /** Character offset of each token's first character in `text`. */
  start: Int32Array;
  /** Character offset just past each token. */
  end: Int32Array;
  /** Surface form as written. */
  value: string[];
  /** Lower-cased normal form (contractions expanded: "n't" → "not"). */
  normal: string[];
  /** Lemma (lower case), e.g. "cameras" → "camera". */
  lemma: string[];
  /** Part of speech; "UNK" when the parse ran without the tagger. */
  pos: PosTag[];
  kind: TokenKind[];
  /** 1 when wink lists the normal form as an English stop word. */
  stop: Uint8Array;
  /** 1 when the token contains at least one letter of any script. */
  lettered: Uint8Array;
  /** 1 when the token carries topic content (see {@link isContentToken}). */
  content: Uint8Array;
  /**
   * Surface-form id of each token, in [0, forms): tokens with the same id have the same
   * `value`, `normal` and `kind` (ids are per parse, for memoising per distinct word).
   */
  form: Int32Array;
  /** Number of surface-form ids. */
  forms: number;
  /** Sentence ranges as token indices: sentence s covers [sentenceStart[s], sentenceEnd[s]). */
  sentenceStart: number[];
  sentenceEnd: number[];
}

/** Which wink pipes a parse needs; fewer pipes parse faster. */
export interface ParseOptions {
  /** Run the part-of-speech tagger (about half the parse time). */
  pos: boolean;
  /** Run sentence boundary detection; without it, every line of the text is one sentence. */
  sentences: boolean;
  /** Look up lemmas (default true); without, `lemma` holds the normal form. */
  lemmas?: boolean;
}

/** wink's pipe for `opts`: sentence detection and the POS tagger only when asked for. */
export function pipeFor(opts: ParseOptions): string[] {
  const pipe: string[] = [];
  if (opts.sentences) pipe.push("sbd");
  if (opts.pos) pipe.push("pos");
  return pipe;
}

/**
 * Distinct words kept by each per-process word memo (`lru-cache`, least recently used
 * dropped first; the lemma memo keeps twice as many). A 3-hour talk has about 6,000
 * distinct words.
 */
export const WORD_MEMO_LIMIT = 16_384;

/**
 * Memos of wink's per-word facts for the model's own words (see `modelWordMemo`): they
 * live with the wink instance and change costs only, never results.
 */
function memosOf(nlp: WinkMethods): {
  /** Facts of non-contraction tokens by wink id. */
  info: LRUCache<number, TokenInfo>;
  /** Lemmas of non-contraction words by `id × LEMMA_STRIDE + POS index × 2`. */
  lemma: LRUCache<number, string>;
} {
  return {
    info: modelWordMemo<TokenInfo>(nlp, "parse-info", WORD_MEMO_LIMIT),
    lemma: modelWordMemo<string>(nlp, "parse-lemma", 2 * WORD_MEMO_LIMIT),
  };
}

/** Token kind of each wink token type (`its.type`). */
export const KIND_OF_TYPE: Readonly<Record<string, TokenKind>> = {
  word: "word",
  number: "number",
  ordinal: "number",
  punctuation: "punctuation",
  quoted_phrase: "punctuation",
  symbol: "symbol",
  currency: "symbol",
  emoji: "symbol",
  emoticon: "symbol",
  tabCRLF: "space",
  unk: "word",
};

/** Any letter of any script. */
export const LETTER = /\p{L}/u;
/** Scripts written without spaces between words: wink returns a whole run as one token. */
export const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const SENTENCE_FINAL = /^[。！？!?．.]+$/u;

let wordSegmenter: Intl.Segmenter | undefined;
/** The process's ICU word segmenter (`Intl.Segmenter`, Unicode UAX #29, language-neutral). */
export function getWordSegmenter(): Intl.Segmenter {
  wordSegmenter ??= new Intl.Segmenter("und", { granularity: "word" });
  return wordSegmenter;
}

interface TokenInfo {
  value: string;
  normal: string;
  kind: TokenKind;
  stop: number;
  lettered: number;
  /** Whether the token is a run of an unspaced script that needs splitting. */
  unspaced: boolean;
  /** Content token before the POS test (see {@link isContentToken}). */
  lexicalContent: boolean;
}

const POS_TAGS: readonly PosTag[] = [
  "ADJ",
  "ADP",
  "ADV",
  "AUX",
  "CCONJ",
  "DET",
  "INTJ",
  "NOUN",
  "NUM",
  "PART",
  "PRON",
  "PROPN",
  "PUNCT",
  "SCONJ",
  "SYM",
  "VERB",
  "X",
  "SPACE",
  "UNK",
];
const POS_INDEX: Record<string, number> = {};
for (const [i, tag] of POS_TAGS.entries()) POS_INDEX[tag] = i;
/** Memo stride per distinct token: one lemma slot per (POS, contraction flag). */
const LEMMA_STRIDE = 2 * POS_TAGS.length;

/** Parts of speech that never carry topic content (pronouns, determiners, auxiliaries…). */
const FUNCTION_POS: ReadonlySet<string> = new Set([
  "PRON",
  "DET",
  "AUX",
  "CCONJ",
  "SCONJ",
  "ADP",
  "PART",
  "INTJ",
  "PUNCT",
  "SYM",
]);

/** Growable column store for {@link ParsedText}: typed arrays plus preallocated string columns. */
class Columns {
  size = 0;
  start: Int32Array;
  end: Int32Array;
  stop: Uint8Array;
  lettered: Uint8Array;
  content: Uint8Array;
  form: Int32Array;
  forms = 0;
  value: string[];
  normal: string[];
  lemma: string[];
  pos: PosTag[];
  kind: TokenKind[];
  /** Token indices after which a sentence ends, non-decreasing (duplicates allowed). */
  breaksAfter: number[] = [];

  constructor(capacity: number) {
    const c = Math.max(16, capacity);
    this.start = new Int32Array(c);
    this.end = new Int32Array(c);
    this.stop = new Uint8Array(c);
    this.lettered = new Uint8Array(c);
    this.content = new Uint8Array(c);
    this.form = new Int32Array(c);
    this.value = new Array<string>(c);
    this.normal = new Array<string>(c);
    this.lemma = new Array<string>(c);
    this.pos = new Array<PosTag>(c);
    this.kind = new Array<TokenKind>(c);
  }

  private grow(): void {
    const c = this.start.length * 2;
    const g32 = (a: Int32Array) => {
      const b = new Int32Array(c);
      b.set(a);
      return b;
    };
    const g8 = (a: Uint8Array) => {
      const b = new Uint8Array(c);
      b.set(a);
      return b;
    };
    this.start = g32(this.start);
    this.end = g32(this.end);
    this.stop = g8(this.stop);
    this.lettered = g8(this.lettered);
    this.content = g8(this.content);
    this.form = g32(this.form);
  }

  push(
    start: number,
    value: string,
    lemma: string,
    pos: PosTag,
    info: TokenInfo,
    content: boolean,
    form: number,
  ): void {
    if (this.size === this.start.length) this.grow();
    const i = this.size++;
    this.form[i] = form;
    this.start[i] = start;
    this.end[i] = start + value.length;
    this.value[i] = value;
    this.normal[i] = info.normal;
    this.lemma[i] = lemma;
    this.pos[i] = pos;
    this.kind[i] = info.kind;
    this.stop[i] = info.stop;
    this.lettered[i] = info.lettered;
    this.content[i] = content ? 1 : 0;
  }

  /** Trims the columns to `size` and derives the sentence ranges. */
  finish(text: string): ParsedText {
    const size = this.size;
    for (const col of [this.value, this.normal, this.lemma, this.pos, this.kind]) col.length = size;
    const sentenceStart: number[] = [];
    const sentenceEnd: number[] = [];
    const breaks = this.breaksAfter;
    let k = 0;
    let s0 = 0;
    for (let i = 0; i < size; i++) {
      while (k < breaks.length && (breaks[k] as number) < i) k++;
      if ((k < breaks.length && breaks[k] === i) || i === size - 1) {
        sentenceStart.push(s0);
        sentenceEnd.push(i + 1);
        s0 = i + 1;
      }
    }
    return {
      text,
      size,
      start: this.start.subarray(0, size),
      end: this.end.subarray(0, size),
      value: this.value,
      normal: this.normal,
      lemma: this.lemma,
      pos: this.pos,
      kind: this.kind,
      stop: this.stop.subarray(0, size),
      lettered: this.lettered.subarray(0, size),
      content: this.content.subarray(0, size),
      form: this.form.subarray(0, size),
      forms: this.forms,
      sentenceStart,
      sentenceEnd,
    };
  }

  addBreak(): void {
    const last = this.size - 1;
    const breaks = this.breaksAfter;
    if (last >= 0 && breaks[breaks.length - 1] !== last) breaks.push(last);
  }
}

/**
 * Lexical part of {@link isContentToken}: a lettered, non-stop, non-filler word of ≥ 2
 * characters (one is enough in an unspaced script such as Chinese).
 *
 * @param stop, lettered - 1 or 0.
 */
export function isLexicalContent(kind: TokenKind, normal: string, stop: number, lettered: number): boolean {
  if (kind !== "word" || lettered === 0 || stop === 1) return false;
  if (normal.length < 2 && !UNSPACED_SCRIPT.test(normal)) return false;
  return !FILLERS.has(normal);
}

const WORD_INFO: TokenInfo = {
  value: "",
  normal: "",
  kind: "word",
  stop: 0,
  lettered: 1,
  unspaced: false,
  lexicalContent: true,
};
const MARK_INFO: TokenInfo = {
  value: "",
  normal: "",
  kind: "punctuation",
  stop: 0,
  lettered: 0,
  unspaced: false,
  lexicalContent: false,
};

/**
 * Splits a run of an unspaced script (Chinese, Japanese, Thai…) into words with ICU's
 * segmenter; `formOf` gives the surface-form id of a word.
 */
function pushUnspacedRun(
  b: Columns,
  value: string,
  offset: number,
  formOf: (value: string, info: TokenInfo) => number,
): void {
  for (const seg of getWordSegmenter().segment(value)) {
    const v = seg.segment;
    if (v.trim() === "") continue;
    const isWord = seg.isWordLike === true && LETTER.test(v);
    const lower = v.toLowerCase();
    const info = isWord ? WORD_INFO : MARK_INFO;
    const content = isWord && isLexicalContent("word", lower, 0, 1);
    const wordInfo = { ...info, value: v, normal: lower };
    b.push(offset + seg.index, v, lower, isWord ? "X" : "PUNCT", wordInfo, content, formOf(v, wordInfo));
    if (!isWord && SENTENCE_FINAL.test(v)) b.addBreak();
  }
}

/** `text.startsWith(value, at)` as a plain loop, which is cheaper per token for short values. */
function holdsAt(text: string, value: string, at: number): boolean {
  const n = value.length;
  if (n === 0) return true;
  if (at + n > text.length) return false;
  for (let k = 0; k < n; k++) if (text.charCodeAt(at + k) !== value.charCodeAt(k)) return false;
  return true;
}

/** Largest wink lexeme id in `ids` (ids index wink's lexicon cache). */
function maxOf(ids: number[]): number {
  let m = 0;
  for (let i = 0; i < ids.length; i++) if ((ids[i] as number) > m) m = ids[i] as number;
  return m;
}

/**
 * Parses `text` once with wink-nlp (wink-eng-lite-web-model) and returns flat token arrays.
 * Non-English text degrades gracefully: unknown words keep their lower-cased form as lemma,
 * runs of unspaced scripts are split with `Intl.Segmenter`, and sentence-final CJK
 * punctuation ends a sentence.
 *
 * With both `pos` and `sentences`, a sentence whose first word wink tagged as a proper noun
 * although the lexicon knows it as a common word ("Engineers inspect…") is tagged again with
 * that word in lower case (`retagSentenceStarts`); values, offsets and sentences stay as written.
 *
 * Cost: wink's pipeline (tokenizer, then sentence detection and the POS tagger when asked
 * for) dominates; the per-token wink accessors are called once per distinct token (and
 * per distinct POS for lemmas), not once per token. The re-tagging parses only the sentences
 * it re-tags (none in the generated 3-hour talk, 6 % of the prose bench's sentences).
 */
export function parseText(text: string, opts: ParseOptions): ParsedText {
  return withWink(pipeFor(opts), (nlp) => {
    const parsed = parseWith(nlp, text, opts);
    if (opts.pos && opts.sentences) retagSentenceStarts(nlp, parsed, opts);
    return parsed;
  });
}

/** A token that starts with a capital letter. */
const STARTS_CAPITALISED = /^\p{Lu}/u;

/**
 * Re-tags the sentences whose first word wink tagged as a proper noun only because a
 * sentence starts there ("Engineers inspect the bridge": "Engineers" PROPN, "inspect"
 * NOUN). Such a sentence is tagged again with its first word in lower case, and its part of
 * speech, lemma and content flags are taken from that second parse ("engineers" NOUN, lemma
 * "engineer"; "inspect" VERB). Which first words qualify is {@link isCapitalisedCommonWord}
 * (wink's lexicon knows the word in lower case only), and not when the next word is
 * capitalised too ("Admiral Nelson"). Values, offsets and sentence ranges stay as parsed:
 * sentence detection reads the capitals, so only the tags are redone. A sentence whose second
 * parse cuts different tokens keeps its first tags. Mutates `parsed`.
 */
function retagSentenceStarts(nlp: WinkMethods, parsed: ParsedText, opts: ParseOptions): void {
  const knows = modelKnows(nlp);
  const { text, value, pos } = parsed;
  const lines: string[] = [];
  const retagged: number[] = [];
  for (let s = 0; s < parsed.sentenceStart.length; s++) {
    const first = parsed.sentenceStart[s] as number;
    const end = parsed.sentenceEnd[s] as number;
    let i = first;
    // The first word, after opening quotes or brackets only ("2 Engineers" does not qualify).
    while (i < end && parsed.kind[i] === "punctuation") i++;
    if (i >= end || parsed.kind[i] !== "word" || pos[i] !== "PROPN") continue;
    const word = value[i] as string;
    if (i + 1 < end && STARTS_CAPITALISED.test(value[i + 1] as string)) continue;
    if (!isCapitalisedCommonWord(word, knows)) continue;
    const from = parsed.start[first] as number;
    const at = parsed.start[i] as number;
    const line = text.slice(from, parsed.end[end - 1] as number).replace(/[\r\n]/g, " ");
    lines.push(line.slice(0, at - from) + word.toLowerCase() + line.slice(at - from + word.length));
    retagged.push(s);
  }
  if (lines.length === 0) return;
  const again = parseWith(nlp, lines.join("\n"), { pos: true, sentences: false, lemmas: opts.lemmas });
  // Line k of the second parse is sentence retagged[k]; take its tags where it cut the same tokens.
  let lineStart = 0;
  let j = 0;
  lines.forEach((line, k) => {
    const lineEnd = lineStart + line.length;
    const s = retagged[k] as number;
    const first = parsed.sentenceStart[s] as number;
    const end = parsed.sentenceEnd[s] as number;
    const j0 = j;
    while (j < again.size && (again.start[j] as number) < lineEnd) j++;
    lineStart = lineEnd + 1;
    if (j - j0 !== end - first) return;
    for (let t = 0; t < end - first; t++) {
      if (again.normal[j0 + t] !== parsed.normal[first + t]) return;
    }
    for (let t = 0; t < end - first; t++) {
      pos[first + t] = again.pos[j0 + t] as PosTag;
      parsed.lemma[first + t] = again.lemma[j0 + t] as string;
      parsed.content[first + t] = again.content[j0 + t] as number;
    }
  });
}

/**
 * Longest run of characters without a space, tab or line break that wink-nlp is given as
 * one piece. wink's tokenizer and its features (the abbreviation test `/[a-z].*\.$/i`, the
 * splitting of punctuation off a piece) take time quadratic in the length of a piece, so a
 * 1,000,000-character "word" would take hours; {@link breakLongRuns} cuts longer runs into
 * pieces of this length. No English word or ordinary URL is affected.
 */
export const MAX_PIECE_CHARS = 64;

/** A text with spaces inserted to cut long runs, and where they were inserted. */
interface CutText {
  text: string;
  /** Offsets in `text` of the inserted spaces, increasing. */
  inserted: number[];
}

/** Whether UTF-16 code unit `c` is a space, tab or line break (what ends a run). */
function isRunBreak(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Inserts a space after every {@link MAX_PIECE_CHARS} characters of a run without a space,
 * tab or line break (never between the two halves of a surrogate pair). Linear in the
 * length of `text`; returns `text` itself with no insertions when no run is that long.
 */
export function breakLongRuns(text: string): CutText {
  const parts: string[] = [];
  const inserted: number[] = [];
  let run = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isRunBreak(c)) {
      run = 0;
      continue;
    }
    const lowSurrogate = c >= 0xdc00 && c <= 0xdfff;
    if (run >= MAX_PIECE_CHARS && !lowSurrogate) {
      parts.push(text.slice(from, i));
      inserted.push(i + inserted.length);
      from = i;
      run = 0;
    }
    run++;
  }
  if (inserted.length === 0) return { text, inserted };
  parts.push(text.slice(from));
  return { text: parts.join(" "), inserted };
}

/** Maps an offset in a {@link CutText}'s text back to the original text (binary search). */
function originalOffset(inserted: number[], offset: number): number {
  let lo = 0;
  let hi = inserted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((inserted[mid] as number) < offset) lo = mid + 1;
    else hi = mid;
  }
  return offset - lo;
}

function parseWith(nlp: WinkMethods, original: string, opts: ParseOptions): ParsedText {
  const its = nlp.its;
  const cut = breakLongRuns(original);
  const text = cut.text;
  const toOriginal =
    cut.inserted.length === 0 ? (o: number) => o : (o: number) => originalOffset(cut.inserted, o);
  const doc = nlp.readDoc(text);
  const tokens = doc.tokens();
  const n = tokens.length();
  const ids = tokens.out(its.uniqueId) as number[];
  const contraction = tokens.out(its.contractionFlag) as boolean[];
  const posTags = (opts.pos ? tokens.out(its.pos) : []) as PosTag[];

  // Memoise per distinct token (and per POS for lemmas): the accessors are the slow part.
  // Slots are dense per parse; wink's ids index its whole lexicon (about 90,000 entries).
  const slotOfId = new Int32Array(maxOf(ids) + 1).fill(-1);
  const infos: TokenInfo[] = [];
  // Contraction parts ("ca" + "n't", "let" + "'s") share ids with other tokens but differ
  // in normal form and lemma, so they are memoised by id and normal form.
  const contractionSlots = new Map<string, number>();
  // Facts and lemmas of words seen before come from the per-process memos; `fresh` counts
  // the words described anew.
  const memo = memosOf(nlp);
  const intrinsic = intrinsicLexiconSize(nlp) ?? 0;
  let fresh = 0;
  const describe = (i: number): TokenInfo => {
    const item = tokens.itemAt(i);
    const type = String(item.out(its.type));
    const normal = String(item.out(its.normal));
    const lettered = LETTER.test(normal) ? 1 : 0;
    const kind = KIND_OF_TYPE[type] ?? "other";
    const stop = item.out(its.stopWordFlag) === true ? 1 : 0;
    return {
      value: String(item.out(its.value)),
      normal,
      kind,
      stop,
      lettered,
      unspaced: lettered === 1 && normal.length > 1 && UNSPACED_SCRIPT.test(normal),
      lexicalContent: isLexicalContent(kind, normal, stop, lettered),
    };
  };
  const slotAt = (i: number): number => {
    const id = ids[i] as number;
    if (!contraction[i]) {
      let slot = slotOfId[id] as number;
      if (slot < 0) {
        slot = infos.length;
        const stable = id < intrinsic;
        let info = stable ? memo.info.get(id) : undefined;
        if (info === undefined) {
          info = describe(i);
          if (stable) memo.info.set(id, info);
          fresh++;
        }
        infos.push(info);
        slotOfId[id] = slot;
      }
      return slot;
    }
    const key = `${id} ${String(tokens.itemAt(i).out(its.normal))}`;
    let slot = contractionSlots.get(key);
    if (slot === undefined) {
      slot = infos.length;
      infos.push(describe(i));
      contractionSlots.set(key, slot);
    }
    return slot;
  };

  // Words cut out of unspaced runs get their own surface forms (keyed by value and kind).
  const unspacedSlots = new Map<string, number>();
  const unspacedForm = (value: string, info: TokenInfo): number => {
    const key = `${info.kind} ${value}`;
    let slot = unspacedSlots.get(key);
    if (slot === undefined) {
      slot = infos.length;
      infos.push(info);
      unspacedSlots.set(key, slot);
    }
    return slot;
  };

  // wink's sentence spans ([first, last] token indices), mapped onto the rebuilt token list.
  const winkSentenceEnds = new Uint8Array(n);
  if (opts.sentences) {
    for (const span of doc.sentences().out(its.span) as unknown as number[][]) {
      winkSentenceEnds[span[1] as number] = 1;
    }
  }
  const slots = new Int32Array(n);
  for (let i = 0; i < n; i++) slots[i] = slotAt(i);
  // Lemmas: from the memo, else wink's accessor once per distinct (token, POS) pair when
  // few words are new; when many are, one pass of the lemma column is cheaper than making
  // a wink item per pair (about 0.5 µs each). The lemma is the same either way.
  const wantLemmas = opts.lemmas !== false;
  const lemmaColumn =
    wantLemmas && fresh * 8 > n
      ? (tokens.out(its.lemma as unknown as ItsFunction<string>) as string[])
      : null;
  const lowered = new Map<string, string>();
  // Lemma of each (slot, POS) pair met in this parse, as an index into `lemmaList` (0: not
  // yet): most tokens repeat a pair, and a typed-array read is far cheaper than the LRU memo.
  const lemmaRef = new Int32Array(wantLemmas ? infos.length * POS_TAGS.length : 0);
  const lemmaList: string[] = [""];

  const b = new Columns(n);
  let cursor = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && winkSentenceEnds[i - 1] === 1) b.addBreak();
    const slot = slots[i] as number;
    const info = infos[slot] as TokenInfo;
    const value = info.value;
    // Offsets: wink is lossless except for whitespace, so the token is usually found right
    // after the spaces at the cursor; otherwise search forward from the cursor.
    let at = cursor;
    while (text.charCodeAt(at) === 32) at++;
    let start = at;
    if (!holdsAt(text, value, at)) {
      // Searching a bounded window keeps a token wink rewrote from costing a scan of the text.
      const found = text.slice(cursor, cursor + 255 + value.length).indexOf(value);
      start = found >= 0 ? cursor + found : cursor;
    }
    cursor = start + value.length;
    if (info.kind === "space") {
      // Without sentence detection, each line is a sentence (callers join units with "\n").
      if (!opts.sentences && value.includes("\n")) b.addBreak();
      continue;
    }
    if (info.unspaced) {
      pushUnspacedRun(b, value, toOriginal(start), unspacedForm);
      continue;
    }
    const pos = opts.pos ? (posTags[i] ?? "X") : "UNK";
    let lemma = info.normal;
    if (wantLemmas && info.kind === "word" && info.lettered === 1) {
      const posIndex = POS_INDEX[pos] ?? 0;
      const ref = slot * POS_TAGS.length + posIndex;
      let l = lemmaList[lemmaRef[ref] as number] as string;
      if (lemmaRef[ref] === 0) {
        const wordKey =
          contraction[i] || (ids[i] as number) >= intrinsic
            ? -1
            : (ids[i] as number) * LEMMA_STRIDE + posIndex * 2;
        let found = wordKey >= 0 ? memo.lemma.get(wordKey) : undefined;
        if (found === undefined) {
          if (lemmaColumn !== null) {
            const raw = String(lemmaColumn[i]);
            found = lowered.get(raw);
            if (found === undefined) {
              found = raw.toLowerCase();
              lowered.set(raw, found);
            }
          } else {
            // wink's typings declare `its.lemma` with an extra `addons` parameter that `out` supplies.
            found = String(tokens.itemAt(i).out(its.lemma as unknown as ItsFunction<string>)).toLowerCase();
          }
          if (wordKey >= 0) memo.lemma.set(wordKey, found);
        }
        l = found;
        lemmaRef[ref] = lemmaList.push(l) - 1;
      }
      lemma = l;
    }
    b.push(toOriginal(start), value, lemma, pos, info, info.lexicalContent && !FUNCTION_POS.has(pos), slot);
  }
  b.forms = infos.length;
  return b.finish(original);
}

/** Filler words of spoken English that carry no topic. */
export const FILLERS: ReadonlySet<string> = new Set([
  "um",
  "uh",
  "uhm",
  "erm",
  "er",
  "ah",
  "hmm",
  "mm",
  "mhm",
  "yeah",
  "yep",
  "okay",
  "ok",
  "oh",
  "like",
  "gonna",
  "wanna",
  "gotta",
  "kinda",
  "sorta",
]);

/**
 * True when token `i` carries topic content: a lettered word that is neither a stop word
 * nor a filler, and (when tagged) not a pronoun, determiner, auxiliary and the like.
 * Precomputed by {@link parseText} (column `content`).
 */
export function isContentToken(p: ParsedText, i: number): boolean {
  return p.content[i] === 1;
}
