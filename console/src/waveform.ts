import type { ResponseBody } from "../../clients/typescript/src/types.ts";

/** An upload's audio peaks, as `GET /api/v1/uploads/{id}/analysis` answers them. */
export type Peaks = NonNullable<ResponseBody<"/api/v1/uploads/{id}/analysis", "get", 200>["peaks"]>;

/** The part of a source a clip plays: its in-point and speed, and how long it lasts on the timeline. */
export interface SourceSpan {
  /** In-point in the source, seconds (the clip's `trim`, default 0). */
  trim: number;
  /** Playback speed (the clip's `speed`, default 1): source seconds per timeline second. */
  speed: number;
  /** Timeline seconds (the clip's `duration`). */
  duration: number;
}

/** A waveform drawn as an SVG path in a `width × 100` view box, the centre line at y = 50. */
export interface WaveformShape {
  /** The `d` attribute: the upper envelope left to right, the lower one back. Empty for silence. */
  path: string;
  /** View box width (columns); stretch it to the clip's width (`preserveAspectRatio="none"`). */
  width: number;
}

/** At most this many columns per pixel of clip: one per two pixels is as fine as the eye reads. */
const COLUMNS_PER_PX = 0.5;
/** At most this many columns in one clip's path, however wide the clip is drawn. */
const MAX_COLUMNS = 4000;

/**
 * Columns per source second for a waveform drawn at `pxPerSecond` timeline pixels per second
 * and `speed`: one column per two pixels of the drawing, never finer than the peaks themselves
 * (`peaks.rate`), and at most {@link MAX_COLUMNS} over `sourceSeconds`. Whole powers of two
 * below the peak rate, so that nearby zooms share one memoised resampling.
 */
export function columnsPerSecond(peaks: Peaks, pxPerSecond: number, speed: number, sourceSeconds: number) {
  const wanted = Math.min(
    (pxPerSecond / speed) * COLUMNS_PER_PX,
    MAX_COLUMNS / Math.max(sourceSeconds, 1e-6),
  );
  if (wanted >= peaks.rate) return peaks.rate;
  return peaks.rate / 2 ** Math.ceil(Math.log2(peaks.rate / wanted));
}

/**
 * The peaks resampled to `cps` columns per source second (`cps` ≤ `peaks.rate`): each column
 * the maximum of the buckets it covers, so a short loud sound never disappears when zoomed out.
 */
export function resamplePeaks(peaks: Peaks, cps: number): Float32Array {
  const per = peaks.rate / cps;
  const out = new Float32Array(Math.ceil(peaks.values.length / per));
  for (const [i, v] of peaks.values.entries()) {
    const c = Math.floor(i / per);
    if (v > (out[c] ?? 0)) out[c] = v;
  }
  return out;
}

const memo = new Map<string, Float32Array>();
/** Entries kept in the resampling memo before it starts over (uploads × zoom levels). */
const MEMO_ENTRIES = 256;

/** {@link resamplePeaks}, memoised per `key` (an upload id) and `cps`. */
export function memoisedColumns(key: string, peaks: Peaks, cps: number): Float32Array {
  const k = `${key}@${cps}`;
  let columns = memo.get(k);
  if (!columns) {
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    columns = resamplePeaks(peaks, cps);
    memo.set(k, columns);
  }
  return columns;
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/** The quietest level drawn, dBFS: the waveform's height is linear in dB from here to 0 dBFS. */
export const FLOOR_DB = -60;

/**
 * The drawn height of a peak amplitude (linear 0..1), 0..1 on a decibel scale from
 * {@link FLOOR_DB} to 0 dBFS, as audio editors draw levels: quiet speech stays visible next to
 * loud music instead of being a flat line.
 */
export function levelHeight(amplitude: number): number {
  if (amplitude <= 0) return 0;
  return Math.min(1, Math.max(0, 1 - (20 * Math.log10(amplitude)) / FLOOR_DB));
}

/**
 * The waveform of the source span a clip plays (from its in-point, `duration × speed` source
 * seconds), from `columns` at `cps` columns per source second. Past the end of the source the
 * clip is silent (a flat line). The path is drawn in source columns (x = 0 is the in-point),
 * heights on the decibel scale of {@link levelHeight}.
 */
export function waveformShape(columns: Float32Array, cps: number, span: SourceSpan): WaveformShape {
  const from = span.trim * cps;
  const width = span.duration * span.speed * cps;
  const first = Math.max(0, Math.floor(from));
  const last = Math.min(columns.length, Math.ceil(from + width));
  const top: string[] = [];
  const bottom: string[] = [];
  let loud = false;
  for (let c = first; c < last; c++) {
    const v = levelHeight(columns[c] ?? 0);
    if (v > 0) loud = true;
    const x0 = r1(Math.max(0, c - from));
    const x1 = r1(Math.min(width, c + 1 - from));
    const h = r1(v * 50);
    top.push(`${x0} ${r1(50 - h)}L${x1} ${r1(50 - h)}`);
    bottom.push(`${x1} ${r1(50 + h)}L${x0} ${r1(50 + h)}`);
  }
  if (!loud) return { path: "", width: Math.max(width, 1e-6) };
  return { path: `M${top.join("L")}L${bottom.reverse().join("L")}Z`, width };
}
