import { readFile } from "node:fs/promises";
import { LRUCache } from "lru-cache";
import { findComposition } from "../../db/repositories/compositions.ts";
import { notFound } from "../../errors.ts";
import { frameToSeconds, secondsToFrame, toFrameRate } from "../render/timeline.ts";
import {
  asPreviewConflict,
  checkBeforeEnd,
  type PreviewDeps,
  type PreviewSpans,
  previewWindow,
  runPreview,
} from "./preview-run.ts";
import { previewSlots } from "./preview-slots.ts";

/** A rendered preview frame: JPEG bytes and the composition version it shows. */
export interface PreviewFrame {
  jpeg: Buffer;
  version: number;
  /** The time rendered, seconds: the start of the canvas frame that shows at the time asked. */
  t: number;
  /** The canvas frame index (at the canvas fps) of `t`. */
  frame: number;
  width: number;
  /** Where the time went: absent when the frame came from the cache (or a request already rendering it). */
  spans?: PreviewSpans;
}

/** Limits of the preview renderer of one API process. */
export interface FramePreviewOptions extends PreviewDeps {
  /** Frames rendered at once; more wait in line up to `maxWaiting`, beyond that 429. */
  concurrency: number;
  maxWaiting: number;
  /** Bytes of JPEG kept in the cache (keyed by composition, version, frame and width). */
  cacheBytes: number;
}

/**
 * The preview frame service: renders one JPEG frame of a stored composition at time `t` with the
 * real renderer (the same plan and ffmpeg invocation as a `jpg` render with `frameAt` and
 * `width`: planned at that width from the start, not scaled down from the canvas size), in the
 * API process and synchronously, for a timeline's preview. Only the clips near `t` are
 * resolved and opened (`previewWindow`), each source seeked on the input side. Frames are cached
 * by composition id, version, canvas frame, width and source kind (a new version never shows an old frame;
 * two times within one frame share it) and identical requests in flight share one ffmpeg run.
 */
export function createFramePreview(opts: FramePreviewOptions) {
  const slots = previewSlots(opts.concurrency, opts.maxWaiting, "preview frames");
  const cache = new LRUCache<string, Buffer>({
    maxSize: opts.cacheBytes,
    sizeCalculation: (b) => Math.max(1, b.length),
  });
  /** Identical requests in flight: one run, stopped when every request waiting on it went away. */
  const inFlight = new Map<string, SharedRun>();

  return {
    /**
     * The frame of composition `compositionId` (of `userId`) at `t` seconds, `width` pixels wide
     * (height from the canvas aspect).
     * @param t - seconds from the start; must be below the composition's duration.
     * @param sources.proxies - decode video clips from their uploads' preview proxies where these are
     *   ready and have pixels enough (default); false: from the originals, as a render does.
     * @param sources.signal - aborts when the caller went away: the run stops once no identical
     *   request waits on it any more (it is shared), and this call rejects with the signal's reason.
     * @throws 404 when the composition is absent or another owner's; 400 naming `/t` past the
     *   end; 409 `conflict` with `renderError` ({ code, message, clipId? }) when the renderer
     *   cannot render it (e.g. a missing upload); 429 when too many frames are in line.
     */
    async frame(
      userId: string,
      compositionId: string,
      t: number,
      width: number,
      sources: { proxies?: boolean; signal?: AbortSignal } = {},
    ): Promise<PreviewFrame> {
      const proxies = sources.proxies ?? true;
      const gone = sources.signal;
      const row = await findComposition(opts.db, userId, compositionId);
      if (!row) throw notFound(`Composition ${compositionId}`);
      checkBeforeEnd(row.document, t, "t");
      const rate = toFrameRate(row.document.canvas.fps);
      const frame = secondsToFrame(t, rate);
      const at = frameToSeconds(frame, rate);
      const key = `${row.id}@${row.version}:${frame}:${width}${proxies ? "" : ":originals"}`;
      const cached = cache.get(key);
      if (cached) return { jpeg: cached, version: row.version, t: at, frame, width };
      // From here to listening for `gone` nothing awaits, so no abort is missed.
      gone?.throwIfAborted();
      let run = inFlight.get(key);
      const mine = !run;
      if (!run) {
        const stop = new AbortController();
        const started: SharedRun = {
          waiting: 0,
          stop,
          result: (async () => {
            const release = await slots.take();
            try {
              stop.signal.throwIfAborted();
              const { value, spans } = await runPreview(
                opts,
                {
                  row,
                  doc: previewWindow(row.document, at, at, { sound: false }),
                  options: { format: "jpg", quality: "draft", frameAt: at, width },
                  scratch: "frm",
                  proxies,
                  signal: AbortSignal.any([AbortSignal.timeout(opts.stallTimeoutMs * 2), stop.signal]),
                },
                (file) => readFile(file),
              );
              cache.set(key, value);
              return { jpeg: value, spans };
            } finally {
              release();
            }
          })().finally(() => {
            if (inFlight.get(key) === started) inFlight.delete(key);
          }),
        };
        run = started;
        inFlight.set(key, run);
      }
      const shared = run;
      shared.waiting += 1;
      let left = false;
      const leave = () => {
        left = true;
        shared.waiting -= 1;
        if (shared.waiting > 0) return;
        // Nobody waits any more: stop ffmpeg, and let a later identical request start afresh.
        shared.stop.abort(gone?.reason);
        if (inFlight.get(key) === shared) inFlight.delete(key);
      };
      gone?.addEventListener("abort", leave, { once: true });
      try {
        const { jpeg, spans } = await (gone ? raceAbort(shared.result, gone) : shared.result);
        return { jpeg, version: row.version, t: at, frame, width, ...(mine ? { spans } : {}) };
      } catch (err) {
        if (gone?.aborted) throw gone.reason;
        throw asPreviewConflict(err);
      } finally {
        gone?.removeEventListener("abort", leave);
        if (!left) shared.waiting -= 1;
      }
    },
  };
}

/** One frame run shared by the identical requests waiting on it. */
interface SharedRun {
  result: Promise<{ jpeg: Buffer; spans: PreviewSpans }>;
  /** Requests waiting on `result`. */
  waiting: number;
  /** Aborts the run (when `waiting` drops to 0 because every request went away). */
  stop: AbortController;
}

/** `promise`, or a rejection with `signal`'s reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The preview frame service (see {@link createFramePreview}). */
export type FramePreview = ReturnType<typeof createFramePreview>;
