import type { Readable } from "node:stream";
import { findComposition } from "../../db/repositories/compositions.ts";
import { notFound } from "../../errors.ts";
import { FfmpegError } from "../../media/ffmpeg-run.ts";
import {
  asPreviewConflict,
  checkBeforeEnd,
  type PreviewDeps,
  type PreviewSources,
  previewWindow,
  runPreview,
} from "./preview-run.ts";
import { previewSlots } from "./preview-slots.ts";

/** Longest "Play from here" preview, seconds of timeline. */
export const PREVIEW_MAX_SECONDS = 10;

/** Limits of the preview videos of one API process. */
export interface PreviewStreamOptions extends PreviewDeps {
  /** Videos streamed at once (each holds an ffmpeg until it ends); more wait up to `maxWaiting`, beyond that 429. */
  concurrency: number;
  maxWaiting: number;
  /** A preview video still running after this long is stopped (milliseconds). */
  maxRunMs: number;
}

/** A preview video being written: its bytes as ffmpeg writes them, and what it shows. */
export interface PreviewVideo {
  /** Fragmented MP4 (H.264 + AAC, draft), readable while ffmpeg writes it. */
  body: Readable;
  version: number;
  /** Seconds of timeline: where it starts, and how long it is (cut at the composition's end). */
  from: number;
  duration: number;
  /** What its video clips' pictures read: preview proxies or originals. */
  sources: PreviewSources;
  /** Settles (never rejects) once ffmpeg has exited, its slot is free and its files are gone. */
  finished: Promise<void>;
}

/**
 * "Play from here": a draft render of `duration` seconds of a stored composition from `from`,
 * at a preview width, streamed as it is encoded. The real renderer plans it exactly as a
 * `POST /api/render` of that `range` with `quality: draft` and `width` (only the clips near the
 * range are resolved and opened), except the container: a fragmented MP4 written to a pipe (a
 * short first fragment, then one every half second), which a `<video>` plays from its first fragment
 * instead of waiting for the whole file, and the video clips' pictures, which read their uploads'
 * preview proxies where these are ready and have pixels enough at the width (`runPreview`).
 */
export function createPreviewStream(opts: PreviewStreamOptions) {
  const slots = previewSlots(opts.concurrency, opts.maxWaiting, "preview videos");
  return {
    /**
     * Starts the preview video and resolves once ffmpeg wrote its first bytes (the header: the
     * plan's graph is running), so that a plan ffmpeg refuses is still an error response.
     * @param range.duration - seconds, at most {@link PREVIEW_MAX_SECONDS}; cut at the end.
     * @param range.proxies - decode video clips from their preview proxies where these serve
     *   (default); false: from the originals.
     * @param gone - aborts when the client went away (also before the first bytes): ffmpeg stops.
     * @throws 404 when the composition is absent or another owner's; 400 naming `/from` at or
     *   past the end; 409 `conflict` with `renderError` when the renderer cannot render it;
     *   429 when too many preview videos are running and waiting.
     */
    async open(
      userId: string,
      compositionId: string,
      range: { from: number; duration: number; width: number; proxies?: boolean },
      gone?: AbortSignal,
    ): Promise<PreviewVideo> {
      const row = await findComposition(opts.db, userId, compositionId);
      if (!row) throw notFound(`Composition ${compositionId}`);
      const total = checkBeforeEnd(row.document, range.from, "from");
      const from = range.from;
      const duration = Math.min(range.duration, PREVIEW_MAX_SECONDS, total - from);
      const release = await slots.take();
      const signal = AbortSignal.any([AbortSignal.timeout(opts.maxRunMs), ...(gone ? [gone] : [])]);
      let sources: PreviewSources = { proxy: 0, original: 0 };
      let gotPipe: (output: Readable) => void = () => {};
      const pipe = new Promise<Readable>((resolve) => {
        gotPipe = resolve;
      });
      const run = runPreview(
        opts,
        {
          row,
          doc: previewWindow(row.document, from, from + duration, { sound: true }),
          options: { format: "mp4", quality: "draft", range: { start: from, duration }, width: range.width },
          variant: { fragmented: true },
          output: "pipe:3",
          scratch: "pvw",
          proxies: range.proxies ?? true,
          signal,
          onOutputPipe: gotPipe,
          onSources: (s) => {
            sources = s;
          },
        },
        async () => undefined,
      );
      const finished = run
        .then(
          () => undefined,
          (err: unknown) => {
            // Stopped on purpose (the client went away, or the time limit): nothing to report.
            if (signal.aborted || (err instanceof FfmpegError && err.code === "ABORTED")) return;
            opts.log.warn({ compositionId: row.id, err }, "preview video failed");
          },
        )
        .finally(release);
      const firstBytes = pipe.then(
        (body) =>
          new Promise<Readable>((resolve) => {
            // Also at the end of the pipe: without a byte written, the run's outcome decides.
            body.once("readable", () => resolve(body.readableLength > 0 ? body : run.then(() => body)));
          }),
      );
      try {
        const body = await Promise.race([firstBytes, run.then(() => firstBytes)]);
        return {
          body,
          version: row.version,
          from,
          duration,
          sources,
          finished,
        };
      } catch (err) {
        // The run failed (ffmpeg has exited): the renderer's reason.
        throw asPreviewConflict(err);
      }
    },
  };
}

/** The preview video service (see {@link createPreviewStream}). */
export type PreviewStream = ReturnType<typeof createPreviewStream>;
