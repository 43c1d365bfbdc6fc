/**
 * B-roll's cheap first pass: the words of many short lines, cut by ICU's word segmenter
 * (`Intl.Segmenter`, Unicode UAX #29 word boundaries), with stop-word facts from wink-nlp's
 * English lexicon. No wink tokenizer pass runs over the text, so no unknown word is added to
 * wink's lexicon and the cost is that of the distinct pieces only.
 *
 * UAX #29 always breaks at whitespace, so each distinct whitespace-separated piece ("grinder,",
 * "the") is segmented once, in one segmenter pass over all of them, and its lexemes are
 * repeated wherever it occurs. The result depends on nothing but the lines: no state is
 * carried between calls except a memo of lexemes.
 */

import type { WinkMethods } from "wink-nlp";
import { getWordSegmenter, isLexicalContent, LETTER, type TokenKind, WORD_MEMO_LIMIT } from "./nlp.ts";
import { modelWordId, modelWordMemo, withWink } from "./wink-instance.ts";

/** Lexical facts about one distinct word or mark (shared between scans: read only). */
export interface Lexeme {
  /** As written. */
  readonly value: string;
  /** Lower-cased. */
  readonly normal: string;
  readonly kind: TokenKind;
  /** wink lists the normal form as an English stop word. */
  readonly stop: boolean;
  /** A content word, as `parseText` decides it before tagging (`isLexicalContent`). */
  readonly content: boolean;
}

/** A lexeme while it is being described. */
type Draft = { -readonly [K in keyof Lexeme]: Lexeme[K] };

/** The lexemes of some lines: line l holds `lexemes[lexeme[k]]` for k in [lineStart[l], lineStart[l + 1]). */
export interface WordScan {
  /** Token ranges per line (one more entry than lines). */
  lineStart: Int32Array;
  /** Each token as an index into `lexemes`. */
  lexeme: Int32Array;
  /** Distinct lexemes. */
  lexemes: Lexeme[];
}

const NUMBER_START = /^\p{N}/u;
/** Pieces that are one segment under UAX #29 without asking the segmenter. */
const ONE_SEGMENT = /^(?:[A-Za-z]+|[0-9]+)$/;
const PUNCTUATION = /^\p{P}+$/u;

/**
 * Splits `lines` into words and marks (ICU word boundaries) and describes each distinct one.
 * Numbers ("1831", "3,400,000", "2nd") are kind `number`, lettered words kind `word`,
 * punctuation kind `punctuation`, other marks `symbol`.
 *
 * @param lines - short texts, e.g. subtitle segments; whitespace separates words.
 * @returns tokens per line, as indices into a table of distinct lexemes.
 */
export function scanWords(lines: readonly string[]): WordScan {
  const table = new PieceTable();
  // Distinct-piece index of every piece occurrence, and where each line's pieces start.
  let order = new Int32Array(1024);
  let count = 0;
  const linePieces = new Int32Array(lines.length + 1);
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l] as string;
    const len = line.length;
    for (let i = 0; i < len; ) {
      let c = line.charCodeAt(i);
      if (isWhitespace(c)) {
        i++;
        continue;
      }
      // FNV-1a over the piece's UTF-16 code units.
      let hash = Math.imul(0x811c9dc5 ^ c, 0x01000193);
      let j = i + 1;
      for (; j < len; j++) {
        c = line.charCodeAt(j);
        if (isWhitespace(c)) break;
        hash = Math.imul(hash ^ c, 0x01000193);
      }
      if (count === order.length) order = grown(order);
      order[count++] = table.indexOf(line, i, j, hash);
      i = j;
    }
    linePieces[l + 1] = count;
  }
  const pieces = table.distinct;

  // Lexemes of the distinct pieces: a piece of ASCII letters only is one word under UAX #29
  // (no break between letters, WB5), one of ASCII digits only one number (WB8); the other
  // pieces go through the segmenter.
  const lexemeOf = new Map<string, number>();
  const values: string[] = [];
  const lexemeFor = (segment: string): number => {
    let k = lexemeOf.get(segment);
    if (k === undefined) {
      k = values.push(segment) - 1;
      lexemeOf.set(segment, k);
    }
    return k;
  };
  // The lexeme of a one-token piece, else -1 and its tokens in `multi`.
  const single = new Int32Array(pieces.length).fill(-1);
  const multi = new Map<number, number[]>();
  const complex: number[] = [];
  for (let d = 0; d < pieces.length; d++) {
    const piece = pieces[d] as string;
    if (ONE_SEGMENT.test(piece)) single[d] = lexemeFor(piece);
    else complex.push(d);
  }
  // One segmenter pass over the other pieces joined by single spaces: every segment that
  // starts with the space ends a piece (a combining mark at a piece's start joins the space
  // before it, WB4, and is dropped with it).
  let c = 0;
  let tokens: number[] = [];
  const close = () => {
    const d = complex[c] as number;
    if (tokens.length === 1) single[d] = tokens[0] as number;
    else multi.set(d, tokens);
    tokens = [];
    c++;
  };
  if (complex.length > 0) {
    const joined = complex.map((d) => pieces[d] as string).join(" ");
    for (const { segment } of getWordSegmenter().segment(joined)) {
      if (segment.charCodeAt(0) === 32) close();
      else tokens.push(lexemeFor(segment));
    }
    close();
  }
  const lexemes = describeAll(values);

  let size = 0;
  for (let o = 0; o < count; o++) {
    const d = order[o] as number;
    size += (single[d] as number) >= 0 ? 1 : (multi.get(d) as number[]).length;
  }
  const lexeme = new Int32Array(size);
  const lineStart = new Int32Array(lines.length + 1);
  let t = 0;
  for (let l = 0; l < lines.length; l++) {
    lineStart[l] = t;
    for (let o = linePieces[l] as number; o < (linePieces[l + 1] as number); o++) {
      const d = order[o] as number;
      const k = single[d] as number;
      if (k >= 0) lexeme[t++] = k;
      else for (const m of multi.get(d) as number[]) lexeme[t++] = m;
    }
  }
  lineStart[lines.length] = t;
  return { lineStart, lexeme, lexemes };
}

/** JavaScript's `\s`: the characters that separate pieces. */
function isWhitespace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * Distinct pieces, found without cutting a string per occurrence: an open-addressing table
 * keyed by a hash of the piece's characters, compared in place. Only the first occurrence of
 * each distinct piece is cut out of its line.
 */
class PieceTable {
  readonly distinct: string[] = [];
  private hashOf = new Int32Array(1024);
  private slots = new Int32Array(4096).fill(-1);

  /** Index of the distinct piece equal to line[from, to) with character hash `hash`, added if new. */
  indexOf(line: string, from: number, to: number, hash: number): number {
    const length = to - from;
    let mask = this.slots.length - 1;
    let at = hash & mask;
    for (;;) {
      const d = this.slots[at] as number;
      if (d < 0) break;
      const piece = this.distinct[d] as string;
      if (this.hashOf[d] === hash && piece.length === length) {
        let k = 0;
        while (k < length && piece.charCodeAt(k) === line.charCodeAt(from + k)) k++;
        if (k === length) return d;
      }
      at = (at + 1) & mask;
    }
    const d = this.distinct.length;
    if (d === this.hashOf.length) this.hashOf = grown(this.hashOf);
    this.hashOf[d] = hash;
    this.distinct.push(line.slice(from, to));
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

function kindOf(value: string): TokenKind {
  if (NUMBER_START.test(value)) return "number";
  if (LETTER.test(value)) return "word";
  return PUNCTUATION.test(value) ? "punctuation" : "symbol";
}

/**
 * Lexemes of distinct segments. Each depends on its segment and wink's model alone, so it is
 * memoised per segment (most words of a talk were met in earlier ones); the stop-word flags of
 * new segments that are model words come from one wink pass over them.
 */
function describeAll(values: string[]): Lexeme[] {
  return withWink([], (nlp) => {
    const known = modelWordMemo<Lexeme, string>(nlp, "lexeme", WORD_MEMO_LIMIT);
    const lexemes = new Array<Lexeme>(values.length);
    const fresh: Draft[] = [];
    for (let i = 0; i < values.length; i++) {
      const value = values[i] as string;
      const lx = known.get(value);
      if (lx !== undefined) {
        lexemes[i] = lx;
        continue;
      }
      const kind = kindOf(value);
      const draft: Draft = {
        value,
        normal: kind === "word" ? value.toLowerCase() : value,
        kind,
        stop: false,
        content: false,
      };
      fresh.push(draft);
      lexemes[i] = draft;
    }
    // Unknown words are never stop words; the model's own words ask wink, once each.
    const modelWords = [
      ...new Set(
        fresh.filter((lx) => lx.kind === "word" && modelWordId(nlp, lx.normal) >= 0).map((lx) => lx.normal),
      ),
    ];
    const flags = modelWords.length > 0 ? stopFlags(nlp, modelWords) : [];
    const stopWords = new Set(modelWords.filter((_, i) => flags[i] === true));
    for (const lx of fresh) {
      lx.stop = lx.kind === "word" && stopWords.has(lx.normal);
      lx.content = isLexicalContent(lx.kind, lx.normal, lx.stop ? 1 : 0, 1);
      known.set(lx.value, lx);
    }
    return lexemes;
  });
}

/**
 * wink's stop-word flag of each of the model's own `words`: true when every token wink makes
 * of it (one, or the expansions of a contraction such as "don't") is a stop word. Model
 * words are in wink's lexicon, so this adds nothing to it.
 */
function stopFlags(nlp: WinkMethods, words: string[]): boolean[] {
  const tokens = nlp.readDoc(` ${words.join(" ")}`).tokens();
  const spaces = tokens.out(nlp.its.precedingSpaces) as string[];
  const stops = tokens.out(nlp.its.stopWordFlag) as boolean[];
  if (words.length === 1) return [stops.length > 0 && stops.every((s) => s === true)];
  const flags: boolean[] = [];
  for (let i = 0; i < stops.length; i++) {
    if (spaces[i] !== "") flags.push(stops[i] === true);
    else if (flags.length > 0 && stops[i] !== true) flags[flags.length - 1] = false;
  }
  // Defensive: should wink ever start a word without its space, ask word by word.
  if (flags.length !== words.length) return words.map((w) => stopFlags(nlp, [w])[0] === true);
  return flags;
}
