import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  ACTIVE_STATUSES,
  claimRender,
  finishRender,
  type RenderRow,
  readRenderControl,
  updateRenderFenced,
} from "../../db/repositories/renders.ts";
import { RenderError, type RenderWarning } from "../../domain/render/types.ts";
import { QUEUES } from "../catalog.ts";

/** The file a render produced, as stored on the render (`Render.output`). */
export interface RenderOutput {
  url?: string;
  expiresAt?: string;
  format: string;
  width?: number;
  height?: number;
  fps?: number;
  duration: number;
  size: number;
  sha256: string;
  /** Storage keys (not exposed; URLs are signed on read). */
  key: string;
  posterKey?: string;
}

/** Progress as the pipeline reports it (ratio 0..1 of the current phase's work). */
export interface PipelineProgress {
  ratio: number;
  speed?: number;
  etaSeconds?: number;
}

/** What the lifecycle gives the pipeline: cancellation, phase changes, progress, warnings. */
export interface PipelineHooks {
  /** Aborted when the render is cancelled or another attempt took it over. */
  signal: AbortSignal;
  attempt: number;
  phase(phase: "rendering" | "finalizing"): Promise<void>;
  progress(p: PipelineProgress): void;
  warn(w: RenderWarning): void;
}

/**
 * Does the actual work of one attempt (resolve assets, plan, run ffmpeg, store the file)
 * and returns the output. Must leave nothing behind when it throws or is aborted.
 */
export type RenderPipeline = (render: RenderRow, hooks: PipelineHooks) => Promise<RenderOutput>;

/** Why an attempt's signal was aborted. */
type AbortReason = "cancelled" | "superseded";

/**
 * Runs one attempt of a render job with the guarantees COMPOSITION.md asks of ours
 * (pg-boss does not stop a running handler on cancel or expiry):
 * - claim: increments `attempt` (the fence) and moves the render to `preparing`;
 * - every status/progress write is fenced by attempt and active status;
 * - a control loop (every `pollMs`) heartbeats the row and aborts the pipeline when the
 *   render is being cancelled or a newer attempt owns it;
 * - progress ratio never goes backwards, even across attempts;
 * - typed non-retryable failures end the render as `failed`; anything else is thrown so
 *   that pg-boss retries (and, when retries run out, dead-letters) the job.
 *
 * @returns what happened, for logs and tests.
 */
export async function runRenderAttempt(
  deps: {
    db: Db;
    clock: Clock;
    pipeline: RenderPipeline;
    log: Logger;
    /** Deletes a finished output nobody will see (the render was cancelled meanwhile). */
    discardOutput: (output: RenderOutput) => Promise<void>;
    pollMs?: number;
    maxAttempts?: number;
  },
  renderId: string,
): Promise<"succeeded" | "failed" | "cancelled" | "superseded" | "skipped"> {
  const { db, clock } = deps;
  const claimed = await claimRender(db, renderId, clock.now());
  if (!claimed) return "skipped";
  const attempt = claimed.attempt;
  const maxAttempts = deps.maxAttempts ?? QUEUES.render.retryLimit + 1;
  const log = deps.log.child({ renderId, attempt });
  const controller = new AbortController();
  const warnings: RenderWarning[] = [...((claimed.warnings as unknown as RenderWarning[]) ?? [])];
  let bestRatio = Number((claimed.progress as { ratio?: number }).ratio ?? 0);
  let phase: "preparing" | "rendering" | "finalizing" = "preparing";
  let pendingProgress: PipelineProgress | null = null;

  const progressValue = () => ({
    ratio: bestRatio,
    phase,
    ...(pendingProgress?.speed !== undefined ? { speed: pendingProgress.speed } : {}),
    ...(pendingProgress?.etaSeconds !== undefined ? { etaSeconds: pendingProgress.etaSeconds } : {}),
    updatedAt: clock.now().toISOString(),
  });

  const abort = (reason: AbortReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };

  // The control loop: heartbeat + progress flush + cancellation/fencing check.
  let tick: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    tick = tick.then(async () => {
      if (controller.signal.aborted) return;
      try {
        const control = await readRenderControl(db, renderId);
        if (!control || control.attempt !== attempt) return abort("superseded");
        if (control.status === "cancelling") return abort("cancelled");
        if (!ACTIVE_STATUSES.includes(control.status)) return abort("superseded");
        const ok = await updateRenderFenced(db, {
          id: renderId,
          attempt,
          set: { heartbeatAt: clock.now(), progress: progressValue() },
        });
        if (!ok) abort("superseded");
      } catch (err) {
        log.warn({ err }, "render control loop failed; will retry");
      }
    });
  }, deps.pollMs ?? 500);

  const hooks: PipelineHooks = {
    signal: controller.signal,
    attempt,
    async phase(next) {
      phase = next;
      const ok = await updateRenderFenced(db, {
        id: renderId,
        attempt,
        set: { status: next, progress: progressValue() },
      });
      if (!ok) {
        const control = await readRenderControl(db, renderId);
        abort(control?.status === "cancelling" && control.attempt === attempt ? "cancelled" : "superseded");
        throw controller.signal.reason;
      }
    },
    progress(p) {
      pendingProgress = p;
      // Overall ratio: preparing 0–5 %, rendering 5–95 %, finalizing 95–100 %; never backwards.
      const base = phase === "preparing" ? 0 : phase === "rendering" ? 0.05 : 0.95;
      const span = phase === "rendering" ? 0.9 : 0.05;
      bestRatio = Math.max(bestRatio, Math.min(1, base + span * Math.max(0, Math.min(1, p.ratio))));
    },
    warn(w) {
      warnings.push(w);
    },
  };

  const finish = (from: RenderRow["status"][], set: Parameters<typeof finishRender>[1]["set"]) =>
    finishRender(db, { id: renderId, attempt, from, set: { ...set, finishedAt: clock.now() } });

  try {
    const output = await deps.pipeline(claimed, hooks);
    clearInterval(timer);
    await tick;
    const done = await finish(ACTIVE_STATUSES, {
      status: "succeeded",
      output: output as unknown as Record<string, unknown>,
      warnings: warnings as unknown as Record<string, unknown>[],
      error: null,
      progress: { ratio: 1, phase: "done", updatedAt: clock.now().toISOString() },
    });
    if (done) return "succeeded";
    // Cancelled (or superseded) after the file was made: the pipeline's output is orphaned.
    log.info("render finished after cancellation; output discarded");
    await deps.discardOutput(output).catch((err: unknown) => log.warn({ err }, "discarding output failed"));
    const cancelled = await finish(["cancelling"], {
      status: "cancelled",
      progress: { ...progressValue(), phase: "done" },
    });
    return cancelled ? "cancelled" : "superseded";
  } catch (err) {
    clearInterval(timer);
    await tick;
    const reason = controller.signal.aborted ? (controller.signal.reason as AbortReason) : undefined;
    if (reason === "cancelled") {
      await finish(["cancelling"], { status: "cancelled", progress: { ...progressValue(), phase: "done" } });
      log.info("render cancelled");
      return "cancelled";
    }
    if (reason === "superseded") {
      log.warn("render attempt superseded by a newer attempt; stopped");
      return "superseded";
    }
    const renderError =
      err instanceof RenderError
        ? err
        : new RenderError("INTERNAL", "The render failed unexpectedly", { retryable: true });
    if (!(err instanceof RenderError)) log.error({ err }, "render attempt crashed");
    if (renderError.retryable && attempt < maxAttempts) {
      log.warn({ code: renderError.code }, "retryable render failure; pg-boss will retry");
      throw renderError;
    }
    const failed = await finish(ACTIVE_STATUSES, {
      status: "failed",
      error: renderError.toJSON(),
      warnings: warnings as unknown as Record<string, unknown>[],
      progress: { ...progressValue(), phase: "done" },
    });
    if (!failed)
      await finish(["cancelling"], { status: "cancelled", progress: { ...progressValue(), phase: "done" } });
    return failed ? "failed" : "cancelled";
  }
}
