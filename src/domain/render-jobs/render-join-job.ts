/**
 * The `render_join` job kind: the last step of a split render, available once every part's
 * job completed (a pg-boss flow). It is an attempt of the render itself (the render's
 * fenced-attempt runner): it reads the parts from the blob store, joins the video segments
 * with the concat demuxer and muxes the audio without re-encoding, and stores the output as a
 * render made in one piece does (poster, size, duration). A render being cancelled, or failed
 * by a part, is ended instead; the parts' files are deleted either way.
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { listRenderParts } from "../../db/repositories/render-segments.ts";
import { findRenderById } from "../../db/repositories/renders.ts";
import { FfmpegError } from "../../media/ffmpeg-run.ts";
import { renderSecondsPerTimelineSecond } from "../../metrics/process-metrics.ts";
import { JOBS, type RenderJoinJobV1 } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderPartKey, renderPartsPrefix } from "../../storage/keys.ts";
import { localCopy } from "../../storage/local-copy.ts";
import { outputSize } from "../render/plan.ts";
import { buildJoinPlan, partFileName, renderFrameWindow } from "../render/segments.ts";
import { frameToSeconds } from "../render/timeline.ts";
import { RenderError } from "../render/types.ts";
import { partWarningsToAdd } from "./render-damage.ts";
import type { RenderRunDeps } from "./render-ffmpeg.ts";
import {
  failLostRender,
  makeRenderWorkDir,
  type RenderAttemptDeps,
  type RenderPipeline,
  runRenderAttempt,
} from "./render-job.ts";
import { POSTER_FILE, storeRenderOutput } from "./render-output.ts";
import { runJoin } from "./run-join.ts";
import { StepTimes } from "./step-times.ts";

/**
 * The join of a split render as a {@link RenderPipeline}: phase `finalizing`; adds the parts'
 * warnings to the render's (`partWarningsToAdd`); reads every part (all must have succeeded) in
 * place on local disk or fetches it, with the poster a segment wrote, writes the ffconcat list
 * with each segment's exact duration, runs the stream-copy join, then stores the output
 * (`storeRenderOutput`: probe and hash side by side, moved into the store), records the whole
 * render's wall-clock seconds per timeline second (`cutroom_render_seconds_per_timeline_second`)
 * and logs how long each step took ("render join steps timed", `stepsMs`: prepare, fetch, join,
 * store). The work directory is removed when the attempt ends.
 *
 * @throws RenderError `INTERNAL` (not retryable) when a part is missing; `FFMPEG_FAILED`
 *   (retryable) when the join fails; `OUTPUT_UPLOAD_FAILED` when storing fails.
 */
export function createRenderJoinPipeline(opts: RenderRunDeps): RenderPipeline {
  const { db, store } = opts;
  return async (render, hooks) => {
    const steps = new StepTimes();
    await hooks.phase("finalizing");
    const parts = await listRenderParts(db, render.id);
    const missing = parts.filter((p) => p.status !== "succeeded" || !p.key);
    const segments = parts.filter((p) => p.kind === "video");
    const audio = parts.find((p) => p.kind === "audio");
    if (!audio || missing.length > 0 || segments.length !== render.segmentCount) {
      throw new RenderError("INTERNAL", "A segment of the split render is missing", { retryable: false });
    }
    // What the parts found (damaged sources…) joins the render's warnings, each once.
    for (const w of partWarningsToAdd(
      render.warnings,
      parts.flatMap((p) => p.warnings),
    ))
      hooks.warn(w);
    const workDir = await makeRenderWorkDir(opts, render.id, hooks.attempt);
    steps.lap("prepare");
    try {
      hooks.signal.throwIfAborted();
      // Each part read in place on local disk, else fetched (side by side: one round trip each
      // on S3, all settled before a failure is thrown, so none is still writing when the
      // directory goes). The poster, written by the segment that holds its frame, is fetched
      // into the work directory, where storing the output takes it from.
      const fetched = await Promise.allSettled([
        ...parts.map((p) => localCopy(store, p.key as string, workDir, partFileName(p))),
        fetchPoster(store, renderPartKey(render.id, POSTER_FILE), path.join(workDir, POSTER_FILE)),
      ]);
      const failed = fetched.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
      const local = new Map(
        parts.map((p, i) => [p.id, (fetched[i] as PromiseFulfilledResult<string>).value]),
      );
      steps.lap("fetch");
      const { rate, window } = renderFrameWindow(render.composition, render.options);
      const join = buildJoinPlan(
        segments.map((p) => ({
          file: local.get(p.id) as string,
          startFrame: p.startFrame,
          endFrame: p.endFrame,
        })),
        rate,
        "output.mp4",
        local.get(audio.id) as string,
      );
      for (const f of join.files) await writeFile(path.join(workDir, f.path), f.content, "utf8");
      const durationSec = frameToSeconds(window.end - window.start, rate);
      try {
        await runJoin({
          args: join.args,
          cwd: workDir,
          durationSec,
          signal: hooks.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          killGraceMs: 200,
          onProgress: (p) => hooks.progress({ ratio: p.ratio }),
          log: opts.log,
          logFields: { renderId: render.id, attempt: hooks.attempt },
        });
      } catch (err) {
        if (!(err instanceof FfmpegError) || err.code === "ABORTED") throw err;
        opts.log.warn(
          { renderId: render.id, attempt: hooks.attempt, code: err.code, stderr: err.stderrTail },
          "joining the segments failed",
        );
        throw new RenderError("FFMPEG_FAILED", "Joining the rendered segments failed", { retryable: true });
      }
      steps.lap("join");
      const { composition, options } = render;
      const size = outputSize(
        composition.canvas.width,
        composition.canvas.height,
        options.width,
        options.height,
      );
      const output = await storeRenderOutput({
        store,
        log: opts.log,
        renderId: render.id,
        options,
        outPath: path.join(workDir, "output.mp4"),
        workDir,
        plan: {
          output: {
            width: size.width,
            height: size.height,
            fps: options.fps ?? composition.canvas.fps,
            posterPath: POSTER_FILE,
          },
          durationSec,
        },
      });
      steps.lap("store");
      hooks.progress({ ratio: 1 });
      if (render.startedAt && durationSec > 0) {
        // The whole split render, from its first claim: what the parts in parallel achieved.
        const seconds = (Date.now() - render.startedAt.getTime()) / 1000;
        renderSecondsPerTimelineSecond.observe({ format: options.format }, seconds / durationSec);
      }
      opts.log.info(
        { renderId: render.id, attempt: hooks.attempt, stepsMs: steps.ms },
        "render join steps timed",
      );
      return output;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}

/**
 * Fetches the poster a segment wrote to `file`; nothing when there is none (parts stored before
 * segments wrote it: storing the output then makes it from the joined file).
 */
async function fetchPoster(store: BlobStore, key: string, file: string): Promise<void> {
  if (await store.stat(key)) await store.downloadTo(key, file);
}

/**
 * The `render_join` job handler: one fenced attempt of the render with the join pipeline
 * ({@link createRenderJoinPipeline}); the render's attempts so far do not count against the
 * join's retries. The parts' files are deleted once the attempt ended the render (or found it
 * ended); a join whose retries ran out fails the render with `WORKER_LOST`.
 */
export function renderJoinJobHandler(
  opts: RenderAttemptDeps & { concurrency: number; pollingIntervalSeconds?: number },
): JobHandler<RenderJoinJobV1> {
  const { db, store, log } = opts;
  return {
    concurrency: opts.concurrency,
    ...(opts.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: opts.pollingIntervalSeconds }
      : {}),
    async run(data, job) {
      const before = await findRenderById(db, data.renderId);
      const left = JOBS.renderJoin.policy.retryLimit - job.retryCount;
      const outcome = await runRenderAttempt(
        { ...opts, maxAttempts: (before?.attempt ?? 0) + 1 + Math.max(0, left) },
        data.renderId,
      );
      await store.deletePrefix(renderPartsPrefix(data.renderId));
      log.info({ renderId: data.renderId, outcome }, "render join attempt ended");
      return outcome;
    },
    async deadLetter(data) {
      await failLostRender(opts, data.renderId);
      await store.deletePrefix(renderPartsPrefix(data.renderId));
    },
  };
}
