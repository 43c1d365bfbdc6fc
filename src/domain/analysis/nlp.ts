/**
 * Thin wrapper over wink-nlp: one parse of a text into flat per-token arrays (offsets,
 * normal form, lemma, part of speech, kind, stop-word flag) and sentence ranges.
 * The model is loaded once per process; per-token look-ups are memoised per distinct
 * token in a parse because wink's `its.*` accessors dominate the cost on long texts.
 */
import model from "wink-eng-lite-web-model";
import winkNLP, { type ItsFunction, type WinkMethods } from "wink-nlp";

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

const instances = new Map<string, WinkMethods>();

function getNlp(opts: ParseOptions): WinkMethods {
  const pipe: string[] = [];
  if (opts.sentences) pipe.push("sbd");
  if (opts.pos) pipe.push("pos");
  const key = pipe.join(",");
  let nlp = instances.get(key);
  if (!nlp) {
    nlp = winkNLP(model, pipe);
    instances.set(key, nlp);
  }
  return nlp;
}

const KIND_OF_TYPE: Record<string, TokenKind> = {
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

const LETTER = /\p{L}/u;
/** Scripts written without spaces between words: wink returns a whole run as one token. */
export const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const SENTENCE_FINAL = /^[。！？!?．.]+$/u;

let wordSegmenter: Intl.Segmenter | undefined;
function getWordSegmenter(): Intl.Segmenter {
  wordSegmenter ??= new Intl.Segmenter("und", { granularity: "word" });
  return wordSegmenter;
}

interface TokenInfo {
  normal: string;
  kind: TokenKind;
  stop: number;
  lettered: number;
  /** Whether the token is a run of an unspaced script that needs splitting. */
  unspaced: boolean;
}

const POS_INDEX: Record<string, number> = {};
for (const [i, tag] of [
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
].entries()) {
  POS_INDEX[tag] = i;
}

/** Growable column store for {@link ParsedText}. */
class Columns {
  size = 0;
  start: Int32Array;
  end: Int32Array;
  value: string[] = [];
  normal: string[] = [];
  lemma: string[] = [];
  pos: PosTag[] = [];
  kind: TokenKind[] = [];
  stop: Uint8Array;
  lettered: Uint8Array;
  breaksAfter = new Set<number>();

  constructor(capacity: number) {
    const c = Math.max(16, capacity);
    this.start = new Int32Array(c);
    this.end = new Int32Array(c);
    this.stop = new Uint8Array(c);
    this.lettered = new Uint8Array(c);
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
  }

  push(start: number, value: string, normal: string, lemma: string, pos: PosTag, info: TokenInfo): void {
    if (this.size === this.start.length) this.grow();
    const i = this.size++;
    this.start[i] = start;
    this.end[i] = start + value.length;
    this.value.push(value);
    this.normal.push(normal);
    this.lemma.push(lemma);
    this.pos.push(pos);
    this.kind.push(info.kind);
    this.stop[i] = info.stop;
    this.lettered[i] = info.lettered;
  }
}

const WORD_INFO: TokenInfo = { normal: "", kind: "word", stop: 0, lettered: 1, unspaced: false };
const MARK_INFO: TokenInfo = { normal: "", kind: "punctuation", stop: 0, lettered: 0, unspaced: false };

/** Splits a run of an unspaced script (Chinese, Japanese, Thai…) into words with ICU's segmenter. */
function pushUnspacedRun(b: Columns, value: string, offset: number): void {
  for (const seg of getWordSegmenter().segment(value)) {
    const v = seg.segment;
    if (v.trim() === "") continue;
    const isWord = seg.isWordLike === true && LETTER.test(v);
    const lower = v.toLowerCase();
    b.push(offset + seg.index, v, lower, lower, isWord ? "X" : "PUNCT", isWord ? WORD_INFO : MARK_INFO);
    if (!isWord && SENTENCE_FINAL.test(v)) b.breaksAfter.add(b.size - 1);
  }
}

/**
 * Parses `text` once with wink-nlp (wink-eng-lite-web-model) and returns flat token arrays.
 * Non-English text degrades gracefully: unknown words keep their lower-cased form as lemma,
 * runs of unspaced scripts are split with `Intl.Segmenter`, and sentence-final CJK
 * punctuation ends a sentence.
 */
export function parseText(text: string, opts: ParseOptions): ParsedText {
  const nlp = getNlp(opts);
  const its = nlp.its;
  const doc = nlp.readDoc(text);
  const tokens = doc.tokens();
  const n = tokens.length();
  const ids = tokens.out(its.uniqueId) as number[];
  const values = tokens.out(its.value) as string[];
  const contraction = tokens.out(its.contractionFlag) as boolean[];
  const posTags = (opts.pos ? tokens.out(its.pos) : []) as PosTag[];

  // Memoise per distinct token (and per POS for lemmas): the accessors are the slow part.
  const infoById = new Map<number, TokenInfo>();
  const lemmaByKey = new Map<number, string>();
  const infoOf = (i: number): TokenInfo => {
    const id = ids[i] as number;
    const cached = contraction[i] ? undefined : infoById.get(id);
    if (cached) return cached;
    const item = tokens.itemAt(i);
    const type = String(item.out(its.type));
    const normal = String(item.out(its.normal));
    const lettered = LETTER.test(normal) ? 1 : 0;
    const info: TokenInfo = {
      normal,
      kind: KIND_OF_TYPE[type] ?? "other",
      stop: item.out(its.stopWordFlag) === true ? 1 : 0,
      lettered,
      unspaced: lettered === 1 && normal.length > 1 && UNSPACED_SCRIPT.test(normal),
    };
    if (!contraction[i]) infoById.set(id, info);
    return info;
  };

  // wink's sentence spans ([first, last] token indices), mapped onto the rebuilt token list.
  const winkSentenceEnds = new Uint8Array(n);
  if (opts.sentences) {
    for (const span of doc.sentences().out(its.span) as unknown as number[][]) {
      winkSentenceEnds[span[1] as number] = 1;
    }
  }
  const b = new Columns(n);
  const wantLemmas = opts.lemmas !== false;
  let cursor = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && winkSentenceEnds[i - 1] === 1 && b.size > 0) b.breaksAfter.add(b.size - 1);
    const value = values[i] as string;
    // Offsets: wink is lossless except for some whitespace, so search forward from the cursor.
    const found = text.indexOf(value, cursor);
    const start = found >= 0 && found - cursor < 256 ? found : cursor;
    cursor = start + value.length;
    const info = infoOf(i);
    if (info.kind === "space") {
      // Without sentence detection, each line is a sentence (callers join units with "\n").
      if (!opts.sentences && b.size > 0 && value.includes("\n")) b.breaksAfter.add(b.size - 1);
      continue;
    }
    if (info.unspaced) {
      pushUnspacedRun(b, value, start);
      continue;
    }
    const pos = opts.pos ? (posTags[i] ?? "X") : "UNK";
    let lemma = info.normal;
    if (wantLemmas && info.kind === "word" && info.lettered === 1) {
      const key = (ids[i] as number) * 64 + (POS_INDEX[pos] ?? 0) * 2 + (contraction[i] ? 1 : 0);
      let l = lemmaByKey.get(key);
      if (l === undefined) {
        // wink's typings declare `its.lemma` with an extra `addons` parameter that `out` supplies.
        l = String(tokens.itemAt(i).out(its.lemma as unknown as ItsFunction<string>)).toLowerCase();
        lemmaByKey.set(key, l);
      }
      lemma = l;
    }
    b.push(start, value, info.normal, lemma, pos, info);
  }

  const size = b.size;
  const sentenceStart: number[] = [];
  const sentenceEnd: number[] = [];
  let s0 = 0;
  for (let i = 0; i < size; i++) {
    if (b.breaksAfter.has(i) || i === size - 1) {
      sentenceStart.push(s0);
      sentenceEnd.push(i + 1);
      s0 = i + 1;
    }
  }
  return {
    text,
    size,
    start: b.start.subarray(0, size),
    end: b.end.subarray(0, size),
    value: b.value,
    normal: b.normal,
    lemma: b.lemma,
    pos: b.pos,
    kind: b.kind,
    stop: b.stop.subarray(0, size),
    lettered: b.lettered.subarray(0, size),
    sentenceStart,
    sentenceEnd,
  };
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
 */
export function isContentToken(p: ParsedText, i: number): boolean {
  if (p.kind[i] !== "word" || p.lettered[i] === 0 || p.stop[i] === 1) return false;
  const norm = p.normal[i] as string;
  if (norm.length < 2 && !UNSPACED_SCRIPT.test(norm)) return false;
  if (FILLERS.has(norm)) return false;
  switch (p.pos[i]) {
    case "PRON":
    case "DET":
    case "AUX":
    case "CCONJ":
    case "SCONJ":
    case "ADP":
    case "PART":
    case "INTJ":
    case "PUNCT":
    case "SYM":
      return false;
    default:
      return true;
  }
}

/** Lexical facts about one distinct token, as the tokenizer-only scan reports them. */
export interface Lexeme {
  value: string;
  normal: string;
  kind: TokenKind;
  /** A line break (the scan's piece separator). */
  newline: boolean;
  stop: boolean;
  /** Lettered, not a stop word or filler, at least two characters. */
  content: boolean;
}

/** Tokenizer-only scan: each token as an index into a table of distinct lexemes. */
export interface LexicalScan {
  size: number;
  lexeme: Int32Array;
  lexemes: Lexeme[];
}

/**
 * The cheapest wink pass (tokenizer and lexicon only, no tagger, no sentence detection),
 * for scoring long inputs quickly. Lines of `text` (joined with "\n") come back separated
 * by `newline` lexemes, so callers can map tokens to lines without character offsets.
 */
export function scanLexemes(text: string): LexicalScan {
  const nlp = getNlp({ pos: false, sentences: false });
  const its = nlp.its;
  const tokens = nlp.readDoc(text).tokens();
  const n = tokens.length();
  const ids = tokens.out(its.uniqueId) as number[];
  const contraction = tokens.out(its.contractionFlag) as boolean[];
  const slot: number[] = [];
  const lexemes: Lexeme[] = [];
  const lexeme = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const id = ids[i] as number;
    // Contractions ("ca" + "n't") share ids with other tokens but differ in normal form.
    let k = contraction[i] ? undefined : slot[id];
    if (k === undefined) {
      const item = tokens.itemAt(i);
      const type = String(item.out(its.type));
      const value = String(item.out(its.value));
      const normal = String(item.out(its.normal));
      const stop = item.out(its.stopWordFlag) === true;
      const kind = KIND_OF_TYPE[type] ?? "other";
      k = lexemes.length;
      lexemes.push({
        value,
        normal,
        kind,
        newline: kind === "space" && value.includes("\n"),
        stop,
        content:
          kind === "word" && !stop && LETTER.test(normal) && [...normal].length >= 2 && !FILLERS.has(normal),
      });
      if (!contraction[i]) slot[id] = k;
    }
    lexeme[i] = k;
  }
  return { size: n, lexeme, lexemes };
}
