/**
 * Preview proxies of video uploads: a small H.264 copy with a keyframe every 0.5 s, made once by
 * a queued `preview_proxy` job when the upload is created and stored beside the original
 * (`uploads/<id>/proxy.mp4`, deleted with the upload's folder). Preview frames and "Play from
 * here" streams decode it instead of the original where it has pixels enough; renders never do.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import { findUploadById, settlePreviewProxy } from "../../db/repositories/uploads.ts";
import type { UploadPreviewProxy } from "../../db/schema/uploads.ts";
import { FfmpegError } from "../../media/ffmpeg-run.ts";
import { makePreviewProxy } from "../../media/preview-proxy.ts";
import { MediaProbeError, probeMedia } from "../../media/probe.ts";
import { isOpaqueVideoCodec } from "../../media/video-codecs.ts";
import { JOBS, type PreviewProxyJobV1 } from "../../queue/catalog.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { scratchWorkDirPrefix } from "../../queue/scratch-work-dirs.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { uploadPreviewProxyKey } from "../../storage/keys.ts";
import { localCopy } from "../../storage/local-copy.ts";
import { readAndKeepKeyframes } from "./keyframe-index.ts";
import type { UploadType } from "./upload-type.ts";

/**
 * Whether an upload gets a preview proxy: a video with a picture in a codec without alpha (a
 * proxy is 4:2:0 H.264, so a source that may carry alpha, e.g. ProRes 4444 or QuickTime
 * Animation, keeps previewing from its original).
 */
export function wantsPreviewProxy(type: UploadType, media: { videoCodec?: string | null } | null): boolean {
  return type === "video" && isOpaqueVideoCodec(media?.videoCodec);
}

/**
 * Queues the preview proxy jobs of new upload rows whose `previewProxy` is `pending`, inside the
 * transaction `tx` that inserted them (a rolled-back insert leaves no job).
 */
export async function queuePreviewProxies(
  enqueue: Enqueue,
  tx: Db,
  rows: readonly { id: string; previewProxy: UploadPreviewProxy | null }[],
): Promise<void> {
  for (const row of rows) {
    if (row.previewProxy?.status !== "pending") continue;
    await enqueue({ job: JOBS.previewProxy, data: { v: 1, uploadId: row.id } }, tx);
  }
}

/** The state of an upload's preview proxy as the Upload resource shows it. */
export type PreviewProxyState = "ready" | "pending" | "failed" | "none";

/** `Upload.previewProxy` of a row's `preview_proxy` column (`none`: the upload gets no proxy). */
export function previewProxyState(value: UploadPreviewProxy | null): PreviewProxyState {
  return value?.status ?? "none";
}

/** What building proxies needs. */
export interface PreviewProxyDeps {
  db: Db;
  store: BlobStore;
  /** Scratch root (`WORK_DIR`): each build works in a `prx_…` directory under it, removed after. */
  workRoot: string;
  log: Logger;
  /** How long ffmpeg and ffprobe may make no progress on the source, ms (`RENDER_STALL_TIMEOUT_SEC`). */
  stallTimeoutMs: number;
}

/**
 * Builds the preview proxy of upload `uploadId` (one attempt): copies the original locally when
 * the store is remote, encodes the proxy (`makePreviewProxy`), probes its size, stores it at
 * `uploads/<id>/proxy.mp4` and marks the row `ready`. An upload that is gone or no longer
 * `pending` is left alone; one deleted while its proxy was made has the stored proxy removed
 * again. The source's keyframe index is read and kept on the upload on the way
 * (`readAndKeepKeyframes`; a source whose index cannot be read keeps none). A source ffmpeg
 * cannot encode marks the proxy `failed` (no retry).
 *
 * @returns `succeeded`, `failed` or `superseded`.
 * @throws storage and database errors, and ffmpeg stalls (the job is retried once).
 */
export async function buildPreviewProxy(deps: PreviewProxyDeps, uploadId: string): Promise<string> {
  const row = await findUploadById(deps.db, uploadId);
  if (row?.previewProxy?.status !== "pending") return "superseded";
  await mkdir(deps.workRoot, { recursive: true });
  const workDir = await mkdtemp(path.join(deps.workRoot, scratchWorkDirPrefix("prx")));
  try {
    const started = performance.now();
    const input = await localCopy(deps.store, row.storageKey, workDir, "source");
    const output = path.join(workDir, "proxy.mp4");
    let size: { width: number; height: number };
    try {
      await makePreviewProxy(input, output, {
        durationSec: row.media?.duration ?? 0,
        cwd: workDir,
        stallTimeoutMs: deps.stallTimeoutMs,
      });
      const probe = await probeMedia(output, { timeoutMs: 30_000 });
      if (!probe.width || !probe.height) throw new MediaProbeError("the proxy has no picture");
      size = { width: probe.width, height: probe.height };
    } catch (err) {
      const unusable =
        (err instanceof FfmpegError && err.code === "FFMPEG_FAILED") || err instanceof MediaProbeError;
      if (!unusable) throw err;
      deps.log.warn({ uploadId, err }, "preview proxy could not be made");
      await settlePreviewProxy(deps.db, uploadId, { status: "failed", message: err.message.slice(0, 300) });
      return "failed";
    }
    // The source's keyframe index, read here once from the local copy so that no render reads it.
    const timeout = { timeoutMs: deps.stallTimeoutMs };
    await readAndKeepKeyframes(deps.db, uploadId, input, timeout).catch((err: unknown) => {
      deps.log.warn({ uploadId, err }, "keyframe index could not be read");
    });
    const key = uploadPreviewProxyKey(uploadId);
    const { size: bytes } = await deps.store.putFile(key, output, { contentType: "video/mp4", move: true });
    const buildMs = Math.round(performance.now() - started);
    const settled = await settlePreviewProxy(deps.db, uploadId, {
      status: "ready",
      key,
      ...size,
      bytes,
      buildMs,
    });
    if (!settled) {
      // Deleted (or settled by another attempt) meanwhile: nothing points at this copy.
      if (!(await findUploadById(deps.db, uploadId))) await deps.store.delete(key);
      return "superseded";
    }
    deps.log.info({ uploadId, ...size, bytes, buildMs }, "preview proxy ready");
    return "succeeded";
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * The `preview_proxy` job handler: one {@link buildPreviewProxy} per job; a job whose retry ran
 * out marks the proxy `failed` (previews keep using the original).
 */
export function previewProxyJobHandler(
  deps: PreviewProxyDeps & { concurrency: number; pollingIntervalSeconds?: number },
): JobHandler<PreviewProxyJobV1> {
  return {
    concurrency: deps.concurrency,
    ...(deps.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: deps.pollingIntervalSeconds }
      : {}),
    run: (data) => buildPreviewProxy(deps, data.uploadId),
    async deadLetter(data) {
      await settlePreviewProxy(deps.db, data.uploadId, {
        status: "failed",
        message: "The worker making the preview proxy failed on every attempt",
      });
    },
  };
}
