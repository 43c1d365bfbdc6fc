/**
 * Running a render's ffmpeg: how it is launched (it dies with its worker) and what a failure
 * tells the caller.
 */
import { existsSync } from "node:fs";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import { FfmpegError, type FfmpegProgress, runFfmpeg } from "../../media/ffmpeg-run.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { Timeline } from "../composition/schema.ts";
import type { RenderPlan } from "../render/plan.ts";
import { RenderError } from "../render/types.ts";
import type { AssetRef, RemoteAssetLimits } from "./render-assets.ts";
import { explainRenderFailure } from "./render-failure.ts";

/** What the render pipelines (whole render, part of a split render, join) run on. */
export interface RenderRunDeps {
  db: Db;
  store: BlobStore;
  /** Directory for per-attempt working directories. */
  workRoot: string;
  log: Logger;
  /** ffmpeg without progress this long fails with `TIMEOUT`, milliseconds. */
  stallTimeoutMs: number;
  /** Size (bytes) and time (ms) limits of remote asset downloads (default 512 MiB, 5 minutes). */
  remote?: RemoteAssetLimits;
  /** Lossless H.264 video (exactness tests only: split and unsplit renders then decode to identical frames). */
  lossless?: boolean;
}

/** util-linux `setpriv`, when this is Linux and it is installed. */
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find(
  (p) => process.platform === "linux" && existsSync(p),
);

/**
 * How ffmpeg is launched: on Linux through `setpriv --pdeathsig SIGKILL` (same process, it
 * execs ffmpeg), so that ffmpeg dies with a worker that is killed (OOM, SIGKILL, crash) instead
 * of encoding on as an orphan while another worker retries the render. Plain ffmpeg elsewhere.
 */
export function ffmpegLaunch(args: readonly string[]): { ffmpegPath: string; args: string[] } {
  return SETPRIV
    ? { ffmpegPath: SETPRIV, args: ["--pdeathsig", "SIGKILL", "--", "ffmpeg", ...args] }
    : { ffmpegPath: "ffmpeg", args: [...args] };
}

/**
 * Runs the ffmpeg of a render plan (or of one part of a split render) in `cwd`, launched with
 * {@link ffmpegLaunch}; the partial output of a run that is stopped is thrown away, so ffmpeg
 * gets no time to finalise it (with `+faststart` that would rewrite the whole file).
 *
 * When ffmpeg fails, its own words (command, stderr, paths) go to `failure.log` only; the
 * caller gets `TIMEOUT` for a stalled encoder, else `explainRenderFailure`'s plain-language
 * error naming the clip it failed on (`ASSET_UNSUPPORTED`, `FFMPEG_FAILED`).
 *
 * @param input.stallTimeoutMs - ffmpeg without progress this long is stopped, milliseconds.
 * @throws RenderError as above; FfmpegError `ABORTED` when `signal` aborts.
 */
export async function runRenderFfmpeg(input: {
  plan: RenderPlan;
  cwd: string;
  signal: AbortSignal;
  stallTimeoutMs: number;
  onProgress?: (p: FfmpegProgress) => void;
  onStderrLine?: (line: string) => void;
  failure: {
    log: Logger;
    logFields: Record<string, unknown>;
    composition: Timeline;
    refsByPath: Map<string, AssetRef>;
  };
}): Promise<void> {
  const { plan, failure } = input;
  try {
    await runFfmpeg({
      ...ffmpegLaunch(plan.args),
      cwd: input.cwd,
      durationSec: plan.durationSec,
      signal: input.signal,
      stallTimeoutMs: input.stallTimeoutMs,
      killGraceMs: 200,
      ...(input.onStderrLine ? { onStderrLine: input.onStderrLine } : {}),
      ...(input.onProgress ? { onProgress: input.onProgress } : {}),
    });
  } catch (err) {
    if (!(err instanceof FfmpegError) || err.code === "ABORTED") throw err;
    failure.log.warn(
      { ...failure.logFields, code: err.code, detail: err.message, stderr: err.stderrTail },
      "ffmpeg failed",
    );
    if (err.code === "TIMEOUT") {
      throw new RenderError(
        "TIMEOUT",
        `The render failed: the encoder made no progress for ${input.stallTimeoutMs / 1000} s and was stopped; retry, or render a shorter range to find the part that stalls`,
      );
    }
    throw await explainRenderFailure(err, {
      plan,
      composition: failure.composition,
      refsByPath: failure.refsByPath,
    });
  }
}
