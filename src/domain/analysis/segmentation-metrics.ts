/**
 * Segmentation error metrics over a sequence of n units, with segmentations given as
 * sorted boundary positions (a boundary b means a new segment starts at unit b, 0 < b < n).
 * Pk: Beeferman, Berger & Lafferty (1999), "Statistical Models for Text Segmentation",
 * Machine Learning 34. WindowDiff: Pevzner & Hearst (2002), "A Critique and Improvement of
 * an Evaluation Metric for Text Segmentation", Computational Linguistics 28(1).
 * Both are in [0, 1]; lower is better.
 */

function labels(n: number, boundaries: number[]): Int32Array {
  const out = new Int32Array(n);
  let seg = 0;
  let j = 0;
  const sorted = [...boundaries].sort((a, b) => a - b);
  for (let i = 0; i < n; i++) {
    while (j < sorted.length && (sorted[j] as number) <= i) {
      if ((sorted[j] as number) > 0) seg++;
      j++;
    }
    out[i] = seg;
  }
  return out;
}

/** Half the mean reference segment length, rounded, at least 1 (the customary window). */
export function defaultWindow(n: number, reference: number[]): number {
  const segments = new Set(reference.filter((b) => b > 0 && b < n)).size + 1;
  return Math.max(1, Math.round(n / segments / 2));
}

/**
 * Share of the windows (i, i+k), i = 0..n-k-1, on which `disagree` holds for the segment
 * labels of the reference (r0, r1) and the hypothesis (h0, h1) at the window's ends.
 */
function windowErrorRate(
  n: number,
  reference: number[],
  hypothesis: number[],
  k: number,
  disagree: (r0: number, r1: number, h0: number, h1: number) => boolean,
): number {
  if (n - k <= 0) return 0;
  const r = labels(n, reference);
  const h = labels(n, hypothesis);
  let miss = 0;
  for (let i = 0; i + k < n; i++) {
    if (disagree(r[i] as number, r[i + k] as number, h[i] as number, h[i + k] as number)) miss++;
  }
  return miss / (n - k);
}

/**
 * Pk (Beeferman, Berger & Lafferty 1999): the share of unit pairs (i, i+k) on which
 * reference and hypothesis disagree about being in the same segment. `k` defaults to
 * {@link defaultWindow}. Returns 0..1, lower is better.
 */
export function pk(
  n: number,
  reference: number[],
  hypothesis: number[],
  k = defaultWindow(n, reference),
): number {
  return windowErrorRate(n, reference, hypothesis, k, (r0, r1, h0, h1) => (r0 === r1) !== (h0 === h1));
}

/**
 * WindowDiff (Pevzner & Hearst 2002): the share of windows (i, i+k) in which the number
 * of reference and hypothesis boundaries differ. Returns 0..1, lower is better.
 */
export function windowDiff(
  n: number,
  reference: number[],
  hypothesis: number[],
  k = defaultWindow(n, reference),
): number {
  return windowErrorRate(n, reference, hypothesis, k, (r0, r1, h0, h1) => r1 - r0 !== h1 - h0);
}
