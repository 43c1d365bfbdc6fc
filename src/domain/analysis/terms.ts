/**
 * Content-term extraction shared by the algorithms: each content token (see
 * `isContentToken`) gets an integer id for its lemma, and units become term-id lists.
 */
import { isContentToken, type ParsedText } from "./nlp.ts";

/** Term ids per token (-1 for tokens that carry no topic) and the vocabulary. */
export interface TermIndex {
  /** Term id of each token, or -1. */
  termOf: Int32Array;
  /** Lemma of each term id. */
  vocabulary: string[];
}

/** Assigns a term id to every content token of `parsed`, keyed by lemma. */
export function indexTerms(parsed: ParsedText): TermIndex {
  const termOf = new Int32Array(parsed.size).fill(-1);
  const ids = new Map<string, number>();
  const vocabulary: string[] = [];
  for (let i = 0; i < parsed.size; i++) {
    if (!isContentToken(parsed, i)) continue;
    const lemma = parsed.lemma[i] as string;
    let id = ids.get(lemma);
    if (id === undefined) {
      id = vocabulary.length;
      ids.set(lemma, id);
      vocabulary.push(lemma);
    }
    termOf[i] = id;
  }
  return { termOf, vocabulary };
}

/** Term ids of the tokens in [from, to), in order. */
export function termsIn(index: TermIndex, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) {
    const t = index.termOf[i] as number;
    if (t >= 0) out.push(t);
  }
  return out;
}
