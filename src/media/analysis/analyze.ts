/**
 * Scene cuts, silences, loudness and waveform peaks of a media file in one ffmpeg pass, each
 * measured by ffmpeg's own filters and read back from `ametadata`/`metadata` print files:
 * - scene cuts: the `select` filter's scene-change score (the mean absolute difference of
 *   consecutive frames, adjusted for the previous difference; 0..1), a cut where it exceeds the
 *   threshold;
 * - silences: `silencedetect` (all channels below the threshold for at least the minimum length);
 * - loudness: `ebur128` (EBU R128 / ITU-R BS.1770-4: integrated and short-term loudness, loudness
 *   range, true peak by 4× oversampling);
 * - peaks: `astats` peak level of consecutive buckets of 1/{@link PEAKS_PER_SECOND} s.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { runMediaTool } from "../probe.ts";
import type { Loudness, MediaAnalysis, Peaks, SceneCut, Silence } from "./types.ts";

/** Waveform peak values per second of media. */
export const PEAKS_PER_SECOND = 20;
/** Sample rate the peaks are measured at, Hz (a whole number of samples per bucket). */
const PEAKS_SAMPLE_RATE = 48_000;
/** Short-term loudness at or below this is reported as null (silence), LUFS. */
const LOUDNESS_FLOOR = -70;

/** What to measure and with which thresholds. */
export interface AnalysisParams {
  /** Scene-change score above which a frame starts a new shot, 0..1. */
  sceneThreshold: number;
  /** Level below which audio counts as silent, dBFS. */
  silenceThresholdDb: number;
  /** Shortest silence reported, seconds. */
  silenceMinDuration: number;
}

/** One frame's block of a `metadata=print` file: its time and its tags. */
interface MetadataFrame {
  time: number;
  tags: Map<string, string>;
}

/** Parses the output of ffmpeg's `metadata=print` / `ametadata=print` filters. */
export function parseMetadataPrint(text: string): MetadataFrame[] {
  const frames: MetadataFrame[] = [];
  let current: MetadataFrame | undefined;
  for (const line of text.split("\n")) {
    const head = /^frame:\s*\d+\s+pts:\s*-?\d+\s+pts_time:(\S+)/.exec(line);
    if (head) {
      current = { time: Number(head[1]), tags: new Map() };
      frames.push(current);
      continue;
    }
    const eq = line.indexOf("=");
    if (current && eq > 0) current.tags.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return frames;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const num = (v: string | undefined): number | null => {
  const n = Number(v);
  return v !== undefined && Number.isFinite(n) ? n : null;
};

/** Silence ranges from `silencedetect` tags; a silence still open at the end closes at `duration`. */
export function silencesFrom(frames: MetadataFrame[], duration: number): Silence[] {
  const ranges: Silence[] = [];
  let start: number | null = null;
  for (const f of frames) {
    const s = num(f.tags.get("lavfi.silence_start"));
    if (s !== null) start = Math.max(0, s);
    const e = num(f.tags.get("lavfi.silence_end"));
    if (e !== null && start !== null) {
      ranges.push({ start: round3(start), end: round3(Math.min(e, duration)) });
      start = null;
    }
  }
  if (start !== null && start < duration) ranges.push({ start: round3(start), end: round3(duration) });
  return ranges;
}

/** Loudness from `ebur128` tags: the last frame's integrated loudness and range, the true peak, and S per second. */
export function loudnessFrom(frames: MetadataFrame[], duration: number): Loudness {
  const last = frames.at(-1);
  const integrated = num(last?.tags.get("lavfi.r128.I"));
  const range = num(last?.tags.get("lavfi.r128.LRA"));
  let peak = 0;
  for (const f of frames) peak = Math.max(peak, num(f.tags.get("lavfi.r128.true_peak")) ?? 0);
  const shortTerm: (number | null)[] = [];
  let i = 0;
  for (let second = 1; second <= Math.floor(duration + 1e-6); second++) {
    // The last 100 ms frame that ends at or before this second.
    while (i + 1 < frames.length && (frames[i + 1] as MetadataFrame).time + 0.1 <= second + 1e-6) i++;
    const s = num(frames[i]?.tags.get("lavfi.r128.S"));
    shortTerm.push(s === null || s <= LOUDNESS_FLOOR ? null : Math.round(s * 10) / 10);
  }
  return {
    integrated: integrated === null || integrated <= LOUDNESS_FLOOR ? null : Math.round(integrated * 10) / 10,
    truePeak: peak > 0 ? Math.round(20 * Math.log10(peak) * 10) / 10 : null,
    range: range === null ? null : Math.round(range * 10) / 10,
    shortTerm,
  };
}

/** Waveform peaks from `astats` peak levels (dBFS) → linear 0..1. */
export function peaksFrom(frames: MetadataFrame[]): Peaks {
  return {
    rate: PEAKS_PER_SECOND,
    values: frames.map((f) => {
      const db = num(f.tags.get("lavfi.astats.Overall.Peak_level"));
      return db === null ? 0 : Math.round(Math.min(1, 10 ** (db / 20)) * 1000) / 1000;
    }),
  };
}

/** Scene cuts from `select` + `metadata=print` tags. */
export function scenesFrom(frames: MetadataFrame[]): SceneCut[] {
  return frames
    .filter((f) => f.time > 0)
    .map((f) => ({
      time: round3(f.time),
      score: Math.round((num(f.tags.get("lavfi.scene_score")) ?? 0) * 1000) / 1000,
    }));
}

/**
 * Analyses the local media file `input` in one ffmpeg run.
 * @param media - which streams it has and its duration (seconds), from the upload's probe.
 * @param workDir - an existing scratch directory for ffmpeg's metadata files.
 * @throws MediaProbeError when ffmpeg fails, times out or `signal` aborts.
 */
export async function analyzeMedia(
  input: string,
  media: { duration: number; hasVideo: boolean; hasAudio: boolean },
  params: AnalysisParams,
  opts: { workDir: string; timeoutMs: number; signal?: AbortSignal },
): Promise<MediaAnalysis> {
  const file = (name: string) => path.join(opts.workDir, name);
  // Paths inside a filter graph: escape what the graph parser treats specially.
  const graphPath = (name: string) => file(name).replace(/[\\':,;[\]=]/g, (c) => `\\${c}`);
  const chains: string[] = [];
  if (media.hasVideo) {
    chains.push(
      `[0:v:0]select='gt(scene,${params.sceneThreshold})',metadata=print:file=${graphPath("scenes.txt")},nullsink`,
    );
  }
  if (media.hasAudio) {
    const n = PEAKS_SAMPLE_RATE / PEAKS_PER_SECOND;
    chains.push(
      "[0:a:0]asplit=3[sil][loud][peak]",
      `[sil]silencedetect=n=${params.silenceThresholdDb}dB:d=${params.silenceMinDuration},ametadata=print:file=${graphPath("silences.txt")},anullsink`,
      `[loud]ebur128=peak=true:metadata=1,ametadata=print:file=${graphPath("loudness.txt")},anullsink`,
      `[peak]aresample=${PEAKS_SAMPLE_RATE},asetnsamples=n=${n}:p=0,astats=metadata=1:reset=1:measure_perchannel=none:measure_overall=Peak_level,ametadata=print:key=lavfi.astats.Overall.Peak_level:file=${graphPath("peaks.txt")},anullsink`,
    );
  }
  const result: MediaAnalysis = {
    duration: media.duration,
    scenes: null,
    silences: null,
    loudness: null,
    peaks: null,
  };
  if (chains.length === 0) return result;
  await runMediaTool(
    "ffmpeg",
    [
      ...["-nostdin", "-nostats", "-v", "error", "-protocol_whitelist", "file", "-i", `file:${input}`],
      ...["-filter_complex", chains.join(";"), "-f", "null", "-"],
    ],
    { timeoutMs: opts.timeoutMs, signal: opts.signal },
  );
  const read = async (name: string) => parseMetadataPrint(await readFile(file(name), "utf8").catch(() => ""));
  if (media.hasVideo) {
    result.scenes = { threshold: params.sceneThreshold, cuts: scenesFrom(await read("scenes.txt")) };
  }
  if (media.hasAudio) {
    result.silences = {
      thresholdDb: params.silenceThresholdDb,
      minDuration: params.silenceMinDuration,
      ranges: silencesFrom(await read("silences.txt"), media.duration),
    };
    result.loudness = loudnessFrom(await read("loudness.txt"), media.duration);
    result.peaks = peaksFrom(await read("peaks.txt"));
  }
  return result;
}
