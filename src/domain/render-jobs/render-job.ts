/**
 * The `render` job kind: the render table's lifecycle adapter for the fenced-attempt runner,
 * the render pipeline's phases on top of the runner's attempt context, and the handler the
 * worker registers.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  ACTIVE_STATUSES,
  claimRender,
  failRenderUnfenced,
  findRenderById,
  finishRender,
  type RenderRow,
  readRenderAttempts,
  readRenderControl,
  TERMINAL_STATUSES,
  updateRenderFenced,
} from "../../db/repositories/renders.ts";
import {
  type AttemptControl,
  type AttemptProgress,
  type DescribedFailure,
  type ResourceLifecycle,
  runAttempt,
  workerLostError,
} from "../../queue/attempt-runner.ts";
import { JOBS, type RenderJobV1 } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { makeAttemptWorkDir, type WorkDirOwner } from "../../queue/work-dir-sweep.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderPrefix } from "../../storage/keys.ts";
import { RenderError, type RenderOutput, type RenderProgress, type RenderWarning } from "../render/types.ts";
import type { WebhookEvents } from "../webhooks/events.ts";

/** Progress as the render pipeline reports it (ratio 0..1 of the current phase's work). */
export interface PipelineProgress {
  ratio: number;
  speed?: number;
  etaSeconds?: number;
}

/** What a render attempt gives the render pipeline: cancellation, phase changes, progress, warnings. */
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

type RenderPhase = "preparing" | "rendering" | "finalizing";

/** Where each phase sits in the overall ratio: preparing 0–5 %, rendering 5–95 %, finalizing 95–100 %. */
const PHASE_SPAN: Record<RenderPhase, [number, number]> = {
  preparing: [0, 0.05],
  rendering: [0.05, 0.9],
  finalizing: [0.95, 0.05],
};

/** The stored `Render.progress` object for a runner progress (phase, speed and ETA in `detail`). */
function progressJson(clock: Clock, p: AttemptProgress, phase?: RenderProgress["phase"]): RenderProgress {
  return {
    phase: "queued",
    ...p.detail,
    ratio: p.ratio,
    ...(phase ? { phase } : {}),
    updatedAt: clock.now().toISOString(),
  };
}

/**
 * Runs a write that may end a render and, when it did, records the render's webhook event in
 * the same transaction (so the event exists exactly when the end is committed).
 * @param write - the ending write; returns the row as written, or null when it did not apply.
 * @returns whether the write applied.
 */
export async function endRenderWithEvent(
  db: Db,
  events: WebhookEvents | undefined,
  write: (tx: Db) => Promise<RenderRow | null>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await write(tx);
    if (!row) return false;
    await events?.renderEnded(tx, row);
    return true;
  });
}

/**
 * The render table as a {@link ResourceLifecycle}: claim moves the render to `preparing`,
 * heartbeats write `heartbeatAt` and `progress`, final writes set `finishedAt` and progress
 * phase `done` (and record the render's webhook event with `events`); a cancelled render's
 * output is deleted from storage.
 */
export function renderLifecycle(deps: {
  db: Db;
  clock: Clock;
  store: BlobStore;
  events?: WebhookEvents;
}): ResourceLifecycle<RenderRow, RenderOutput, RenderWarning> {
  const { db, clock } = deps;
  const endWrite = (write: (tx: Db) => Promise<RenderRow | null>) =>
    endRenderWithEvent(db, deps.events, write);
  const readControl = async (id: string, attempt: number): Promise<AttemptControl> => {
    const control = await readRenderControl(db, id);
    if (!control || control.attempt !== attempt) return "superseded";
    if (control.status === "cancelling") return "cancelling";
    return ACTIVE_STATUSES.includes(control.status) ? "ok" : "superseded";
  };
  return {
    claim: (id) => claimRender(db, id, clock.now()),
    readControl,
    async heartbeat(id, attempt, progress) {
      const ok = await updateRenderFenced(db, {
        id,
        attempt,
        set: { heartbeatAt: clock.now(), progress: progressJson(clock, progress) },
      });
      return ok ? "ok" : readControl(id, attempt);
    },
    finish(id, attempt, end, progress) {
      const finishedAt = clock.now();
      if (end.status === "cancelled") {
        return endWrite((tx) =>
          finishRender(tx, {
            id,
            attempt,
            from: ["cancelling"],
            set: { status: "cancelled", progress: progressJson(clock, progress, "done"), finishedAt },
          }),
        );
      }
      return endWrite((tx) =>
        finishRender(tx, {
          id,
          attempt,
          from: ACTIVE_STATUSES,
          set: {
            status: end.status,
            warnings: end.warnings,
            finishedAt,
            ...(end.status === "succeeded"
              ? {
                  output: end.output,
                  error: null,
                  progress: { ratio: 1, phase: "done", updatedAt: finishedAt.toISOString() },
                }
              : { error: end.error, progress: progressJson(clock, progress, "done") }),
          },
        }),
      );
    },
    abandon: (id, error) => endWrite((tx) => failRenderUnfenced(tx, { id, error, now: clock.now() })),
    async discardOutput(id) {
      await deps.store.deletePrefix(renderPrefix(id));
    },
    initialProgress: (row) => row.progress.ratio,
    initialWarnings: (row) => row.warnings,
  };
}

/** A render failure as stored and whether it may be retried (anything untyped is `INTERNAL`, retryable). */
export function describeRenderError(err: unknown): DescribedFailure {
  if (err instanceof RenderError) return { error: err.toJSON(), retryable: err.retryable };
  const internal = new RenderError("INTERNAL", "The render failed unexpectedly", { retryable: true });
  return { error: internal.toJSON(), retryable: true, unexpected: true };
}

/** What a render attempt runs on: the database, clock, blob store, the attempt's pipeline and the webhook events. */
export interface RenderAttemptDeps {
  db: Db;
  clock: Clock;
  store: BlobStore;
  pipeline: RenderPipeline;
  log: Logger;
  events?: WebhookEvents;
}

/**
 * Runs one attempt of render `renderId` through the fenced-attempt runner, giving the render
 * pipeline its phases: each phase change is a fenced status write, and the phase's own progress
 * is mapped onto the overall ratio.
 *
 * @returns the attempt's outcome.
 * @throws RetryableAttemptError for a retryable failure with attempts left (pg-boss retries).
 */
export function runRenderAttempt(
  deps: RenderAttemptDeps & { pollMs?: number; maxAttempts?: number },
  renderId: string,
) {
  const { db, clock } = deps;
  return runAttempt(
    {
      lifecycle: renderLifecycle(deps),
      describeError: describeRenderError,
      log: deps.log.child({ renderId }),
      maxAttempts: deps.maxAttempts ?? JOBS.render.policy.retryLimit + 1,
      ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
      pipeline: (render, ctx) => {
        let phase: RenderPhase = "preparing";
        let best = render.progress.ratio;
        const report = (p: PipelineProgress) => {
          const [base, span] = PHASE_SPAN[phase];
          best = Math.max(best, base + span * Math.max(0, Math.min(1, p.ratio)));
          ctx.progress(best, {
            phase,
            ...(p.speed !== undefined ? { speed: p.speed } : {}),
            ...(p.etaSeconds !== undefined ? { etaSeconds: p.etaSeconds } : {}),
          });
        };
        report({ ratio: 0 });
        return deps.pipeline(render, {
          signal: ctx.signal,
          attempt: ctx.attempt,
          async phase(next) {
            phase = next;
            report({ ratio: 0 });
            const ok = await updateRenderFenced(db, {
              id: render.id,
              attempt: ctx.attempt,
              set: { status: next, progress: progressJson(clock, { ratio: best }, next) },
            });
            // The runner reads why (cancel pending or a newer attempt) when this throws.
            if (!ok) throw new Error("the render moved on from this attempt");
          },
          progress: report,
          warn: ctx.warn,
        });
      },
    },
    renderId,
  );
}

/**
 * Fails render `renderId` with `WORKER_LOST` whatever attempt runs it (a job of the render
 * whose retries ran out), with its webhook event; a render being cancelled becomes `cancelled`.
 */
export async function failLostRender(
  deps: { db: Db; clock: Clock; events?: WebhookEvents },
  renderId: string,
): Promise<void> {
  await endRenderWithEvent(deps.db, deps.events, (tx) =>
    failRenderUnfenced(tx, { id: renderId, now: deps.clock.now(), error: workerLostError("render") }),
  );
}

/**
 * The `render` job handler: one fenced attempt per job ({@link runRenderAttempt}); a job whose
 * retries ran out (its worker kept dying) fails its render with `WORKER_LOST`. A render the
 * pipeline split into parts is carried on by their jobs.
 *
 * @param opts.concurrency - renders run at once in this process (WORKER_CONCURRENCY).
 */
export function renderJobHandler(
  opts: RenderAttemptDeps & {
    /** Sends a split render's part and join jobs when they are missing (see `SplitRenderStarter.resume`). */
    resumeSplit?(renderId: string): Promise<void>;
    concurrency: number;
    pollingIntervalSeconds?: number;
  },
): JobHandler<RenderJobV1> {
  const { db, clock, log } = opts;
  return {
    concurrency: opts.concurrency,
    ...(opts.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: opts.pollingIntervalSeconds }
      : {}),
    async run(data) {
      // A split render's parts and join carry it on: a retry of its job (the worker was lost
      // after the hand-off) only makes sure their jobs were sent.
      if ((await findRenderById(db, data.renderId))?.segmentCount != null) {
        await opts.resumeSplit?.(data.renderId);
        return "handed_off";
      }
      const outcome = await runRenderAttempt(opts, data.renderId);
      log.info({ renderId: data.renderId, outcome }, "render attempt ended");
      return outcome;
    },
    async deadLetter(data) {
      await failLostRender({ db, clock, ...(opts.events ? { events: opts.events } : {}) }, data.renderId);
    },
  };
}

/** Render attempts' work directories (`rnd_…-a<attempt>-…`) for the work-directory sweep. */
export function renderWorkDirs(db: Db): WorkDirOwner {
  return {
    idPrefix: "rnd",
    async readAttempts(ids) {
      const rows = await readRenderAttempts(db, ids);
      return new Map(
        [...rows].map(([id, r]) => [id, { attempt: r.attempt, ended: TERMINAL_STATUSES.includes(r.status) }]),
      );
    },
  };
}

/**
 * Makes the work directory of attempt `attempt` of render `renderId` under `deps.workRoot`
 * (`makeAttemptWorkDir` with {@link renderWorkDirs}: a retry first sweeps the directory of the
 * attempt its killed worker left). Used by the render in one piece and by a split render's join.
 * @returns the directory's absolute path; the caller removes it when the attempt ends.
 * @throws when the directory cannot be made.
 */
export function makeRenderWorkDir(
  deps: { db: Db; workRoot: string; log: Logger },
  renderId: string,
  attempt: number,
): Promise<string> {
  return makeAttemptWorkDir({
    workRoot: deps.workRoot,
    resourceId: renderId,
    attempt,
    owner: renderWorkDirs(deps.db),
    log: deps.log.child({ renderId }),
  });
}
