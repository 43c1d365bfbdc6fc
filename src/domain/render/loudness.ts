/**
 * Loudness normalisation of a render's soundtrack (EBU R128 / ITU-R BS.1770-4), by measured
 * gain and a true-peak limiter:
 *
 * 1. measure: the render's soundtrack (the same graph, audio only, to a null output) through
 *    `ebur128=peak=true` — gated integrated loudness (LUFS) and true peak (dBTP, 4× oversampled);
 * 2. apply: one constant gain `target − measured` (clamped to ±{@link MAX_LOUDNESS_GAIN_DB} dB),
 *    then a look-ahead limiter (`alimiter`) run at 4× the sample rate so that it catches
 *    inter-sample peaks, with its ceiling {@link LIMITER_HEADROOM_DB} dB under the asked true
 *    peak (lossy encoders — AAC, Opus, MP3 — add up to ~0.7 dB of overshoot when they
 *    reconstruct the signal);
 * 3. when the limiter has work to do (measured peak + gain above the ceiling), its gain
 *    reduction lowers the integrated loudness a little: the soundtrack is measured once more
 *    through gain and limiter, and the gain raised by what is missing.
 *
 * A constant gain keeps the mix's dynamics (unlike `loudnorm`'s dynamic mode, which rides the
 * level and, in ffmpeg 5.1, falls back to it whenever the linear gain would exceed the peak
 * target, as it does for most speech at −14 LUFS / −1 dBTP); the limiter only touches the
 * few peaks above the ceiling.
 */
import { loudnessFrom, parseMetadataPrint } from "../../media/analysis/analyze.ts";
import type { LoudnessTarget } from "../composition/schema.ts";
import { SAMPLE_RATE } from "./audio-branch.ts";

/** True-peak ceiling when the target names none, dBTP. */
export const DEFAULT_TRUE_PEAK = -1;
/** The limiter's ceiling sits this far under the asked true peak, dB (codec overshoot). */
export const LIMITER_HEADROOM_DB = 1;
/** Largest gain the normalisation applies either way, dB: a near-silent mix is not blown up to noise. */
export const MAX_LOUDNESS_GAIN_DB = 40;
/** Rate the limiter runs at, Hz: 4× oversampling, as BS.1770's true-peak meter. */
const LIMITER_RATE = 4 * SAMPLE_RATE;

/** What `ebur128` measured of a soundtrack. */
export interface LoudnessMeasurement {
  /** Gated integrated loudness, LUFS; null for silence (nothing above the −70 LUFS gate). */
  integrated: number | null;
  /** Highest true peak, dBTP; null for digital silence. */
  truePeak: number | null;
}

/** The normalisation a render applies to its soundtrack. */
export interface LoudnessGain {
  /** Constant gain, dB. */
  gainDb: number;
  /** The limiter's ceiling, dBTP (the asked true peak minus {@link LIMITER_HEADROOM_DB}). */
  ceilingDb: number;
}

/** The filters that measure a soundtrack into `file` (an `ametadata` print file, relative to ffmpeg's cwd). */
export function loudnessMeasureFilters(file: string): string[] {
  return ["ebur128=peak=true:metadata=1", `ametadata=print:file=${file}`];
}

/** Reads what {@link loudnessMeasureFilters} wrote (the text of its file). */
export function parseLoudnessMeasurement(text: string): LoudnessMeasurement {
  const { integrated, truePeak } = loudnessFrom(parseMetadataPrint(text), 0);
  return { integrated, truePeak };
}

/** The filters that apply `gain`: `volume`, then the limiter at 4× the sample rate, back to 48 kHz. */
export function loudnessFilters(gain: LoudnessGain): string[] {
  const limit = 10 ** (gain.ceilingDb / 20);
  return [
    `volume=${round2(gain.gainDb)}dB`,
    `aresample=${LIMITER_RATE}`,
    `alimiter=limit=${limit.toFixed(4)}:attack=5:release=50:level=0`,
    `aresample=${SAMPLE_RATE}`,
  ];
}

/**
 * The gain that brings `measured` to `target`, or null for a silent soundtrack (nothing to
 * bring up). Pure.
 */
export function loudnessGain(target: LoudnessTarget, measured: LoudnessMeasurement): LoudnessGain | null {
  if (measured.integrated === null) return null;
  return {
    gainDb: clampGain(target.integrated - measured.integrated),
    ceilingDb: (target.truePeak ?? DEFAULT_TRUE_PEAK) - LIMITER_HEADROOM_DB,
  };
}

/** Whether the limiter will reduce peaks of a soundtrack measured `measured` under `gain`. */
export function limiterEngages(gain: LoudnessGain, measured: LoudnessMeasurement): boolean {
  return measured.truePeak !== null && measured.truePeak + gain.gainDb > gain.ceilingDb;
}

/**
 * `gain` corrected by what a measurement through it (`after`) still misses of `target`: the
 * limiter's gain reduction lowered the integrated loudness. Pure.
 */
export function correctedGain(
  gain: LoudnessGain,
  target: LoudnessTarget,
  after: LoudnessMeasurement,
): LoudnessGain {
  if (after.integrated === null) return gain;
  return { ...gain, gainDb: clampGain(gain.gainDb + target.integrated - after.integrated) };
}

const clampGain = (db: number) => round2(Math.max(-MAX_LOUDNESS_GAIN_DB, Math.min(MAX_LOUDNESS_GAIN_DB, db)));
const round2 = (x: number) => Math.round(x * 100) / 100;
