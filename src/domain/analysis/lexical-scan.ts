/**
 * B-roll's cheap first pass: wink-nlp's tokenizer and lexicon only (no tagger, no sentence
 * detection), with each token reported as an index into a table of distinct lexemes.
 *
 * Not memoised across calls on purpose: wink's tokenization of a piece depends on the words
 * the same text added to its lexicon before it (e.g. "Ahab's" stays one token once
 * "(Ahab's)" has been seen), so a memo of piece → tokens would change results, not only
 * costs. Every scan runs in its own `withWink` use, which starts from the model's lexicon;
 * only the facts of the model's own words (by wink id, which never change) are memoised.
 */

import type { WinkMethods } from "wink-nlp";
import { FILLERS, KIND_OF_TYPE, LETTER, type TokenKind, WORD_MEMO_LIMIT } from "./nlp.ts";
import { intrinsicLexiconSize, modelWordMemo, withWink } from "./wink-instance.ts";

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
 * wink's first tokenizer step (the `splitter` of wink-eng-lite-web-model,
 * `([ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f]+|[\n\r\t]+)`): text is cut at runs of
 * spaces, which make no token, and at runs of line breaks or tabs, which are tokens; every
 * other piece is tokenized on its own, without context.
 */
function isWinkSpace(c: number): boolean {
  return (
    c === 32 ||
    c === 0xa0 ||
    (c >= 0x2002 && c <= 0x2005) ||
    c === 0x2009 ||
    c === 0x200a ||
    c === 0x202f ||
    c === 0x205f
  );
}
function isWinkBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 9;
}

/**
 * The cheapest wink pass (tokenizer and lexicon only, no tagger, no sentence detection),
 * for scoring long inputs quickly. Lines of `text` (joined with "\n") come back separated
 * by `newline` lexemes, so callers can map tokens to lines without character offsets.
 *
 * Without the tagger and sentence detection, wink tokenizes each whitespace-separated piece
 * of the text independently of its neighbours, so each distinct piece ("grinder,", "the")
 * is tokenized once and its tokens are repeated wherever it occurs: the result is the
 * token sequence of `readDoc(text)` (tested against {@link scanWhole}), at the cost of the
 * distinct pieces only (about a third of a long talk's characters, much less for
 * repetitive speech).
 */
export function scanLexemes(text: string): LexicalScan {
  return withWink([], (nlp) => scanPieces(nlp, text));
}

/**
 * Distinct pieces of one text, found without slicing or hashing a string per piece: an
 * open-addressing table keyed by a hash of the piece's characters, compared in place.
 * Only the first occurrence of each distinct piece is cut out of the text.
 */
class PieceTable {
  readonly distinct: string[] = [];
  readonly isRun: boolean[] = [];
  private readonly text: string;
  private offset = new Int32Array(1024);
  private hashOf = new Int32Array(1024);
  private slots = new Int32Array(4096).fill(-1);

  constructor(text: string) {
    this.text = text;
  }

  /** Index of the distinct piece equal to text[from, to) with character hash `hash`, added if new. */
  indexOf(from: number, to: number, hash: number, run: boolean): number {
    const text = this.text;
    const length = to - from;
    let mask = this.slots.length - 1;
    let at = hash & mask;
    for (;;) {
      const d = this.slots[at] as number;
      if (d < 0) break;
      if (this.hashOf[d] === hash && (this.distinct[d] as string).length === length) {
        const o = this.offset[d] as number;
        let k = 0;
        while (k < length && text.charCodeAt(o + k) === text.charCodeAt(from + k)) k++;
        if (k === length) return d;
      }
      at = (at + 1) & mask;
    }
    const d = this.distinct.length;
    if (d === this.offset.length) {
      this.offset = grown(this.offset);
      this.hashOf = grown(this.hashOf);
    }
    this.offset[d] = from;
    this.hashOf[d] = hash;
    this.distinct.push(text.slice(from, to));
    this.isRun.push(run);
    if (2 * (d + 1) > this.slots.length) {
      this.rehash();
      mask = this.slots.length - 1;
      at = hash & mask;
      while ((this.slots[at] as number) >= 0) at = (at + 1) & mask;
    }
    this.slots[at] = d;
    return d;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 4).fill(-1);
    const mask = slots.length - 1;
    for (let d = 0; d < this.distinct.length - 1; d++) {
      let at = (this.hashOf[d] as number) & mask;
      while ((slots[at] as number) >= 0) at = (at + 1) & mask;
      slots[at] = d;
    }
    this.slots = slots;
  }
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

function scanPieces(nlp: WinkMethods, text: string): LexicalScan {
  const len = text.length;
  const pieces = new PieceTable(text);
  // Distinct-piece index of each piece and line-break run, in text order.
  const order = new Int32Array(len);
  let count = 0;
  for (let i = 0; i < len; ) {
    const c = text.charCodeAt(i);
    if (isWinkSpace(c)) {
      i++;
      continue;
    }
    const run = isWinkBreak(c);
    // FNV-1a over the piece's UTF-16 code units.
    let hash = Math.imul(0x811c9dc5 ^ c, 0x01000193);
    let j = i + 1;
    for (; j < len; j++) {
      const d = text.charCodeAt(j);
      if (run ? !isWinkBreak(d) : isWinkSpace(d) || isWinkBreak(d)) break;
      hash = Math.imul(hash ^ d, 0x01000193);
    }
    order[count++] = pieces.indexOf(i, j, hash, run);
    i = j;
  }
  const { distinct, isRun } = pieces;
  // Tokens of each distinct piece: one wink pass over all of them, each after one space
  // (wink gives a piece's first token the spaces before it, its other tokens none), and one
  // per distinct line-break run ("\n", "\r\n"…).
  const table = new LexemeTable(nlp);
  const words: string[] = [];
  for (let d = 0; d < distinct.length; d++) if (!isRun[d]) words.push(distinct[d] as string);
  const starts: number[] = [];
  const wordTokens = words.length > 0 ? table.tokenize(` ${words.join(" ")}`, starts) : new Int32Array(0);
  // Defensive: should wink ever start tokens otherwise, scan the text as a whole.
  if (starts.length !== words.length || (words.length > 0 && starts[0] !== 0))
    return scanWholeWith(nlp, text);
  starts.push(wordTokens.length);
  const runTokens: Int32Array[] = [];
  for (let d = 0; d < distinct.length; d++) {
    if (isRun[d]) runTokens.push(table.tokenize(distinct[d] as string));
  }
  let total = wordTokens.length;
  for (const r of runTokens) total += r.length;
  const flat = new Int32Array(total);
  flat.set(wordTokens);
  const first = new Int32Array(distinct.length).fill(-1);
  const length = new Int32Array(distinct.length);
  let w = 0;
  for (let d = 0; d < distinct.length; d++) {
    if (isRun[d]) continue;
    first[d] = starts[w] as number;
    length[d] = (starts[w + 1] as number) - (starts[w] as number);
    w++;
  }
  let at = wordTokens.length;
  let r = 0;
  for (let d = 0; d < distinct.length; d++) {
    if (!isRun[d]) continue;
    const toks = runTokens[r++] as Int32Array;
    flat.set(toks, at);
    first[d] = at;
    length[d] = toks.length;
    at += toks.length;
  }
  let size = 0;
  for (let k = 0; k < count; k++) size += length[order[k] as number] as number;
  const lexeme = new Int32Array(size);
  let o = 0;
  for (let k = 0; k < count; k++) {
    const d = order[k] as number;
    const f = first[d] as number;
    const e = f + (length[d] as number);
    for (let t = f; t < e; t++) lexeme[o++] = flat[t] as number;
  }
  return { size, lexeme, lexemes: table.lexemes };
}

/** {@link scanLexemes} in one wink pass over the whole text. */
export function scanWhole(text: string): LexicalScan {
  return withWink([], (nlp) => scanWholeWith(nlp, text));
}

function scanWholeWith(nlp: WinkMethods, text: string): LexicalScan {
  const table = new LexemeTable(nlp);
  const lexeme = table.tokenize(text);
  return { size: lexeme.length, lexeme, lexemes: table.lexemes };
}

function makeLexeme(value: string, normal: string, type: string, stop: boolean): Lexeme {
  const kind = KIND_OF_TYPE[type] ?? "other";
  return {
    value,
    normal,
    kind,
    newline: kind === "space" && value.includes("\n"),
    stop,
    content:
      kind === "word" && !stop && LETTER.test(normal) && [...normal].length >= 2 && !FILLERS.has(normal),
  };
}

type Tokens = ReturnType<ReturnType<WinkMethods["readDoc"]>["tokens"]>;

/**
 * Reads the lexeme of token i: from wink's whole columns when many tokens need reading,
 * else from one wink item per token.
 */
function lexemeReader(tokens: Tokens, its: WinkMethods["its"], many: boolean): (i: number) => Lexeme {
  if (many) {
    const types = tokens.out(its.type) as string[];
    const values = tokens.out(its.value) as string[];
    const normals = tokens.out(its.normal) as string[];
    const stops = tokens.out(its.stopWordFlag) as boolean[];
    return (i) => makeLexeme(String(values[i]), String(normals[i]), String(types[i]), stops[i] === true);
  }
  return (i) => {
    const item = tokens.itemAt(i);
    return makeLexeme(
      String(item.out(its.value)),
      String(item.out(its.normal)),
      String(item.out(its.type)),
      item.out(its.stopWordFlag) === true,
    );
  };
}

/** Distinct lexemes of one scan, filled by tokenizer-only wink passes. */
class LexemeTable {
  readonly lexemes: Lexeme[] = [];
  private readonly slotOfId = new Map<number, number>();
  // Contractions ("ca" + "n't") share ids with other tokens but differ in normal form.
  private readonly contractionSlots = new Map<string, number>();

  private readonly nlp: WinkMethods;

  constructor(nlp: WinkMethods) {
    this.nlp = nlp;
  }

  /**
   * Tokenizes `text` (tokenizer only) and returns each token as an index into `lexemes`;
   * with `starts`, also the indices of the tokens preceded by spaces. Lexemes of the
   * model's own words come from a per-process memo; the others are read from wink.
   */
  tokenize(text: string, starts?: number[]): Int32Array {
    const nlp = this.nlp;
    const its = nlp.its;
    const tokens = nlp.readDoc(text).tokens();
    const n = tokens.length();
    if (starts !== undefined) {
      // Tokens preceded by spaces (`starts` gets their indices).
      const spaces = tokens.out(its.precedingSpaces) as string[];
      for (let i = 0; i < n; i++) if (spaces[i] !== "") starts.push(i);
    }
    const ids = tokens.out(its.uniqueId) as number[];
    const contraction = tokens.out(its.contractionFlag) as boolean[];
    // Lexemes of the model's own words by wink id (non-contraction tokens only).
    const memo = modelWordMemo<Lexeme>(nlp, "scan-lexeme", WORD_MEMO_LIMIT);
    const intrinsic = intrinsicLexiconSize(nlp) ?? 0;
    const lexeme = new Int32Array(n);
    // First occurrences of ids that are neither in this table nor in the memo, and
    // contraction parts: they need wink's facts.
    const pending: number[] = [];
    for (let i = 0; i < n; i++) {
      if (contraction[i]) {
        pending.push(i);
        continue;
      }
      const id = ids[i] as number;
      if (this.slotOfId.has(id)) continue;
      const known = id < intrinsic ? memo.get(id) : undefined;
      if (known !== undefined) {
        this.slotOfId.set(id, this.lexemes.push(known) - 1);
      } else {
        this.slotOfId.set(id, -1);
        pending.push(i);
      }
    }
    if (pending.length > 0) {
      const read = lexemeReader(tokens, its, pending.length * 4 > n);
      for (const i of pending) {
        const id = ids[i] as number;
        const lx = read(i);
        if (!contraction[i]) {
          this.slotOfId.set(id, this.lexemes.push(lx) - 1);
          if (id < intrinsic) memo.set(id, lx);
          continue;
        }
        const key = `${id} ${lx.normal}`;
        let k = this.contractionSlots.get(key);
        if (k === undefined) {
          k = this.lexemes.push(lx) - 1;
          this.contractionSlots.set(key, k);
        }
        lexeme[i] = k;
      }
    }
    for (let i = 0; i < n; i++)
      if (!contraction[i]) lexeme[i] = this.slotOfId.get(ids[i] as number) as number;
    return lexeme;
  }
}
