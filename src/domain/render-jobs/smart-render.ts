/**
 * Smart rendering, run: a render's (or a split render's segment's) video made of pieces, each
 * either copied from a source's packets (`planSmartRender`'s copy pieces: whole GOPs, stream
 * copy) or encoded in the copied sources' coding format (the rest), joined by stream copy.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../../db/client.ts";
import { updateRenderFenced } from "../../db/repositories/renders.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import { type GopIndex, probeGopIndex } from "../../media/gop-index.ts";
import type { Timeline } from "../composition/schema.ts";
import { outputSize, RUN_ARGS } from "../render/plan.ts";
import {
  buildAudioPlan,
  buildJoinPlan,
  buildSegmentPlan,
  type FrameRange,
  renderFrameWindow,
  type SplitPartBase,
} from "../render/segments.ts";
import {
  mediaMismatch,
  planSmartRender,
  type SmartPiece,
  type SmartRenderPlan,
} from "../render/smart-plan.ts";
import { type FrameRate, frameToSeconds } from "../render/timeline.ts";
import type {
  RenderOutputOptions,
  RenderWarning,
  ResolvedAsset,
  SmartRenderSummary,
  StoredSmartRender,
} from "../render/types.ts";
import { runRenderFfmpeg } from "./render-ffmpeg.ts";
import { writePlanFiles } from "./write-plan-files.ts";

/** Whether `options` render smartly: an mp4 without `smartRender: "off"`. */
export function usesSmartRender(options: Pick<RenderOutputOptions, "format" | "smartRender">): boolean {
  return options.format === "mp4" && options.smartRender !== "off";
}

/**
 * The GOP indexes (`probeGopIndex`) of a composition's video sources by asset key, read at
 * once from their local files (`assets`). A source whose index cannot be read is left out
 * (its frames are encoded, the render says why); nothing is thrown but an abort. With
 * `output`, a source whose upload's facts already rule it out (`mediaMismatch`: another codec
 * or size) is not read. `timeoutMs` bounds each source's reading (a render passes its stall
 * timeout, so a source that never delivers a byte is left out in that time, and the render's own
 * stall guard then ends it).
 */
export async function readSourceGops(
  composition: Timeline,
  assets: ReadonlyMap<string, ResolvedAsset>,
  signal?: AbortSignal,
  output?: RenderOutputOptions,
  timeoutMs?: number,
): Promise<Map<string, GopIndex>> {
  const keys = new Set<string>();
  for (const track of composition.tracks) {
    if (track.enabled === false || track.kind !== "video") continue;
    for (const clip of track.clips) {
      if (clip.asset.type === "video") keys.add(clip.asset.uploadId ?? clip.asset.src ?? "");
    }
  }
  const gops = new Map<string, GopIndex>();
  const size = output
    ? outputSize(composition.canvas.width, composition.canvas.height, output.width, output.height)
    : null;
  await Promise.all(
    [...keys].map(async (key) => {
      const asset = assets.get(key);
      const path = asset?.path;
      if (!path) return;
      // A source whose probed facts already rule it out is not read (its reason comes from them).
      if (size && mediaMismatch(asset.media, size)) return;
      try {
        gops.set(
          key,
          await probeGopIndex(path, {
            ...(signal ? { signal } : {}),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          }),
        );
      } catch {
        signal?.throwIfAborted();
      }
    }),
  );
  return gops;
}

/** Sums the summaries of a split render's segments into the render's. */
export function sumSmartSummaries(parts: readonly SmartRenderSummary[]): SmartRenderSummary {
  return {
    copiedFrames: parts.reduce((n, p) => n + p.copiedFrames, 0),
    encodedFrames: parts.reduce((n, p) => n + p.encodedFrames, 0),
    reasons: parts.flatMap((p) => p.reasons),
  };
}

/** Relative cost of a copied frame against an encoded one, for progress. */
const COPY_WEIGHT = 0.02;

/**
 * Makes the video of a smart plan (`plan.format` set) in `workDir`: each copy piece with
 * ffmpeg's stream copy (`-ss` on its clean keyframe, exactly `packets` packets, parameter sets
 * put in band by `h264_mp4toannexb`, the stream format's time base), each other piece with
 * `buildSegmentPlan` (the whole graph, the piece's frames kept, closed GOPs, encoded in the
 * stream format, parameter sets in band; seams at `SEAM_CRF`). Two pieces run at a time; the
 * first failure stops the other.
 *
 * @param input.prefix - file name prefix of the pieces (`piece`); distinct per call in one directory.
 * @returns the pieces' files with their output frames, in order (for `buildJoinPlan`).
 * @throws RenderError as `runRenderFfmpeg` does; FfmpegError `ABORTED` when `signal` aborts.
 */
export async function makeSmartVideo(input: {
  base: SplitPartBase;
  plan: SmartRenderPlan;
  rate: FrameRate;
  workDir: string;
  signal: AbortSignal;
  stallTimeoutMs: number;
  prefix?: string;
  failure: Parameters<typeof runRenderFfmpeg>[0]["failure"];
  onProgress?: (ratio: number) => void;
  onWarning?: (w: RenderWarning) => void;
}): Promise<(FrameRange & { file: string })[]> {
  const { plan, rate, workDir } = input;
  const format = plan.format;
  if (!format) throw new Error("makeSmartVideo needs a plan with a stream format");
  const prefix = input.prefix ?? "piece";
  const weight = (p: FrameRange & { copy?: unknown }) =>
    (p.endFrame - p.startFrame) * (p.copy ? COPY_WEIGHT : 1);
  const total = plan.pieces.reduce((n, p) => n + weight(p), 0) || 1;
  let done = 0;
  const running = new Map<number, number>();
  const report = () => {
    let partial = 0;
    for (const [i, r] of running) partial += weight(plan.pieces[i] as FrameRange) * r;
    input.onProgress?.((done + partial) / total);
  };
  // Two pieces at a time (a seam's encode is short: its process start is a good part of it); the
  // first failure stops the other piece and is thrown once both ended.
  const stop = new AbortController();
  const abort = () => stop.abort();
  input.signal.addEventListener("abort", abort, { once: true });
  const files: (FrameRange & { file: string })[] = [];
  let next = 0;
  let failure: unknown;
  const makePiece = async (i: number) => {
    const piece = plan.pieces[i] as SmartPiece;
    const progress = (ratio: number) => {
      running.set(i, ratio);
      report();
    };
    let file: string;
    if (piece.copy) {
      file = `${prefix}-${String(i).padStart(3, "0")}.mp4`;
      await runFfmpeg({
        args: [
          ...RUN_ARGS,
          ...["-ss", String(piece.copy.seekSec), "-i", piece.copy.path],
          ...["-map", "0:v:0", "-an", "-sn", "-dn", "-c", "copy", "-frames:v", String(piece.copy.packets)],
          ...["-bsf:v", "h264_mp4toannexb", "-tag:v", "avc1"],
          ...["-video_track_timescale", String(format.timescale), "-f", "mp4", file],
        ],
        cwd: workDir,
        durationSec: frameToSeconds(piece.endFrame - piece.startFrame, rate),
        signal: stop.signal,
        stallTimeoutMs: input.stallTimeoutMs,
        killGraceMs: 200,
        onProgress: (p) => progress(p.ratio),
      });
    } else {
      const seg = buildSegmentPlan(input.base, piece, i, {
        prefix,
        match: {
          profile: format.profile,
          level: format.level,
          timescale: format.timescale,
          ...(piece.seam ? { seam: true } : {}),
        },
      });
      for (const w of await writePlanFiles(seg.plan, workDir)) input.onWarning?.(w);
      await runRenderFfmpeg({
        plan: seg.plan,
        cwd: workDir,
        signal: stop.signal,
        stallTimeoutMs: input.stallTimeoutMs,
        onProgress: (p) => progress(p.ratio),
        failure: input.failure,
      });
      file = seg.file;
    }
    files[i] = { startFrame: piece.startFrame, endFrame: piece.endFrame, file };
    running.delete(i);
    done += weight(piece);
    report();
  };
  const worker = async () => {
    while (next < plan.pieces.length && !stop.signal.aborted) {
      const i = next++;
      await makePiece(i).catch((err: unknown) => {
        failure ??= err;
        stop.abort();
      });
    }
  };
  try {
    await Promise.all([worker(), worker()]);
  } finally {
    input.signal.removeEventListener("abort", abort);
  }
  if (failure !== undefined) throw failure;
  input.signal.throwIfAborted();
  return files;
}

/**
 * Joins a smart render's pieces by stream copy into the video-only mp4 `outputPath` (a split
 * render's segment), in `workDir`.
 * @throws FfmpegError when ffmpeg fails or `signal` aborts.
 */
export async function joinSmartPieces(input: {
  pieces: readonly (FrameRange & { file: string })[];
  rate: FrameRate;
  outputPath: string;
  workDir: string;
  signal: AbortSignal;
  stallTimeoutMs: number;
}): Promise<void> {
  const join = buildJoinPlan(input.pieces, input.rate, input.outputPath, null, "pieces.ffconcat");
  for (const f of join.files) await writeFile(path.join(input.workDir, f.path), f.content, "utf8");
  const first = input.pieces[0]?.startFrame ?? 0;
  const last = input.pieces.at(-1)?.endFrame ?? first;
  await runFfmpeg({
    args: join.args,
    cwd: input.workDir,
    durationSec: frameToSeconds(last - first, input.rate),
    signal: input.signal,
    stallTimeoutMs: input.stallTimeoutMs,
    killGraceMs: 200,
  });
}

/**
 * The smart plan of a whole render (`planSmartRender` over its output window) and what the
 * render stores as `smartRender`: for a split render (`segments`), the sum of its segments'
 * plans, each made with the whole render's stream format, as the parts will make them.
 * @throws RenderError `INVALID_COMPOSITION` for an empty composition or a range after its end.
 */
export function planRenderSmart(input: {
  composition: Timeline;
  options: RenderOutputOptions;
  assets: ReadonlyMap<string, ResolvedAsset>;
  gops: ReadonlyMap<string, GopIndex>;
  segments?: readonly FrameRange[] | null;
  /** As `planSmartRender`'s (default: what pays at the output's size and quality). */
  minCopyFrames?: number;
}): { whole: SmartRenderPlan; stored: StoredSmartRender } {
  const { window } = renderFrameWindow(input.composition, input.options);
  const base = {
    composition: input.composition,
    output: input.options,
    assets: input.assets,
    gops: input.gops,
    ...(input.minCopyFrames !== undefined ? { minCopyFrames: input.minCopyFrames } : {}),
  };
  const whole = planSmartRender({ ...base, range: { startFrame: window.start, endFrame: window.end } });
  if (!input.segments || !whole.format)
    return { whole, stored: { ...summaryOf(whole), format: whole.format } };
  const format = whole.format;
  const parts = input.segments.map((range) =>
    planSmartRender({ ...base, range, origin: window.start, format }),
  );
  const sum = sumSmartSummaries(parts);
  return { whole, stored: { ...sum, format: sum.copiedFrames > 0 ? format : null } };
}

const summaryOf = (p: SmartRenderSummary): SmartRenderSummary => ({
  copiedFrames: p.copiedFrames,
  encodedFrames: p.encodedFrames,
  reasons: p.reasons,
});

/**
 * Stores `smartRender` on render `renderId` (fenced by `attempt`).
 * @throws Error when the render moved on from this attempt.
 */
export async function recordSmartRender(
  db: Db,
  renderId: string,
  attempt: number,
  smartRender: StoredSmartRender,
): Promise<void> {
  const ok = await updateRenderFenced(db, { id: renderId, attempt, set: { smartRender } });
  if (!ok) throw new Error("the render moved on from this attempt");
}

/**
 * Renders a smart render made in one piece into `outputFile` (in `workDir`): the video's
 * pieces ({@link makeSmartVideo}), the whole timeline's sound once (`buildAudioPlan`, AAC),
 * then both joined by stream copy (`buildJoinPlan`, `+faststart`).
 * @throws RenderError as `runRenderFfmpeg` does; FfmpegError `ABORTED` when `signal` aborts.
 */
export async function runSmartRender(input: {
  base: SplitPartBase;
  plan: SmartRenderPlan;
  workDir: string;
  outputFile: string;
  signal: AbortSignal;
  stallTimeoutMs: number;
  failure: Parameters<typeof runRenderFfmpeg>[0]["failure"];
  onProgress?: (ratio: number) => void;
  onWarning?: (w: RenderWarning) => void;
}): Promise<void> {
  const { rate, window } = renderFrameWindow(input.base.composition, input.base.output);
  const pieces = await makeSmartVideo({
    ...input,
    rate,
    onProgress: (r) => input.onProgress?.(0.85 * r),
  });
  const audio = buildAudioPlan(input.base);
  await writePlanFiles(audio.plan, input.workDir);
  await runRenderFfmpeg({
    plan: audio.plan,
    cwd: input.workDir,
    signal: input.signal,
    stallTimeoutMs: input.stallTimeoutMs,
    onProgress: (p) => input.onProgress?.(0.85 + 0.1 * p.ratio),
    failure: input.failure,
  });
  const join = buildJoinPlan(pieces, rate, input.outputFile, audio.file);
  for (const f of join.files) await writeFile(path.join(input.workDir, f.path), f.content, "utf8");
  await runFfmpeg({
    args: join.args,
    cwd: input.workDir,
    durationSec: frameToSeconds(window.end - window.start, rate),
    signal: input.signal,
    stallTimeoutMs: input.stallTimeoutMs,
    killGraceMs: 200,
  });
  input.onProgress?.(1);
}
