import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { conflict, invalidRequest } from "../../errors.ts";

import { FfmpegError, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { type ScratchKind, scratchWorkDirPrefix } from "../../queue/scratch-work-dirs.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { compositionDuration } from "../composition/duration.ts";
import type { Timeline } from "../composition/schema.ts";
import type { EncoderVariant } from "../render/outputs.ts";
import { RenderError, type RenderOutputOptions } from "../render/types.ts";
import { explainRenderFailure } from "../render-jobs/render-failure.ts";
import { prepareRender } from "../render-jobs/render-prepare.ts";

/**
 * Decoder threads of each video input of a preview (frame or stream): one per core, at most 4.
 * A preview decodes from the keyframe before its time up to it, a run of frames that frame
 * threading splits across the cores (a preview's frame itself is the same whatever the count);
 * on the 2-core reference machine two threads cut a 640-px frame's p95 from ~600 to ~420 ms.
 */
const PREVIEW_DECODER_THREADS = Math.max(1, Math.min(availableParallelism(), 4));

/** Longest transition (seconds), plus a second: clips farther than this from a window cannot show in it. */
const REACH_SECONDS = 11;

/**
 * The part of a timeline that can show in `[from, to]` seconds: the clips within
 * {@link REACH_SECONDS} of it (so a transition into or out of a neighbour is kept whole), and the
 * original length fixed as the canvas duration. Without `sound` (a still) the audio tracks and
 * ducking go too. The whole timeline when nothing visible is near. The frames are the same; the
 * renderer resolves and opens only the sources near the window instead of every source.
 */
export function previewWindow(doc: Timeline, from: number, to: number, opts: { sound: boolean }): Timeline {
  const near = (c: { start: number; duration: number }) =>
    c.start <= to + REACH_SECONDS && c.start + c.duration >= from - REACH_SECONDS;
  const tracks = doc.tracks
    .filter((track) => opts.sound || track.kind !== "audio")
    .map((track) => {
      const kept = { ...track, clips: track.clips.filter(near) };
      if (opts.sound) return kept;
      const { ducking: _ducking, ...silent } = kept;
      return silent;
    });
  // Nothing visible near the window: the renderer is given the whole timeline as it is.
  if (tracks.every((track) => track.kind === "audio" || track.clips.length === 0)) return doc;
  return { ...doc, canvas: { ...doc.canvas, duration: compositionDuration(doc) }, tracks };
}

/** What a preview needs from the API process. */
export interface PreviewDeps {
  db: Db;
  store: BlobStore;
  /** Scratch root (`WORK_DIR`); each preview works in a directory under it, removed after. */
  workRoot: string;
  log: Logger;
  /** ffmpeg without progress this long fails (milliseconds). */
  stallTimeoutMs: number;
}

/** One preview to render: the stored composition, the part of it to plan, the output. */
export interface PreviewJob {
  row: CompositionRow;
  /** The timeline planned (usually {@link previewWindow} of the row's document). */
  doc: Timeline;
  options: RenderOutputOptions;
  variant?: EncoderVariant;
  /** Where ffmpeg writes: a file name in the scratch directory, or `pipe:3` with `onOutputPipe`. */
  output?: string;
  /** Let video clips read their uploads' preview proxies (false: every clip reads its original, as a render). */
  proxies: boolean;
  /** Which scratch directory: `frm` a frame's, `pvw` a video's (the work-directory sweep removes leftovers). */
  scratch: ScratchKind;
  signal: AbortSignal;
  onOutputPipe?: (output: Readable) => void;
  /** Called once the plan is made, before ffmpeg starts, with what its video clips read. */
  onSources?: (sources: PreviewSources) => void;
}

/**
 * Milliseconds spent preparing (sources, fonts, plan, files) and in ffmpeg, and how many video
 * inputs read a preview proxy and how many an original.
 */
export interface PreviewSpans {
  prepareMs: number;
  ffmpegMs: number;
  sources: PreviewSources;
}

/** How many video clip pictures of a preview read their upload's preview proxy, and how many the original. */
export interface PreviewSources {
  proxy: number;
  original: number;
}

/**
 * Renders a preview with the real renderer: the same pre-ffmpeg steps as a render
 * (`prepareRender`: sources, fonts, plan, files), except that with `job.proxies` a video clip's
 * picture reads its upload's preview proxy where that is ready and has pixels enough at the
 * preview's size (else the original: a preview never waits for a proxy), one decoder thread per input, then ffmpeg, in a
 * scratch directory that is removed once ffmpeg has exited. `collect` reads what it needs from
 * the directory (e.g. the JPEG) before it goes.
 *
 * @returns `collect`'s value and the time spans.
 * @throws RenderError the renderer's failure, naming the clip (`explainRenderFailure`), or
 *   `TIMEOUT` when ffmpeg stalled; FfmpegError `ABORTED` when `job.signal` aborted.
 */
export async function runPreview<T>(
  deps: PreviewDeps,
  job: PreviewJob,
  collect: (file: string) => Promise<T>,
): Promise<{ value: T; spans: PreviewSpans }> {
  const started = performance.now();
  await mkdir(deps.workRoot, { recursive: true });
  const workDir = await mkdtemp(path.join(deps.workRoot, scratchWorkDirPrefix(job.scratch)));
  try {
    const { plan, refsByPath, outputFile } = await prepareRender({
      db: deps.db,
      store: deps.store,
      userId: job.row.userId,
      composition: job.doc,
      options: job.options,
      workDir,
      remote: { maxBytes: 64 * 1024 * 1024, timeoutMs: 15_000 },
      signal: job.signal,
      decoderThreads: PREVIEW_DECODER_THREADS,
      proxies: job.proxies,
      ...(job.output ? { output: job.output } : {}),
      ...(job.variant ? { variant: job.variant } : {}),
    });
    const prepared = performance.now();
    const pictures = plan.inputs.filter((i) => i.picture && refsByPath.get(i.path)?.assetType === "video");
    const proxy = pictures.filter((i) => i.proxy).length;
    const sources = { proxy, original: pictures.length - proxy };
    job.onSources?.(sources);
    try {
      await runFfmpeg({
        args: plan.args,
        cwd: workDir,
        durationSec: plan.durationSec,
        signal: job.signal,
        stallTimeoutMs: deps.stallTimeoutMs,
        killGraceMs: 200,
        ...(job.onOutputPipe ? { onOutputPipe: job.onOutputPipe } : {}),
      });
    } catch (err) {
      if (err instanceof FfmpegError && err.code !== "ABORTED") {
        deps.log.warn(
          { compositionId: job.row.id, code: err.code, stderr: err.stderrTail },
          "preview render failed",
        );
        if (err.code === "FFMPEG_FAILED") {
          throw await explainRenderFailure(err, { plan, composition: job.doc, refsByPath });
        }
        throw new RenderError("TIMEOUT", "The preview took too long and was stopped");
      }
      throw err;
    }
    const value = await collect(path.join(workDir, outputFile));
    return {
      value,
      spans: { prepareMs: prepared - started, ffmpegMs: performance.now() - prepared, sources },
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * A renderer failure as the API's 409 `conflict` with `renderError` ({ code, message, clipId? });
 * any other error as it is.
 */
export function asPreviewConflict(err: unknown): unknown {
  if (err instanceof RenderError) {
    return conflict(`The renderer cannot draw this preview: ${err.message}`, { renderError: err.toJSON() });
  }
  return err;
}

/**
 * 400 naming `field` when `at` seconds is not before the end of the composition `doc`.
 * @returns the composition's duration, seconds.
 */
export function checkBeforeEnd(doc: Timeline, at: number, field: string): number {
  const duration = compositionDuration(doc);
  if (at >= duration) {
    throw invalidRequest(`${field} is past the end of the composition`, [
      { path: `/${field}`, message: `must be < ${duration} (the composition's duration in seconds)` },
    ]);
  }
  return duration;
}
