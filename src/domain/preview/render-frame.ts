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
  const inFlight = new Map<string, Promise<{ jpeg: Buffer; spans: PreviewSpans }>>();

  return {
    /**
     * The frame of composition `compositionId` (of `userId`) at `t` seconds, `width` pixels wide
     * (height from the canvas aspect).
     * @param t - seconds from the start; must be below the composition's duration.
     * @param sources.proxies - decode video clips from their uploads' preview proxies where these are
     *   ready and have pixels enough (default); false: from the originals, as a render does.
     * @throws 404 when the composition is absent or another owner's; 400 naming `/t` past the
     *   end; 409 `conflict` with `renderError` ({ code, message, clipId? }) when the renderer
     *   cannot render it (e.g. a missing upload); 429 when too many frames are in line.
     */
    async frame(
      userId: string,
      compositionId: string,
      t: number,
      width: number,
      sources: { proxies?: boolean } = {},
    ): Promise<PreviewFrame> {
      const proxies = sources.proxies ?? true;
      const row = await findComposition(opts.db, userId, compositionId);
      if (!row) throw notFound(`Composition ${compositionId}`);
      checkBeforeEnd(row.document, t, "t");
      const rate = toFrameRate(row.document.canvas.fps);
      const frame = secondsToFrame(t, rate);
      const at = frameToSeconds(frame, rate);
      const key = `${row.id}@${row.version}:${frame}:${width}${proxies ? "" : ":originals"}`;
      const cached = cache.get(key);
      if (cached) return { jpeg: cached, version: row.version, t: at, frame, width };
      let pending = inFlight.get(key);
      const mine = !pending;
      if (!pending) {
        pending = (async () => {
          const release = await slots.take();
          try {
            const { value, spans } = await runPreview(
              opts,
              {
                row,
                doc: previewWindow(row.document, at, at, { sound: false }),
                options: { format: "jpg", quality: "draft", frameAt: at, width },
                scratch: "frm",
                proxies,
                signal: AbortSignal.timeout(opts.stallTimeoutMs * 2),
              },
              (file) => readFile(file),
            );
            cache.set(key, value);
            return { jpeg: value, spans };
          } finally {
            release();
          }
        })().finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      try {
        const { jpeg, spans } = await pending;
        return { jpeg, version: row.version, t: at, frame, width, ...(mine ? { spans } : {}) };
      } catch (err) {
        throw asPreviewConflict(err);
      }
    },
  };
}

/** The preview frame service (see {@link createFramePreview}). */
export type FramePreview = ReturnType<typeof createFramePreview>;
