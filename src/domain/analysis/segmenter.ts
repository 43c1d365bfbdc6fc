/**
 * Optimal topic segmentation by dynamic programming over a probabilistic lexical-cohesion
 * cost, after Utiyama & Isahara (2001), "A Statistical Model for Domain-Independent Text
 * Segmentation" (ACL): a segment's cost is the description length of its words under a
 * Laplace-smoothed unigram model of that segment, plus a per-segment prior. We add timing
 * evidence (long pauses, speaker changes) as a boundary bonus and hard constraints
 * (minimum duration, maximum count) to the same DP, which stays exact.
 */

/** Segment counts tried past the best one before giving up on more segments. */
const STOP_AFTER = 6;

/** One candidate atom of segmentation (a sentence or a block of sentences). */
export interface SegmentationAtom {
  /** Content term ids said in the atom. */
  terms: number[];
  /** Start time of the atom in seconds (the time a boundary before it would get). */
  start: number;
  /** Bonus in nats for a boundary just before this atom (timing evidence); ≥ 0. */
  cue: number;
}

/** Options of {@link segmentAtoms}. */
export interface SegmentationOptions {
  /** End of the media in seconds; the last segment ends here. */
  duration: number;
  /** Least segment length in seconds (first starts at 0, last ends at `duration`). */
  minSegmentSec: number;
  /** Most segments. */
  maxSegments: number;
  /** Vocabulary size (for Laplace smoothing). */
  vocabularySize: number;
  /** Multiplier of the per-segment prior `log(N)` (N = content words); 1 is Utiyama & Isahara's. */
  priorWeight?: number;
  /**
   * Dirichlet concentration of the segment language models. 0 (default) is Utiyama &
   * Isahara's Laplace-smoothed estimate; > 0 uses the marginal likelihood of a
   * Dirichlet-compound multinomial (Eisenstein & Barzilay 2008, "Bayesian Unsupervised
   * Topic Segmentation", EMNLP).
   */
  alpha?: number;
}

/**
 * Returns the start indices (into `atoms`) of segments 2..k of the best segmentation,
 * i.e. the boundaries; `[]` means one segment. Cost is O(k·m²) for m atoms.
 */
export function segmentAtoms(atoms: SegmentationAtom[], opts: SegmentationOptions): number[] {
  const m = atoms.length;
  if (m < 2 || opts.maxSegments < 2) return [];
  const totalTerms = atoms.reduce((n, a) => n + a.terms.length, 0);
  if (totalTerms === 0) return [];
  const V = Math.max(1, opts.vocabularySize);
  const prior = (opts.priorWeight ?? 1) * Math.log(Math.max(2, totalTerms));
  // Segments never have zero length, even with minSegmentSec = 0 (atoms can share a start time).
  const minLen = Math.max(opts.minSegmentSec, 1e-3);

  // boundaryTime(j): start time of a segment beginning at atom j; 0 for j = 0, duration for j = m.
  const bt = new Float64Array(m + 1);
  for (let j = 1; j < m; j++) bt[j] = (atoms[j] as SegmentationAtom).start;
  bt[m] = opts.duration;

  // costT[b*(m+1)+a]: description length of atoms [a, b) = N·log(N+V) − Σ c·log(c+1).
  // Stored by end atom so the DP's inner loop over `a` reads contiguous memory.
  const flat = new Int32Array(totalTerms);
  const atomEnd = new Int32Array(m);
  let off = 0;
  for (let j = 0; j < m; j++) {
    for (const t of (atoms[j] as SegmentationAtom).terms) flat[off++] = t;
    atomEnd[j] = off;
  }
  const alpha = opts.alpha ?? 0;
  const maxCount = totalTerms + 2;
  // delta[c]: growth of the word part of the cost when a count goes c → c+1.
  // Laplace/U00: (c+1)·log(c+2) − c·log(c+1); Dirichlet-compound (alpha > 0): log(c + alpha).
  const delta = new Float64Array(maxCount + 1);
  for (let c = 0; c <= maxCount; c++) {
    delta[c] = alpha > 0 ? Math.log(c + alpha) : (c + 1) * Math.log(c + 2) - c * Math.log(c + 1);
  }
  // lengthCost[n]: the part depending only on the segment's word count.
  const lengthCost = new Float64Array(totalTerms + 1);
  for (let n = 1; n <= totalTerms; n++) {
    lengthCost[n] =
      alpha > 0 ? (lengthCost[n - 1] as number) + Math.log(n - 1 + V * alpha) : n * Math.log(n + V);
  }
  const counts = new Int32Array(V);
  const W = m + 1;
  const costT = new Float64Array(W * W).fill(Number.POSITIVE_INFINITY);
  for (let a = 0; a < m; a++) {
    let sum = 0;
    let i = a === 0 ? 0 : (atomEnd[a - 1] as number);
    const from = i;
    for (let b = a + 1; b <= m; b++) {
      const stop = atomEnd[b - 1] as number;
      for (; i < stop; i++) {
        const t = flat[i] as number;
        const c = counts[t] as number;
        sum += delta[c] as number;
        counts[t] = c + 1;
      }
      costT[b * W + a] = (lengthCost[stop - from] as number) - sum;
    }
    for (let j = from; j < totalTerms; j++) counts[flat[j] as number] = 0;
  }
  const cue = Float64Array.from(atoms, (x) => x.cue);

  const K = Math.min(opts.maxSegments, m);
  const INF = Number.POSITIVE_INFINITY;
  // best[k][b]: least cost of covering atoms [0, b) with k segments; from[k][b]: the last start.
  const best: Float64Array[] = [];
  const from: Int32Array[] = [];
  const first = new Float64Array(W).fill(INF);
  const firstFrom = new Int32Array(W).fill(-1);
  for (let b = 1; b <= m; b++) {
    if ((bt[b] as number) - (bt[0] as number) >= minLen || b === m) first[b] = costT[b * W] as number;
    firstFrom[b] = 0;
  }
  best.push(first);
  from.push(firstFrom);
  let bestK = 1;
  let bestTotal = (first[m] as number) + prior;
  if (!Number.isFinite(bestTotal)) return [];
  for (let k = 2; k <= K; k++) {
    const prev = best[k - 2] as Float64Array;
    const cur = new Float64Array(W).fill(INF);
    const arg = new Int32Array(W).fill(-1);
    let any = false;
    for (let b = k; b <= m; b++) {
      const bEnd = bt[b] as number;
      let v = INF;
      let at = -1;
      const row = b * W;
      for (let a = k - 1; a < b; a++) {
        if (bEnd - (bt[a] as number) < minLen) break;
        const p = prev[a] as number;
        if (p === INF) continue;
        const c = p + (costT[row + a] as number) - (cue[a] as number);
        if (c < v) {
          v = c;
          at = a;
        }
      }
      if (at >= 0) {
        cur[b] = v;
        arg[b] = at;
        any = true;
      }
    }
    best.push(cur);
    from.push(arg);
    if (!any) break;
    const total = (cur[m] as number) + k * prior;
    if (total < bestTotal) {
      bestTotal = total;
      bestK = k;
    } else if (k - bestK >= STOP_AFTER) {
      // The penalised cost is unimodal in k in practice; stop once it has risen for a while.
      break;
    }
  }
  const bounds: number[] = [];
  let b = m;
  for (let k = bestK; k >= 2; k--) {
    const a = (from[k - 1] as Int32Array)[b] as number;
    bounds.push(a);
    b = a;
  }
  return bounds.reverse();
}
