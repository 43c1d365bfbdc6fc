/**
 * TextTiling (Hearst 1997, "TextTiling: Segmenting Text into Multi-paragraph Subtopic
 * Passages", Computational Linguistics 23(1)) as a baseline for the evaluation: the
 * block-comparison variant with pseudo-sentences of w = 20 words, blocks of k = 10
 * pseudo-sentences, one round of average smoothing (width 3), depth scores, the
 * "HC" cutoff mean − sd/2, and boundaries snapped to the nearest allowed break.
 */
import type { ParsedText } from "./nlp.ts";
import type { TermIndex } from "./terms.ts";

/** Parameters of {@link textTiling}; defaults are Hearst's. */
export interface TextTilingOptions {
  /** Pseudo-sentence size in words (w). */
  w?: number;
  /** Block size in pseudo-sentences (k). */
  k?: number;
  /** Least number of pseudo-sentences between two boundaries. */
  minGap?: number;
}

/**
 * Segments the word stream of `parsed` and snaps each boundary to the nearest of
 * `breaks` (token indices where a paragraph/unit starts, ascending, excluding 0).
 * Returns the chosen break token indices, ascending and distinct.
 */
export function textTiling(
  parsed: ParsedText,
  terms: TermIndex,
  breaks: number[],
  opts: TextTilingOptions = {},
): number[] {
  const w = opts.w ?? 20;
  const k = opts.k ?? 10;
  const minGap = opts.minGap ?? 3;
  // Pseudo-sentences: every w word tokens (stop words count here and are dropped after).
  const seqTerms: number[][] = [];
  const seqStartToken: number[] = [];
  let cur: number[] = [];
  let words = 0;
  for (let i = 0; i < parsed.size; i++) {
    if (parsed.kind[i] !== "word" || parsed.lettered[i] === 0) continue;
    if (words % w === 0) {
      if (words > 0) seqTerms.push(cur);
      cur = [];
      seqStartToken.push(i);
    }
    const t = terms.termOf[i] as number;
    if (t >= 0) cur.push(t);
    words++;
  }
  if (words > 0) seqTerms.push(cur);
  const nSeq = seqTerms.length;
  const nGaps = nSeq - 1;
  if (nGaps < 1 || breaks.length === 0) return [];

  // Block comparison: cosine of term counts of the k sequences before and after each gap.
  const gapScores: number[] = [];
  for (let g = 0; g < nGaps; g++) {
    const size = Math.min(k, g + 1, nSeq - g - 1);
    const left = new Map<number, number>();
    const right = new Map<number, number>();
    for (let j = g - size + 1; j <= g; j++)
      for (const t of seqTerms[j] as number[]) left.set(t, (left.get(t) ?? 0) + 1);
    for (let j = g + 1; j <= g + size; j++) {
      for (const t of seqTerms[j] as number[]) right.set(t, (right.get(t) ?? 0) + 1);
    }
    let dot = 0;
    let l2 = 0;
    let r2 = 0;
    for (const [t, c] of left) {
      l2 += c * c;
      dot += c * (right.get(t) ?? 0);
    }
    for (const c of right.values()) r2 += c * c;
    gapScores.push(l2 > 0 && r2 > 0 ? dot / Math.sqrt(l2 * r2) : 0);
  }

  // One round of average smoothing over a window of 3 gaps.
  const smooth = gapScores.map((_, g) => {
    let s = 0;
    let c = 0;
    for (let j = g - 1; j <= g + 1; j++) {
      if (j >= 0 && j < nGaps) {
        s += gapScores[j] as number;
        c++;
      }
    }
    return s / c;
  });

  // Depth: climb to the highest score on each side while scores keep rising.
  const depth = smooth.map((score, g) => {
    let lp = score;
    for (let j = g - 1; j >= 0 && (smooth[j] as number) >= lp; j--) lp = smooth[j] as number;
    let rp = score;
    for (let j = g + 1; j < nGaps && (smooth[j] as number) >= rp; j++) rp = smooth[j] as number;
    return lp - score + (rp - score);
  });

  const mean = depth.reduce((a, b) => a + b, 0) / nGaps;
  const sd = Math.sqrt(depth.reduce((a, b) => a + (b - mean) ** 2, 0) / nGaps);
  const cutoff = mean - sd / 2;
  const candidates = depth
    .map((d, g) => ({ d, g }))
    .filter((x) => x.d > cutoff && x.d > 0)
    .sort((a, b) => b.d - a.d || a.g - b.g);
  const chosen: number[] = [];
  for (const c of candidates) {
    if (chosen.some((g) => Math.abs(g - c.g) <= minGap)) continue;
    chosen.push(c.g);
  }

  // Snap each gap (the start of pseudo-sentence g+1) to the nearest allowed break.
  const out = new Set<number>();
  for (const g of chosen) {
    const tok = seqStartToken[g + 1] as number;
    const pos = parsed.start[tok] as number;
    let best = breaks[0] as number;
    let bestDist = Number.POSITIVE_INFINITY;
    for (const b of breaks) {
      const d = Math.abs((parsed.start[b] as number) - pos);
      if (d < bestDist) {
        bestDist = d;
        best = b;
      }
    }
    out.add(best);
  }
  return [...out].sort((a, b) => a - b);
}
