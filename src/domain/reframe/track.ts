/**
 * From per-frame face detections of one shot to a crop path: tracking, smoothing, the "keep the
 * face inside" constraint and keyframes. Pure functions; positions are fractions of the source
 * picture (x of its width, y of its height), times are source seconds.
 *
 * 1. **Tracking by detection** with greedy nearest-neighbour association: each detection of a
 *    sample joins the track whose last box centre is nearest (within 1.5 face widths), else it
 *    starts a track (the association step of SORT, Bewley et al., "Simple Online and Realtime
 *    Tracking", ICIP 2016, with centre distance in place of IoU because samples are a quarter of
 *    a second apart).
 * 2. **Smoothing** with the 1€ filter (Casiez, Roussel and Vogel, "1€ Filter: A Simple
 *    Speed-based Low-pass Filter for Noisy Input in Interactive Systems", CHI 2012): an
 *    exponential low-pass whose cutoff rises with the speed, so detector jitter on a still face
 *    is removed and a moving face is followed with little lag — run forward and then backward
 *    over the shot, so that the result has no lag at all (forward-backward filtering, as
 *    MATLAB's and SciPy's `filtfilt`); then a **dead zone** (a backlash
 *    or "play" operator): the crop moves only by what the smoothed centre leaves a band of
 *    ±{@link DEAD_ZONE} of the window width, so a still face gives a still crop.
 * 3. **Constraint**: at every sample the window centre is moved the least needed to keep the
 *    face box inside the window and the window inside the picture.
 * 4. **Keyframes**: the smoothed path simplified greedily into piecewise-linear segments that stay
 *    within {@link KEYFRAME_TOLERANCE} of it and inside every sample's constraint.
 */
import type { FaceBox } from "../../media/faces/detector.ts";
import type { ReframeKeyframe } from "../composition/schema.ts";

/** Half-width of the dead zone, fraction of the window width (and height for y). */
export const DEAD_ZONE = 0.06;
/** Largest distance of the keyframe path from the smoothed path, fraction of the picture. */
export const KEYFRAME_TOLERANCE = 0.01;
/** A track seen in fewer than this share of a shot's samples is ignored (false detections). */
const MIN_PRESENCE = 0.3;

/** A face followed through a shot's samples: its box at each sample index where it was found. */
export interface FaceTrack {
  boxes: Map<number, FaceBox>;
  /** Σ area × score over its samples: how much it matters. */
  weight: number;
}

const centreX = (b: FaceBox) => b.x + b.w / 2;
const centreY = (b: FaceBox) => b.y + b.h / 2;

/**
 * Tracks of the faces of consecutive samples (see the module comment, step 1), heaviest first,
 * without those present in fewer than 30 % of the samples.
 */
export function trackFaces(samples: readonly FaceBox[][]): FaceTrack[] {
  const tracks: (FaceTrack & { last: FaceBox; lastAt: number })[] = [];
  samples.forEach((faces, k) => {
    const free = new Set(tracks.filter((t) => t.lastAt < k));
    for (const face of [...faces].sort((a, b) => b.w * b.h - a.w * a.h)) {
      let best: (typeof tracks)[number] | undefined;
      let bestDist = Number.POSITIVE_INFINITY;
      for (const t of free) {
        const d = Math.hypot(centreX(t.last) - centreX(face), centreY(t.last) - centreY(face));
        if (d < bestDist && d < 1.5 * Math.max(face.w, t.last.w)) {
          best = t;
          bestDist = d;
        }
      }
      if (best) {
        free.delete(best);
        best.boxes.set(k, face);
        best.last = face;
        best.lastAt = k;
        best.weight += face.w * face.h * face.score;
      } else {
        tracks.push({
          boxes: new Map([[k, face]]),
          weight: face.w * face.h * face.score,
          last: face,
          lastAt: k,
        });
      }
    }
  });
  const needed = Math.max(1, Math.ceil(samples.length * MIN_PRESENCE));
  return tracks
    .filter((t) => t.boxes.size >= needed)
    .sort((a, b) => b.weight - a.weight)
    .map(({ boxes, weight }) => ({ boxes, weight }));
}

/** The box of a track (or the union of several tracks' boxes) at every sample, gaps filled linearly, ends held. */
export function boxesOver(tracks: readonly FaceTrack[], count: number): FaceBox[] {
  const known = new Map<number, FaceBox>();
  for (let k = 0; k < count; k += 1) {
    const here = tracks.map((t) => t.boxes.get(k)).filter((b): b is FaceBox => b !== undefined);
    if (here.length === tracks.length && here.length > 0) known.set(k, union(here));
  }
  const keys = [...known.keys()];
  const out: FaceBox[] = [];
  for (let k = 0; k < count; k += 1) {
    const at = known.get(k);
    if (at) {
      out.push(at);
      continue;
    }
    const before = keys.filter((i) => i < k).at(-1);
    const after = keys.find((i) => i > k);
    const a = before === undefined ? undefined : known.get(before);
    const b = after === undefined ? undefined : known.get(after);
    if (a && b && before !== undefined && after !== undefined) {
      const f = (k - before) / (after - before);
      const mix = (p: number, q: number) => p + (q - p) * f;
      out.push({ x: mix(a.x, b.x), y: mix(a.y, b.y), w: mix(a.w, b.w), h: mix(a.h, b.h), score: 0 });
    } else out.push((a ?? b) as FaceBox);
  }
  return out;
}

/** The smallest box holding every box of `boxes`. */
export function union(boxes: readonly FaceBox[]): FaceBox {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.w));
  const y1 = Math.max(...boxes.map((b) => b.y + b.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0, score: Math.min(...boxes.map((b) => b.score)) };
}

/**
 * The 1€ filter over a series sampled `rate` times a second (Casiez et al. 2012): per sample,
 * the derivative is low-passed at `dCutoff` Hz and the value at `minCutoff + beta × |speed|` Hz,
 * each by an exponential smoother with `alpha = 1 / (1 + rate / (2π × cutoff))`.
 */
export function oneEuro(
  values: readonly number[],
  rate: number,
  minCutoff = 0.4,
  beta = 2,
  dCutoff = 1,
): number[] {
  const alpha = (cutoff: number) => 1 / (1 + rate / (2 * Math.PI * cutoff));
  const out: number[] = [];
  let prev: number | undefined;
  let dPrev = 0;
  for (const v of values) {
    if (prev === undefined) {
      prev = v;
      out.push(v);
      continue;
    }
    const d = (v - prev) * rate;
    const dHat = dPrev + alpha(dCutoff) * (d - dPrev);
    const smoothed = prev + alpha(minCutoff + beta * Math.abs(dHat)) * (v - prev);
    out.push(smoothed);
    prev = smoothed;
    dPrev = dHat;
  }
  return out;
}

/** The backlash ("play") operator of half-width `band`: the output moves only by what the input leaves the band around it. */
export function deadZone(values: readonly number[], band: number): number[] {
  const out: number[] = [];
  let held: number | undefined;
  for (const v of values) {
    if (held === undefined) held = v;
    else if (v > held + band) held = v - band;
    else if (v < held - band) held = v + band;
    out.push(held);
  }
  return out;
}

/**
 * The interval of window centres (one axis, fractions) that keep the face span `[lo, hi]` inside
 * a window of size `size` and the window inside `[0, 1]`; a face larger than the window gets the
 * window centred on it (clamped inside the picture).
 */
export function centreInterval(lo: number, hi: number, size: number): [number, number] {
  const half = size / 2;
  const a = Math.max(half, hi - half);
  const b = Math.min(1 - half, lo + half);
  if (a <= b) return [a, b];
  const c = Math.min(1 - half, Math.max(half, (lo + hi) / 2));
  return [c, c];
}

/**
 * A smoothed, constrained path of window centres for one axis: the 1€ filter run forward and
 * then backward (zero phase: no lag), the dead zone, then each sample clamped into its interval
 * (see {@link centreInterval}).
 */
export function cropPath(
  targets: readonly number[],
  intervals: readonly [number, number][],
  rate: number,
  windowSize: number,
): number[] {
  // Forward, then backward over the result: the whole shot is known, so the smoothing can be
  // zero-phase (no lag behind a moving face), as in forward-backward filtering (filtfilt).
  const once = oneEuro(targets, rate);
  const twice = oneEuro([...once].reverse(), rate).reverse();
  const smoothed = deadZone(twice, DEAD_ZONE * windowSize);
  return smoothed.map((v, k) => {
    const [lo, hi] = intervals[k] ?? [0, 1];
    return Math.min(hi, Math.max(lo, v));
  });
}

/**
 * Keyframes of a two-axis path at `times` (sorted, seconds): greedy piecewise-linear
 * simplification — from each keyframe, the next is the farthest sample such that the straight
 * line to it stays within `tolerance` of every sample between and inside their intervals.
 */
export function simplifyPath(
  times: readonly number[],
  xs: readonly number[],
  ys: readonly number[],
  bounds: { x: readonly [number, number][]; y: readonly [number, number][] },
  tolerance = KEYFRAME_TOLERANCE,
): ReframeKeyframe[] {
  const n = times.length;
  if (n === 0) return [];
  const fits = (i: number, j: number) => {
    for (let k = i + 1; k < j; k += 1) {
      const f = ((times[k] as number) - (times[i] as number)) / ((times[j] as number) - (times[i] as number));
      for (const [vs, bs] of [
        [xs, bounds.x],
        [ys, bounds.y],
      ] as const) {
        const v = (vs[i] as number) + ((vs[j] as number) - (vs[i] as number)) * f;
        const [lo, hi] = bs[k] ?? [0, 1];
        if (Math.abs(v - (vs[k] as number)) > tolerance || v < lo - 1e-9 || v > hi + 1e-9) return false;
      }
    }
    return true;
  };
  const picked = [0];
  let i = 0;
  while (i < n - 1) {
    let j = i + 1;
    while (j + 1 < n && fits(i, j + 1)) j += 1;
    picked.push(j);
    i = j;
  }
  const r4 = (v: number) => Math.round(v * 10_000) / 10_000;
  return picked.map((k) => ({ time: times[k] as number, x: r4(xs[k] as number), y: r4(ys[k] as number) }));
}

/** Small luma pictures of a shot's samples, for {@link activityCentre}. */
export interface LumaFrames {
  width: number;
  height: number;
  frames: Uint8Array[];
}

/**
 * A `factor`-times smaller luma picture (BT.601 weights, block means) of RGB24 frame `index` of
 * `rgb`, `width`×`height` pixels.
 */
export function lumaThumbnail(
  rgb: Uint8Array,
  index: number,
  width: number,
  height: number,
  factor: number,
): Uint8Array {
  const w = Math.max(1, Math.floor(width / factor));
  const h = Math.max(1, Math.floor(height / factor));
  const out = new Uint8Array(w * h);
  const base = index * width * height * 3;
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy += 1) {
        for (let dx = 0; dx < factor; dx += 1) {
          const p = base + ((y * factor + dy) * width + x * factor + dx) * 3;
          sum += 0.299 * (rgb[p] as number) + 0.587 * (rgb[p + 1] as number) + 0.114 * (rgb[p + 2] as number);
        }
      }
      out[y * w + x] = Math.round(sum / (factor * factor));
    }
  }
  return out;
}

/**
 * Where activity is, for a shot without faces: the window position (centre, fractions) that
 * holds the most change between consecutive samples (absolute luma difference summed per column
 * and per row, then the best window of each axis), or null when the samples barely change (mean
 * difference under 1 % of full scale).
 */
export function activityCentre(
  luma: LumaFrames,
  window: { w: number; h: number },
): { x: number; y: number } | null {
  const { width, height, frames } = luma;
  if (frames.length < 2) return null;
  const cols = new Float64Array(width);
  const rows = new Float64Array(height);
  let total = 0;
  for (let f = 1; f < frames.length; f += 1) {
    const a = frames[f - 1] as Uint8Array;
    const b = frames[f] as Uint8Array;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const d = Math.abs((b[y * width + x] as number) - (a[y * width + x] as number));
        cols[x] = (cols[x] as number) + d;
        rows[y] = (rows[y] as number) + d;
        total += d;
      }
    }
  }
  if (total / ((frames.length - 1) * width * height) < 2.55) return null;
  const best = (sums: Float64Array, span: number) => {
    const n = sums.length;
    const len = Math.max(1, Math.min(n, Math.round(span * n)));
    let run = 0;
    for (let i = 0; i < len; i += 1) run += sums[i] as number;
    let bestAt = 0;
    let bestRun = run;
    for (let i = len; i < n; i += 1) {
      run += (sums[i] as number) - (sums[i - len] as number);
      if (run > bestRun) {
        bestRun = run;
        bestAt = i - len + 1;
      }
    }
    return (bestAt + len / 2) / n;
  };
  return { x: best(cols, window.w), y: best(rows, window.h) };
}
