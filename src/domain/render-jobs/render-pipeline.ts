import { rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import type { RenderRow } from "../../db/repositories/renders.ts";
import { renderSecondsPerTimelineSecond } from "../../metrics/process-metrics.ts";
import { AttemptHandedOff } from "../../queue/attempt-runner.ts";
import { type BuildRenderPlanInput, buildRenderPlan, dedupeWarnings } from "../render/plan.ts";
import type { RenderOutput } from "../render/types.ts";
import { DEFAULT_REMOTE_LIMITS } from "./render-assets.ts";
import { DamageLog, expectEveryFrame, runDamageWarnings } from "./render-damage.ts";
import { type RenderRunDeps, runRenderFfmpeg } from "./render-ffmpeg.ts";
import { makeRenderWorkDir, type PipelineHooks, type RenderPipeline } from "./render-job.ts";
import { loudnessTargetOf, measureRenderLoudness } from "./render-loudness.ts";
import { POSTER_FILE, storeRenderOutput } from "./render-output.ts";
import { prepareRender } from "./render-prepare.ts";
import {
  planRenderSmart,
  readSourceGops,
  recordSmartRender,
  runSmartRender,
  usesSmartRender,
} from "./smart-render.ts";
import type { SplitRenderStarter } from "./split-render.ts";
import { StepTimes } from "./step-times.ts";
import { writePlanFiles } from "./write-plan-files.ts";

/**
 * Decoding threads per video input: half the cores (at least 1). Every input of a render is
 * open for its whole length, and a frame-threaded decoder holds frames per thread, so ffmpeg's
 * default (a thread per core for each input) makes memory grow with both; x264 uses the cores.
 */
export const DECODER_THREADS = Math.max(1, Math.floor(availableParallelism() / 2));

/**
 * Threads of a render's filter graph (`-filter_complex_threads`): also half the cores, at least
 * one. Slice-threaded filters (scaling, transitions, overlays) otherwise get a thread per core,
 * each with its own scaling buffers, while x264 already keeps the cores busy: on two cores one
 * filter thread gave the reference render the same CPU seconds, 10 MiB less peak RSS and the
 * identical output (bench/README.md).
 */
export const FILTER_THREADS = DECODER_THREADS;

/**
 * The render pipeline of one attempt: resolve the composition's uploads, remote (`src`) assets
 * and the caller's fonts to local files and build the ffmpeg plan (`prepareRender`, which the
 * preflight runs too), measure the soundtrack when the composition has a loudness target
 * (`measureRenderLoudness`: one or two audio-only passes, then the plan is built again with
 * the measured gain), run ffmpeg (one process, one filtergraph, which also writes the
 * poster) with progress, then name the sources ffmpeg found damaged or truncated
 * (`SOURCE_DAMAGED` warnings, see `damagedSourceWarnings`), probe and hash the output, move it
 * and its poster into the store under `renders/<renderId>/` (a rename when the store is on the
 * same filesystem), record the attempt's wall-clock seconds per timeline second
 * (`cutroom_render_seconds_per_timeline_second`) and log how long each step took ("render
 * steps timed", `stepsMs`; a split render logs "split render start steps timed" when handed
 * over). The working directory and any stored object are removed when the attempt fails or is
 * cancelled.
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
export function createRenderPipeline(opts: RenderRunDeps & { split?: SplitRenderStarter }): RenderPipeline {
  const { db, store } = opts;
  const remote = opts.remote ?? DEFAULT_REMOTE_LIMITS;
  return async (render: RenderRow, hooks: PipelineHooks): Promise<RenderOutput> => {
    const started = performance.now();
    const steps = new StepTimes();
    const workDir = await makeRenderWorkDir(opts, render.id, hooks.attempt);
    try {
      const doc = render.composition;
      const options = render.options;

      // Preparing: resolve assets, plan, write the plan's files.
      const prepared = await prepareRender({
        db,
        store,
        userId: render.userId,
        composition: doc,
        options,
        workDir,
        remote,
        signal: hooks.signal,
        decoderThreads: DECODER_THREADS,
        filterThreads: FILTER_THREADS,
        posterPath: POSTER_FILE,
        ...(opts.lossless ? { variant: { lossless: true } } : {}),
      });
      const { assets, refsByPath, warnings, outputFile, fonts } = prepared;
      let plan = prepared.plan;
      steps.lap("prepare");
      for (const w of warnings) hooks.warn(w);

      // A long mp4: its segments and audio become jobs of their own, joined by another.
      const segments = await opts.split?.segments(render, assets, hooks.signal);
      // Smart rendering: which frames are copied from their sources (each part plans its own).
      const smart = usesSmartRender(options)
        ? planRenderSmart({
            composition: doc,
            options,
            assets,
            gops: await readSourceGops(doc, assets, hooks.signal, options, opts.stallTimeoutMs),
            segments: segments ?? null,
          })
        : null;
      steps.lap("smartPlan");
      if (opts.split && segments) {
        steps.lap("segments");
        await opts.split.start(
          render,
          hooks.attempt,
          segments,
          dedupeWarnings([...render.warnings, ...warnings]),
          smart?.stored ?? null,
        );
        steps.lap("handOff");
        opts.log.info(
          { renderId: render.id, attempt: hooks.attempt, stepsMs: steps.ms },
          "split render start steps timed",
        );
        throw new AttemptHandedOff(`render split into ${segments.length} segments`);
      }
      if (smart) await recordSmartRender(db, render.id, hooks.attempt, smart.stored);
      const smartPlan = smart?.whole.format ? smart.whole : null;

      // Rendering: the loudness passes when the composition asks for a loudness, then one
      // ffmpeg process, or a smart render's pieces, its audio and their join.
      await hooks.phase("rendering");
      steps.lap("phaseWrites");
      const target = loudnessTargetOf(doc, options.format);
      let loudness: BuildRenderPlanInput["loudness"];
      if (target) {
        const { gain, measured } = await measureRenderLoudness({
          base: prepared.planInput,
          target,
          cwd: workDir,
          signal: hooks.signal,
          deps: opts,
          logFields: { renderId: render.id, attempt: hooks.attempt },
          refsByPath,
        });
        opts.log.info({ renderId: render.id, target, measured, gain }, "render loudness measured");
        if (gain) {
          loudness = { gain };
          plan = buildRenderPlan({ ...prepared.planInput, loudness });
          await writePlanFiles(plan, workDir);
        }
        steps.lap("loudness");
      }
      opts.log.debug({ renderId: render.id, args: plan.args.join(" ") }, "ffmpeg plan");
      const damage = new DamageLog();
      const failure = {
        log: opts.log,
        logFields: { renderId: render.id, attempt: hooks.attempt },
        composition: doc,
        refsByPath,
      };
      if (smartPlan) {
        await runSmartRender({
          base: {
            composition: doc,
            assets,
            output: options,
            uploadedFonts: fonts,
            decoderThreads: DECODER_THREADS,
            filterThreads: FILTER_THREADS,
            ...(loudness ? { loudness } : {}),
          },
          plan: smartPlan,
          workDir,
          outputFile,
          signal: hooks.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          failure,
          onProgress: (ratio) => hooks.progress({ ratio }),
          onWarning: hooks.warn,
        });
      } else
        await runRenderFfmpeg({
          plan,
          cwd: workDir,
          signal: hooks.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          onStderrLine: damage.onLine,
          onProgress: (p) =>
            hooks.progress({
              ratio: p.ratio,
              ...(p.speed !== undefined ? { speed: p.speed } : {}),
              ...(p.etaSeconds !== undefined ? { etaSeconds: p.etaSeconds } : {}),
            }),
          failure,
        });

      steps.lap("ffmpeg");

      // Finalizing: name damaged sources, then probe, hash and store the output and its poster.
      await hooks.phase("finalizing");
      steps.lap("phaseWrites");
      const damaged = await runDamageWarnings(
        damage,
        { inputs: plan.inputs, refsByPath },
        {
          checkTimeoutMs: opts.stallTimeoutMs,
          signal: hooks.signal,
          log: opts.log,
          logFields: { renderId: render.id },
        },
      );
      for (const w of damaged) hooks.warn(w);
      if (!smartPlan && plan.output.fps && plan.output.width) {
        await expectEveryFrame(
          { outPath: path.join(workDir, outputFile), frames: Math.round(plan.durationSec * plan.output.fps) },
          damaged,
          hooks.signal,
        );
      }
      steps.lap("damage");
      const output = await storeRenderOutput({
        store,
        log: opts.log,
        renderId: render.id,
        options,
        outPath: path.join(workDir, outputFile),
        workDir,
        // A smart render's output was joined, not encoded in one run: no poster written yet.
        plan: smartPlan ? { ...plan, output: withoutPoster(plan.output) } : plan,
      });
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
      return output;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}

/** A plan output without the poster its run would have written (a smart render's output is joined). */
function withoutPoster<T extends { posterPath?: string }>(output: T): Omit<T, "posterPath"> {
  const { posterPath: _p, ...rest } = output;
  return rest;
}
