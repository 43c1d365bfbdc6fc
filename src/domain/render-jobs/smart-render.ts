/**
 * Smart rendering, run: a render's (or a split render's segment's) video made of pieces, each
 * either copied from a source's packets (`planSmartRender`'s copy pieces: whole GOPs, stream
 * copy) or encoded in the copied sources' coding format (the rest), joined by stream copy.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import { updateRenderFenced } from "../../db/repositories/renders.ts";
import { FfmpegError, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { videoFrameCount } from "../../media/frame-count.ts";
import { type GopIndex, probeGopIndex } from "../../media/gop-index.ts";
import type { Timeline } from "../composition/schema.ts";
import type { EncoderVariant } from "../render/outputs.ts";
import { outputSize, RUN_ARGS } from "../render/plan.ts";
import {
  buildAudioPlan,
  buildJoinPlan,
  buildSegmentPlan,
  type FrameRange,
  type JoinEntry,
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
  SmartStreamFormat,
  StoredSmartRender,
} from "../render/types.ts";
import { runRenderFfmpeg } from "./render-ffmpeg.ts";
import { runJoin } from "./run-join.ts";
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

/**
 * How a smart render's encoded piece (or, `seam` false, any video part of a smart split render)
 * is encoded to continue the copied sources' stream (see `EncoderVariant.match`): their profile,
 * level, time base and B-frame delay, decode times one frame (`rate`) apart.
 */
export function smartMatch(
  format: SmartStreamFormat,
  rate: FrameRate,
  seam: boolean,
): NonNullable<EncoderVariant["match"]> {
  const frameTicks = (format.timescale * rate.den) / rate.num;
  return {
    profile: format.profile,
    level: format.level,
    timescale: format.timescale,
    ...(seam ? { seam: true } : {}),
    ...(format.reorderDelay !== undefined ? { reorderDelay: format.reorderDelay } : {}),
    ...(Number.isInteger(frameTicks) ? { frameTicks } : {}),
  };
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
 * A piece of a smart render's video ready for the join: a file of its own, or a copy piece read
 * in place from its source (`inpoint`/`outpoint` set, `copy` kept to copy it to a file when a
 * join finds the in-place read wrong).
 */
export interface SmartVideoPiece extends JoinEntry {
  copy?: SmartPiece["copy"];
}

/**
 * Copies a copy piece's packets into the mp4 `file` (in `workDir`) with ffmpeg's stream copy:
 * `-ss` on its clean keyframe, exactly `packets` packets, parameter sets put in band by
 * `h264_mp4toannexb`, the stream format's time base.
 * @throws FfmpegError when ffmpeg fails or `signal` aborts.
 */
async function copyPackets(input: {
  piece: SmartPiece & { copy: NonNullable<SmartPiece["copy"]> };
  file: string;
  timescale: number;
  rate: FrameRate;
  workDir: string;
  signal: AbortSignal;
  stallTimeoutMs: number;
  onProgress?: (ratio: number) => void;
}): Promise<void> {
  const { copy } = input.piece;
  await runFfmpeg({
    args: [
      ...RUN_ARGS,
      ...["-ss", String(copy.seekSec), "-i", copy.path],
      ...["-map", "0:v:0", "-an", "-sn", "-dn", "-c", "copy", "-frames:v", String(copy.packets)],
      ...["-bsf:v", "h264_mp4toannexb", "-tag:v", "avc1"],
      ...["-video_track_timescale", String(input.timescale), "-f", "mp4", input.file],
    ],
    cwd: input.workDir,
    durationSec: frameToSeconds(input.piece.endFrame - input.piece.startFrame, input.rate),
    signal: input.signal,
    stallTimeoutMs: input.stallTimeoutMs,
    killGraceMs: 200,
    ...(input.onProgress ? { onProgress: (p) => input.onProgress?.(p.ratio) } : {}),
  });
}

/**
 * Makes the video pieces of a smart plan (`plan.format` set) in `workDir`. A copy piece the
 * plan can read in place (`copy.inPlace`) costs nothing here: the join reads its packets from
 * the source. Any other copy piece is copied to a file of its own ({@link copyPackets}). Each
 * encoded piece is made with `buildSegmentPlan` (the whole graph, the piece's frames kept,
 * closed GOPs, encoded in the stream format, parameter sets in band; seams at `SEAM_CRF`). Two
 * pieces run at a time; the first failure stops the other.
 *
 * @param input.prefix - file name prefix of the pieces (`piece`); distinct per call in one directory.
 * @returns the pieces in order (for {@link joinSmartVideo}).
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
}): Promise<SmartVideoPiece[]> {
  const { plan, rate, workDir } = input;
  const format = plan.format;
  if (!format) throw new Error("makeSmartVideo needs a plan with a stream format");
  const prefix = input.prefix ?? "piece";
  const weight = (p: SmartPiece) =>
    (p.endFrame - p.startFrame) * (p.copy ? (p.copy.inPlace ? 0 : COPY_WEIGHT) : 1);
  const total = plan.pieces.reduce((n, p) => n + weight(p), 0) || 1;
  let done = 0;
  const running = new Map<number, number>();
  const report = () => {
    let partial = 0;
    for (const [i, r] of running) partial += weight(plan.pieces[i] as SmartPiece) * r;
    input.onProgress?.((done + partial) / total);
  };
  // Two pieces at a time (a seam's encode is short: its process start is a good part of it); the
  // first failure stops the other piece and is thrown once both ended.
  const stop = new AbortController();
  const signal = AbortSignal.any([input.signal, stop.signal]);
  const files: SmartVideoPiece[] = [];
  let next = 0;
  let failure: unknown;
  const makePiece = async (i: number) => {
    const piece = plan.pieces[i] as SmartPiece;
    const range = { startFrame: piece.startFrame, endFrame: piece.endFrame };
    const progress = (ratio: number) => {
      running.set(i, ratio);
      report();
    };
    const inPlace = piece.copy?.inPlace;
    if (piece.copy && inPlace) {
      const { copy } = piece;
      files[i] = { ...range, file: copy.path, inpoint: copy.seekSec, outpoint: inPlace.outpointSec, copy };
    } else if (piece.copy) {
      const file = `${prefix}-${String(i).padStart(3, "0")}.mp4`;
      await copyPackets({
        piece: { ...piece, copy: piece.copy },
        file,
        timescale: format.timescale,
        rate,
        workDir,
        signal,
        stallTimeoutMs: input.stallTimeoutMs,
        onProgress: progress,
      });
      files[i] = { ...range, file };
    } else {
      const base = plan.sourceKeyframes
        ? { ...input.base, sourceKeyframes: plan.sourceKeyframes }
        : input.base;
      const seg = buildSegmentPlan(base, piece, i, {
        prefix,
        match: smartMatch(format, rate, Boolean(piece.seam)),
      });
      for (const w of await writePlanFiles(seg.plan, workDir)) input.onWarning?.(w);
      await runRenderFfmpeg({
        plan: seg.plan,
        cwd: workDir,
        signal,
        stallTimeoutMs: input.stallTimeoutMs,
        onProgress: (p) => progress(p.ratio),
        failure: input.failure,
      });
      files[i] = { ...range, file: seg.file };
    }
    running.delete(i);
    done += weight(piece);
    report();
  };
  const worker = async () => {
    while (next < plan.pieces.length && !signal.aborted) {
      const i = next++;
      await makePiece(i).catch((err: unknown) => {
        failure ??= err;
        stop.abort();
      });
    }
  };
  await Promise.all([worker(), worker()]);
  if (failure !== undefined) throw failure;
  input.signal.throwIfAborted();
  return files;
}

/**
 * Joins a smart render's video pieces by stream copy into the mp4 `outputPath` (in `workDir`),
 * with the AAC sound `audioPath` (then `+faststart`) or video alone (null: a split render's
 * segment). When copy pieces were read in place, the output's frame count is checked: a source
 * whose other streams are interleaved far ahead of its video ends such a read early, so on a
 * wrong count those pieces are copied to files of their own ({@link copyPackets}) and the join
 * runs again (logged as a warning).
 * @throws FfmpegError when ffmpeg fails or `signal` aborts; Error when the second join's frame
 *   count is wrong too.
 */
export async function joinSmartVideo(input: {
  pieces: readonly SmartVideoPiece[];
  rate: FrameRate;
  timescale: number;
  outputPath: string;
  audioPath: string | null;
  workDir: string;
  signal: AbortSignal;
  stallTimeoutMs: number;
  log: Logger;
  onProgress?: (ratio: number) => void;
}): Promise<void> {
  const { rate, workDir } = input;
  const first = input.pieces[0]?.startFrame ?? 0;
  const frames = (input.pieces.at(-1)?.endFrame ?? first) - first;
  const join = async (pieces: readonly SmartVideoPiece[]) => {
    const plan = buildJoinPlan(pieces, rate, input.outputPath, input.audioPath, "pieces.ffconcat");
    for (const f of plan.files) await writeFile(path.join(workDir, f.path), f.content, "utf8");
    await runJoin({
      args: plan.args,
      cwd: workDir,
      durationSec: frameToSeconds(frames, rate),
      signal: input.signal,
      stallTimeoutMs: input.stallTimeoutMs,
      killGraceMs: 200,
      ...(input.onProgress ? { onProgress: (p) => input.onProgress?.(p.ratio) } : {}),
      log: input.log,
    });
  };
  await join(input.pieces);
  if (!input.pieces.some((p) => p.inpoint !== undefined)) return;
  const output = path.resolve(workDir, input.outputPath);
  const got = await videoFrameCount(output, { signal: input.signal });
  if (got === frames) return;
  input.log.warn(
    { expected: frames, got, output: path.basename(output) },
    "a smart render's in-place copies joined to a wrong frame count: copying them to files and joining again",
  );
  const pieces: SmartVideoPiece[] = [];
  for (const [i, p] of input.pieces.entries()) {
    if (p.inpoint === undefined || !p.copy) {
      pieces.push(p);
      continue;
    }
    const file = `copy-${String(i).padStart(3, "0")}.mp4`;
    await copyPackets({
      piece: { startFrame: p.startFrame, endFrame: p.endFrame, copy: p.copy },
      file,
      timescale: input.timescale,
      rate,
      workDir,
      signal: input.signal,
      stallTimeoutMs: input.stallTimeoutMs,
    });
    pieces.push({ startFrame: p.startFrame, endFrame: p.endFrame, file });
  }
  await join(pieces);
  const again = await videoFrameCount(output, { signal: input.signal });
  if (again !== frames) throw new Error(`a smart render joined ${again} video frames, not ${frames}`);
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
 * Renders a smart render made in one piece into `outputFile` (in `workDir`): the video's pieces
 * ({@link makeSmartVideo}) and, at the same time, the whole timeline's sound once
 * (`buildAudioPlan`, AAC); then both joined by stream copy ({@link joinSmartVideo},
 * `+faststart`). The first failure of the video or the sound stops the other.
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
  const { rate } = renderFrameWindow(input.base.composition, input.base.output);
  const timescale = input.plan.format?.timescale;
  if (timescale === undefined) throw new Error("runSmartRender needs a plan with a stream format");
  const stop = new AbortController();
  const signal = AbortSignal.any([input.signal, stop.signal]);
  let video = 0;
  let sound = 0;
  const report = () => input.onProgress?.(0.75 * video + 0.1 * sound);
  const firstFailure = (err: unknown) => {
    stop.abort();
    throw err;
  };
  const settled = await Promise.allSettled([
    makeSmartVideo({
      ...input,
      signal,
      rate,
      onProgress: (r) => {
        video = r;
        report();
      },
    }).catch(firstFailure),
    (async () => {
      const audio = buildAudioPlan(input.base);
      await writePlanFiles(audio.plan, input.workDir);
      await runRenderFfmpeg({
        plan: audio.plan,
        cwd: input.workDir,
        signal,
        stallTimeoutMs: input.stallTimeoutMs,
        onProgress: (p) => {
          sound = p.ratio;
          report();
        },
        failure: input.failure,
      });
      return audio.file;
    })().catch(firstFailure),
  ]);
  input.signal.throwIfAborted();
  // The failure that stopped the other (its own end is then an abort).
  const failed = settled.filter((r) => r.status === "rejected").map((r) => r.reason as unknown);
  const cause = failed.find((e) => !(e instanceof FfmpegError && e.code === "ABORTED")) ?? failed[0];
  if (failed.length > 0) throw cause;
  const pieces = (settled[0] as PromiseFulfilledResult<SmartVideoPiece[]>).value;
  const audioFile = (settled[1] as PromiseFulfilledResult<string>).value;
  await joinSmartVideo({
    pieces,
    rate,
    timescale,
    outputPath: input.outputFile,
    audioPath: audioFile,
    workDir: input.workDir,
    signal: input.signal,
    stallTimeoutMs: input.stallTimeoutMs,
    log: input.failure.log,
    onProgress: (r) => input.onProgress?.(0.85 + 0.15 * r),
  });
  input.onProgress?.(1);
}
