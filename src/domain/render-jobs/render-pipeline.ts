import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import type { RenderRow } from "../../db/repositories/renders.ts";
import { FfmpegError, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { makePoster } from "../../media/poster.ts";
import { probeMedia } from "../../media/probe.ts";
import { renderSecondsPerTimelineSecond } from "../../metrics/process-metrics.ts";
import { attemptWorkDirPrefix, sweepWorkDirs } from "../../queue/work-dir-sweep.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderOutputKey, renderPosterKey, renderPrefix } from "../../storage/keys.ts";
import type { RenderPlan } from "../render/index.ts";
import { FORMAT_MIME } from "../render/outputs.ts";
import { RenderError, type RenderOutput } from "../render/types.ts";
import { DEFAULT_REMOTE_LIMITS, type RemoteAssetLimits } from "./render-assets.ts";
import { DamageLog, damagedSourceWarnings } from "./render-damage.ts";
import { explainRenderFailure } from "./render-failure.ts";
import { type PipelineHooks, type RenderPipeline, renderWorkDirs } from "./render-job.ts";
import { prepareRender } from "./render-prepare.ts";

/**
 * Decoding threads per video input: half the cores (at least 1). Every input of a render is
 * open for its whole length, and a frame-threaded decoder holds frames per thread, so ffmpeg's
 * default (a thread per core for each input) makes memory grow with both; x264 uses the cores.
 */
const DECODER_THREADS = Math.max(1, Math.floor(availableParallelism() / 2));

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
 * Wall-clock milliseconds of an attempt's steps, for its log line: `lap` closes the step that
 * ran since the previous lap, `time` measures one of several promises that run side by side.
 */
class StepTimes {
  readonly ms: Record<string, number> = {};
  #last = performance.now();

  lap(step: string): void {
    const now = performance.now();
    this.ms[step] = (this.ms[step] ?? 0) + Math.round(now - this.#last);
    this.#last = now;
  }

  async time<T>(step: string, work: Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work;
    } finally {
      this.ms[step] = Math.round(performance.now() - t0);
    }
  }
}

/** The poster the render's own ffmpeg run writes into the work directory (`BuildRenderPlanInput.posterPath`). */
const POSTER_FILE = "poster.jpg";

/**
 * The poster file of a finished render: the one its ffmpeg run wrote, else (a plan without
 * one) one made from the output file (`makePoster`: a frame at 10 % of it); `null` when none
 * can be made.
 */
async function posterOf(plan: RenderPlan, workDir: string, outPath: string): Promise<string | null> {
  const file = path.join(workDir, POSTER_FILE);
  const written =
    plan.output.posterPath &&
    (await stat(file).then(
      (s) => s.size > 0,
      () => false,
    ));
  if (written) return file;
  const jpeg = await makePoster(outPath, { type: "video", duration: plan.durationSec }).catch(() => null);
  if (!jpeg) return null;
  await writeFile(file, jpeg);
  return file;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/**
 * The render pipeline of one attempt: resolve the composition's uploads, remote (`src`) assets
 * and the caller's fonts to local files and build the ffmpeg plan (`prepareRender`, which the
 * preflight runs too), run ffmpeg (one process, one filtergraph, which also writes the
 * poster) with progress, then name the sources ffmpeg found damaged or truncated
 * (`SOURCE_DAMAGED` warnings, see `damagedSourceWarnings`), probe and hash the output, move it
 * and its poster into the store under `renders/<renderId>/` (a rename when the store is on the
 * same filesystem), record the attempt's wall-clock seconds per timeline second
 * (`cutroom_render_seconds_per_timeline_second`) and log how long each step took ("render
 * steps timed", `stepsMs`). The working directory and any stored object are removed when the
 * attempt fails or is cancelled.
 *
 * @param opts.workRoot - directory for per-attempt working directories.
 * @param opts.stallTimeoutMs - ffmpeg without progress this long fails with `TIMEOUT`.
 * @param opts.remote - size (bytes) and time (ms) limits of remote asset downloads
 *   (default 512 MiB, 5 minutes).
 * When ffmpeg fails, the clip (and upload) it failed on is named with the cause
 * (`explainRenderFailure`): `ASSET_UNSUPPORTED` for a source that cannot be decoded, else
 * `FFMPEG_FAILED`, without a clip only for a cause of the whole render, which it names.
 * `Render.error.message` is plain language: ffmpeg's messages, command line and paths are
 * logged, never shown to the caller.
 */
export function createRenderPipeline(opts: {
  db: Db;
  store: BlobStore;
  workRoot: string;
  log: Logger;
  stallTimeoutMs: number;
  remote?: RemoteAssetLimits;
}): RenderPipeline {
  const { db, store } = opts;
  const remote = opts.remote ?? DEFAULT_REMOTE_LIMITS;
  return async (render: RenderRow, hooks: PipelineHooks): Promise<RenderOutput> => {
    const started = performance.now();
    const steps = new StepTimes();
    await mkdir(opts.workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(opts.workRoot, attemptWorkDirPrefix(render.id, hooks.attempt)));
    if (hooks.attempt > 1) {
      // A retry: the attempt before was lost with its worker. Sweeping now (this attempt's
      // claim is the fence) frees its scratch space at once instead of at the next sweep.
      const removed = await sweepWorkDirs(opts.workRoot, [renderWorkDirs(db)]).catch(() => []);
      if (removed.length > 0)
        opts.log.info({ renderId: render.id, removed }, "removed ended attempts' work directories");
    }
    const outputPrefix = renderPrefix(render.id);
    let stored = false;
    try {
      const doc = render.composition;
      const options = render.options;

      // Preparing: resolve assets, plan, write the plan's files.
      const { plan, refsByPath, warnings, outputFile } = await prepareRender({
        db,
        store,
        userId: render.userId,
        composition: doc,
        options,
        workDir,
        remote,
        signal: hooks.signal,
        decoderThreads: DECODER_THREADS,
        posterPath: POSTER_FILE,
      });
      steps.lap("prepare");
      for (const w of warnings) hooks.warn(w);
      opts.log.debug({ renderId: render.id, args: plan.args.join(" ") }, "ffmpeg plan");

      // Rendering: one ffmpeg process.
      await hooks.phase("rendering");
      steps.lap("phaseWrites");
      const damage = new DamageLog();
      try {
        await runFfmpeg({
          ...ffmpegLaunch(plan.args),
          cwd: workDir,
          durationSec: plan.durationSec,
          signal: hooks.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          // The partial output is thrown away: no time for ffmpeg to finalise it (with
          // +faststart that would rewrite the whole file) before it is killed.
          killGraceMs: 200,
          onStderrLine: damage.onLine,
          onProgress: (p) =>
            hooks.progress({
              ratio: p.ratio,
              ...(p.speed !== undefined ? { speed: p.speed } : {}),
              ...(p.etaSeconds !== undefined ? { etaSeconds: p.etaSeconds } : {}),
            }),
        });
      } catch (err) {
        if (err instanceof FfmpegError && err.code !== "ABORTED") {
          // ffmpeg's own words (command, stderr, paths) go to the log only, never to the caller.
          opts.log.warn(
            {
              renderId: render.id,
              attempt: hooks.attempt,
              code: err.code,
              detail: err.message,
              stderr: err.stderrTail,
            },
            "ffmpeg failed",
          );
          if (err.code === "TIMEOUT") {
            throw new RenderError(
              "TIMEOUT",
              `The render failed: the encoder made no progress for ${opts.stallTimeoutMs / 1000} s and was stopped; retry, or render a shorter range to find the part that stalls`,
            );
          }
          throw await explainRenderFailure(err, { plan, composition: doc, refsByPath });
        }
        throw err;
      }

      steps.lap("ffmpeg");

      // Finalizing: name damaged sources; probe, hash and the poster side by side (each reads
      // the output once, the poster only when the run did not write it); then hand the output
      // and the poster over to the store.
      await hooks.phase("finalizing");
      steps.lap("phaseWrites");
      const damaged = await damagedSourceWarnings(damage.lines, plan.inputs, refsByPath, {
        checkTimeoutMs: opts.stallTimeoutMs,
        signal: hooks.signal,
        log: (found) =>
          opts.log.warn({ renderId: render.id, ...found }, "ffmpeg reported damaged source data"),
      });
      for (const w of damaged) hooks.warn(w);
      steps.lap("damage");
      const outPath = path.join(workDir, outputFile);
      const wantPoster = plan.output.width && options.format !== "jpg" && options.format !== "png";
      const [info, sha256, posterFile] = await Promise.all([
        steps.time(
          "probe",
          probeMedia(outPath).catch(() => null),
        ),
        steps.time("hash", sha256File(outPath)),
        wantPoster ? steps.time("poster", posterOf(plan, workDir, outPath)) : null,
      ]);
      steps.lap("inspect");
      const key = renderOutputKey(render.id, options.format);
      stored = true;
      let size: number;
      try {
        ({ size } = await store.putFile(key, outPath, {
          contentType: FORMAT_MIME[options.format],
          move: true,
        }));
      } catch (err) {
        opts.log.warn({ renderId: render.id, err }, "storing the render output failed");
        throw new RenderError("OUTPUT_UPLOAD_FAILED", "Storing the rendered file failed");
      }
      let posterKey: string | undefined;
      if (posterFile) {
        posterKey = renderPosterKey(render.id);
        await store.putFile(posterKey, posterFile, { contentType: "image/jpeg", move: true });
      }
      steps.lap("store");
      hooks.progress({ ratio: 1 });
      const seconds = (performance.now() - started) / 1000;
      if (plan.durationSec > 0) {
        renderSecondsPerTimelineSecond.observe({ format: options.format }, seconds / plan.durationSec);
      }
      opts.log.info(
        {
          renderId: render.id,
          attempt: hooks.attempt,
          totalMs: Math.round(seconds * 1000),
          stepsMs: steps.ms,
        },
        "render steps timed",
      );
      return {
        key,
        ...(posterKey ? { posterKey } : {}),
        format: options.format,
        ...(plan.output.width ? { width: info?.width ?? plan.output.width } : {}),
        ...(plan.output.height ? { height: info?.height ?? plan.output.height } : {}),
        ...(plan.output.fps ? { fps: info?.fps ?? plan.output.fps } : {}),
        duration: info?.duration ?? plan.durationSec,
        size,
        sha256,
      };
    } catch (err) {
      if (stored) await store.deletePrefix(outputPrefix).catch(() => {});
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}
