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
 * Pk: the share of unit pairs (i, i+k) on which reference and hypothesis disagree about
 * being in the same segment. `k` defaults to {@link defaultWindow}.
 */
export function pk(
  n: number,
  reference: number[],
  hypothesis: number[],
  k = defaultWindow(n, reference),
): number {
  if (n - k <= 0) return 0;
  const r = labels(n, reference);
  const h = labels(n, hypothesis);
  let miss = 0;
  for (let i = 0; i + k < n; i++) {
    const sameR = r[i] === r[i + k];
    const sameH = h[i] === h[i + k];
    if (sameR !== sameH) miss++;
  }
  return miss / (n - k);
}

/**
 * WindowDiff: the share of windows (i, i+k) in which the number of reference and
 * hypothesis boundaries differ.
 */
export function windowDiff(
  n: number,
  reference: number[],
  hypothesis: number[],
  k = defaultWindow(n, reference),
): number {
  if (n - k <= 0) return 0;
  const r = labels(n, reference);
  const h = labels(n, hypothesis);
  let miss = 0;
  for (let i = 0; i + k < n; i++) {
    if ((r[i + k] as number) - (r[i] as number) !== (h[i + k] as number) - (h[i] as number)) miss++;
  }
  return miss / (n - k);
}
