import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../../db/client.ts";
import { scratchWorkDirPrefix } from "../../queue/scratch-work-dirs.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { RenderLimits } from "../composition/limits.ts";
import {
  RenderError,
  type RenderErrorJson,
  type RenderWarning,
  type SmartRenderSummary,
} from "../render/types.ts";
import { DEFAULT_REMOTE_LIMITS, type RemoteAssetLimits } from "./render-assets.ts";
import { prepareRender } from "./render-prepare.ts";
import { planRenderSmart, readSourceGops, usesSmartRender } from "./smart-render.ts";
import { checkRenderRequest, type StartRenderBody } from "./start-render.ts";

/** What a preflight found: whether the render would start ffmpeg, and what it would render. */
export interface RenderCheck {
  /** True when nothing stops the render before ffmpeg (`problems` is empty). */
  ok: boolean;
  /**
   * What stops the render, as `Render.error` would say it (`code`, `message`, `retryable`,
   * `clipId`, `uploadId`): every source problem, or the plan's error.
   */
  problems: RenderErrorJson[];
  /** What the render would record as `Render.warnings` before ffmpeg runs. */
  warnings: RenderWarning[];
  /** The output as planned (pixels, frames/s, seconds); null when there are problems. */
  output: {
    format: string;
    width?: number;
    height?: number;
    fps?: number;
    duration: number;
    audio: boolean;
  } | null;
  /**
   * What smart rendering would copy and why it would encode the rest (`Render.smartRender`),
   * planned over the whole output as a render in one piece; null for formats other than mp4,
   * `smartRender: "off"`, or when there are problems.
   */
  smartRender: SmartRenderSummary | null;
  /** The composition checked: the stored one and its version, or null for an inline one. */
  compositionId: string | null;
  compositionVersion: number | null;
}

/** What a preflight needs: the database, the file store, scratch space and limits. */
export interface PreflightDeps {
  db: Db;
  store: BlobStore;
  /** Directory for the preflight's scratch directory (`WORK_DIR`); it is removed afterwards. */
  workRoot: string;
  limits: RenderLimits;
  now: Date;
  /** Remote (`src`) download limits; default 512 MiB, 5 minutes. */
  remote?: RemoteAssetLimits;
}

/**
 * Checks a render without rendering (`POST /api/render/check`, `GET /api/compositions/:id/check`):
 * the same checks `startRender` makes of the request
 * (composition, merge values, output options, cost limits: thrown as 400/404/409 like a
 * render start), then the same steps the render job runs before ffmpeg starts
 * (`prepareRender`: uploads and remote sources resolved and probed, fonts, the plan built and
 * its files written into a scratch directory that is removed afterwards). Nothing is stored,
 * queued or counted against the render allowance.
 *
 * @param input.body - a `POST /api/render` body (`callbackUrl` is not used).
 * @param input.signal - aborts the source downloads (e.g. when the client goes away).
 * @returns `ok` with the planned output and warnings, or the `problems` that would fail the
 *   render (each as `Render.error` would carry it: `ASSET_NOT_FOUND`, `ASSET_FETCH_FAILED`,
 *   `ASSET_UNSUPPORTED`, `FONT_NOT_FOUND`, `INVALID_COMPOSITION`).
 * @throws AppError 400/404/409 for a request `POST /api/render` would refuse.
 */
export async function preflightRender(
  deps: PreflightDeps,
  input: { userId: string; body: StartRenderBody; signal?: AbortSignal },
): Promise<RenderCheck> {
  const { source, options } = await checkRenderRequest(
    {
      db: deps.db,
      now: deps.now,
      userId: input.userId,
      limits: deps.limits,
      keyOfUrl: (url) => deps.store.keyOfUrl(url),
    },
    input.body,
  );
  const about = { compositionId: source.compositionId, compositionVersion: source.compositionVersion };
  await mkdir(deps.workRoot, { recursive: true });
  const workDir = await mkdtemp(path.join(deps.workRoot, scratchWorkDirPrefix("pfl")));
  try {
    const prepared = await prepareRender({
      db: deps.db,
      store: deps.store,
      userId: input.userId,
      composition: source.frozen,
      options,
      workDir,
      remote: deps.remote ?? DEFAULT_REMOTE_LIMITS,
      signal: input.signal ?? new AbortController().signal,
    });
    const { plan } = prepared;
    const signal = input.signal ?? new AbortController().signal;
    const smart = usesSmartRender(options)
      ? planRenderSmart({
          composition: source.frozen,
          options,
          assets: prepared.assets,
          gops: await readSourceGops(source.frozen, prepared.assets, signal, options),
        }).whole
      : null;
    return {
      ok: true,
      problems: [],
      warnings: prepared.warnings,
      output: {
        format: plan.output.format,
        ...(plan.output.width ? { width: plan.output.width, height: plan.output.height } : {}),
        ...(plan.output.fps ? { fps: plan.output.fps } : {}),
        duration: plan.durationSec,
        audio: plan.output.audio,
      },
      smartRender: smart
        ? { copiedFrames: smart.copiedFrames, encodedFrames: smart.encodedFrames, reasons: smart.reasons }
        : null,
      ...about,
    };
  } catch (err) {
    if (!(err instanceof RenderError)) throw err;
    return {
      ok: false,
      problems: [err, ...err.more].map((e) => e.toJSON()),
      warnings: [],
      output: null,
      smartRender: null,
      ...about,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
