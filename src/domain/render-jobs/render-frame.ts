import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import { type CompositionRow, findComposition } from "../../db/repositories/compositions.ts";
import { AppError, conflict, invalidRequest, notFound } from "../../errors.ts";
import { FfmpegError, runFfmpeg } from "../../media/ffmpeg-run.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { compositionDuration } from "../composition/duration.ts";
import type { Timeline } from "../composition/schema.ts";
import { RenderError } from "../render/types.ts";
import { explainRenderFailure } from "./render-failure.ts";
import { ffmpegLaunch } from "./render-pipeline.ts";
import { prepareRender } from "./render-prepare.ts";

/** A rendered preview frame: JPEG bytes and the composition version it shows. */
export interface PreviewFrame {
  jpeg: Buffer;
  version: number;
  /** The time rendered, seconds, as requested. */
  t: number;
  width: number;
}

/** Limits of the preview renderer of one API process. */
export interface FramePreviewOptions {
  db: Db;
  store: BlobStore;
  /** Scratch root (`WORK_DIR`); each frame works in a `frame-*` directory under it, removed after. */
  workRoot: string;
  log: Logger;
  /** Frames rendered at once; more wait in line up to `maxWaiting`, beyond that 429. */
  concurrency: number;
  maxWaiting: number;
  /** Bytes of JPEG kept in the cache (keyed by composition, version, time and width). */
  cacheBytes: number;
  /** ffmpeg without progress this long fails (milliseconds). */
  stallTimeoutMs: number;
}

/** Longest transition (seconds), plus a second: clips farther than this from a frame cannot show in it. */
const REACH_SECONDS = 11;

/**
 * The part of a timeline that can show at time `t`: the clips within {@link REACH_SECONDS} of it
 * (so a transition into or out of a neighbour is kept whole), no audio tracks and no ducking (a
 * still has no sound), and the original length fixed as the canvas duration; the whole timeline
 * when nothing visible is near. The frame is the same; the
 * renderer opens only the sources near `t` instead of every source of the composition.
 */
export function frameWindow(doc: Timeline, t: number): Timeline {
  const near = (c: { start: number; duration: number }) =>
    c.start <= t + REACH_SECONDS && c.start + c.duration >= t - REACH_SECONDS;
  const tracks = doc.tracks
    .filter((track) => track.kind !== "audio")
    .map(({ ducking: _ducking, ...track }) => ({ ...track, clips: track.clips.filter(near) }));
  // Nothing near t (or nothing but sound): the renderer is given the whole timeline as it is.
  if (tracks.every((track) => track.clips.length === 0)) return doc;
  return { ...doc, canvas: { ...doc.canvas, duration: compositionDuration(doc) }, tracks };
}

/** Frame times are cached and rendered at millisecond precision. */
const roundMs = (t: number) => Math.round(t * 1000) / 1000;

/**
 * The preview frame service: renders one JPEG frame of a stored composition at time `t` with the
 * real renderer (the same plan and ffmpeg invocation as a `jpg` render with `frameAt`), in the
 * API process and synchronously, for a timeline's preview. Frames are cached by composition
 * id, version, time and width (a new version never shows an old frame) and identical requests
 * in flight share one ffmpeg run.
 */
export function createFramePreview(opts: FramePreviewOptions) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const cache = new LRUCache<string, Buffer>({
    maxSize: opts.cacheBytes,
    sizeCalculation: (b) => Math.max(1, b.length),
  });
  const inFlight = new Map<string, Promise<Buffer>>();

  async function slot(): Promise<() => void> {
    if (running >= opts.concurrency) {
      if (waiting.length >= opts.maxWaiting) {
        throw new AppError("rate_limited", "Too many preview frames are being rendered; retry shortly", {
          headers: { "Retry-After": "1" },
        });
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    running++;
    return () => {
      running--;
      waiting.shift()?.();
    };
  }

  async function render(row: CompositionRow, t: number, width: number): Promise<Buffer> {
    const release = await slot();
    await mkdir(opts.workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(opts.workRoot, "frame-"));
    const signal = AbortSignal.timeout(opts.stallTimeoutMs * 2);
    try {
      const doc = frameWindow(row.document, t);
      // The same pre-ffmpeg steps as a render (sources, fonts, plan, files) and the same
      // explanation of a failure, naming the clip.
      const { plan, refsByPath, outputFile } = await prepareRender({
        db: opts.db,
        store: opts.store,
        userId: row.userId,
        composition: doc,
        options: { format: "jpg", quality: "draft", frameAt: t, width },
        workDir,
        remote: { maxBytes: 64 * 1024 * 1024, timeoutMs: 15_000 },
        signal,
        decoderThreads: 1,
      });
      try {
        await runFfmpeg({
          ...ffmpegLaunch(plan.args),
          cwd: workDir,
          durationSec: plan.durationSec,
          signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          killGraceMs: 200,
        });
      } catch (err) {
        if (err instanceof FfmpegError && err.code !== "ABORTED") {
          opts.log.warn(
            { compositionId: row.id, code: err.code, stderr: err.stderrTail },
            "preview frame failed",
          );
          if (err.code === "FFMPEG_FAILED") {
            throw await explainRenderFailure(err, { plan, composition: doc, refsByPath });
          }
          throw new RenderError("TIMEOUT", "The preview frame took too long and was stopped");
        }
        throw err;
      }
      return await readFile(path.join(workDir, outputFile));
    } finally {
      release();
      await rm(workDir, { recursive: true, force: true });
    }
  }

  return {
    /**
     * The frame of composition `compositionId` (of `userId`) at `t` seconds, `width` pixels wide
     * (height from the canvas aspect).
     * @param t - seconds from the start; must be below the composition's duration.
     * @throws 404 when the composition is absent or another owner's; 400 naming `/t` past the
     *   end; 409 `conflict` with `renderError` ({ code, message, clipId? }) when the renderer
     *   cannot render it (e.g. a missing upload); 429 when too many frames are in line.
     */
    async frame(userId: string, compositionId: string, t: number, width: number): Promise<PreviewFrame> {
      const row = await findComposition(opts.db, userId, compositionId);
      if (!row) throw notFound(`Composition ${compositionId}`);
      const duration = compositionDuration(row.document);
      if (t >= duration) {
        throw invalidRequest("t is past the end of the composition", [
          { path: "/t", message: `must be < ${duration} (the composition's duration in seconds)` },
        ]);
      }
      const at = roundMs(t);
      const key = `${row.id}@${row.version}:${at}:${width}`;
      let jpeg = cache.get(key);
      if (!jpeg) {
        let pending = inFlight.get(key);
        if (!pending) {
          pending = render(row, at, width).finally(() => inFlight.delete(key));
          inFlight.set(key, pending);
        }
        try {
          jpeg = await pending;
        } catch (err) {
          if (err instanceof RenderError) {
            throw conflict(`The renderer cannot draw this frame: ${err.message}`, {
              renderError: err.toJSON(),
            });
          }
          throw err;
        }
        cache.set(key, jpeg);
      }
      return { jpeg, version: row.version, t: at, width };
    },
  };
}

/** The preview frame service (see {@link createFramePreview}). */
export type FramePreview = ReturnType<typeof createFramePreview>;
