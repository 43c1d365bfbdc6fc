/**
 * The `generation` job kind: the generations table's lifecycle adapter for the fenced-attempt
 * runner, and the handler the worker registers. The work itself (submit or resume the vendor
 * request, poll, store the outputs as uploads) is `runGenerationPipeline`.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  claimGeneration,
  failGenerationUnfenced,
  findGenerationById,
  GENERATION_TERMINAL,
  type GenerationRow,
  readGenerationAttempts,
  readGenerationControl,
  updateGenerationFenced,
} from "../../db/repositories/generations.ts";
import type { GenerationWarning } from "../../db/schema/generations.ts";
import { generationOutcomes } from "../../metrics/process-metrics.ts";
import {
  type AttemptOutcome,
  type DescribedFailure,
  type ResourceLifecycle,
  runAttempt,
} from "../../queue/attempt-runner.ts";
import { type GenerationJobV1, JOBS } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { immediateCancelControl, rowJobHandler, rowWorkDirs, workerLostError } from "../../queue/row-job.ts";
import type { WorkDirOwner } from "../../queue/work-dir-sweep.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { GenerationError } from "./errors.ts";
import { type GenerationPipelineDeps, runGenerationPipeline } from "./pipeline.ts";
import { announceSettled } from "./settled.ts";

/** What a successful generation attempt produced: the ids of its output uploads. */
export interface GenerationOutput {
  outputs: string[];
}

/**
 * Runs a write that may end a generation and, when it did, records the generation's webhook
 * event in the same transaction, then (after the commit) wakes the API's waiters.
 * @returns whether the write applied.
 */
async function endGenerationWithEvent(
  db: Db,
  events: WebhookEvents | undefined,
  id: string,
  write: (tx: Db) => Promise<boolean>,
): Promise<boolean> {
  const ok = await db.transaction(async (tx) => {
    if (!(await write(tx))) return false;
    const row = await findGenerationById(tx, id);
    if (row && events) await events.generationEnded(tx, row);
    return true;
  });
  if (ok) await announceSettled(db, id);
  return ok;
}

/**
 * The generations table as a {@link ResourceLifecycle}. A generation has no `cancelling` state:
 * `DELETE` makes it `cancelled` at once (and cancels the vendor request), so a running attempt
 * reads `cancelled` as "being cancelled" and its final `cancelled` write is already done. Every
 * final write wakes the API's waiters in every process (`announceSettled`) and is counted on
 * `cutroom_generations_total`.
 */
export function generationLifecycle(deps: {
  db: Db;
  clock: Clock;
  discardOutputs: GenerationPipelineDeps["discardOutputs"];
  /** Records `generation.succeeded`/`generation.failed` with the final write. */
  events?: WebhookEvents;
}): ResourceLifecycle<GenerationRow, GenerationOutput, GenerationWarning> {
  const { db, clock } = deps;
  const readControl = immediateCancelControl((id) => readGenerationControl(db, id));
  return {
    claim: (id) => claimGeneration(db, id, clock.now()),
    readControl,
    async heartbeat(id, attempt, progress) {
      const ok = await updateGenerationFenced(db, {
        id,
        attempt,
        set: { heartbeatAt: clock.now(), progress: progress.ratio },
      });
      return ok ? "ok" : readControl(id, attempt);
    },
    async finish(id, attempt, end, progress) {
      if (end.status === "cancelled") {
        const ok = (await readControl(id, attempt)) === "cancelling";
        if (ok) await announceSettled(db, id);
        if (ok) generationOutcomes.inc({ outcome: "cancelled", code: "" });
        return ok;
      }
      const ok = await endGenerationWithEvent(db, deps.events, id, (tx) =>
        updateGenerationFenced(tx, {
          id,
          attempt,
          set:
            end.status === "succeeded"
              ? {
                  status: "succeeded",
                  progress: 1,
                  error: null,
                  warnings: end.warnings,
                  finishedAt: clock.now(),
                }
              : {
                  status: "failed",
                  progress: progress.ratio,
                  error: { code: end.error.code, message: end.error.message },
                  warnings: end.warnings,
                  finishedAt: clock.now(),
                },
        }),
      );
      if (ok)
        generationOutcomes.inc({ outcome: end.status, code: end.status === "failed" ? end.error.code : "" });
      return ok;
    },
    async abandon(id, error) {
      if (!error) return false;
      const ok = await endGenerationWithEvent(db, deps.events, id, (tx) =>
        failGenerationUnfenced(tx, {
          id,
          error: { code: error.code, message: error.message },
          now: clock.now(),
        }),
      );
      if (ok) generationOutcomes.inc({ outcome: "failed", code: error.code });
      return ok;
    },
    async discardOutput(_id, output) {
      await deps.discardOutputs(output.outputs);
    },
    initialProgress: (row) => row.progress ?? 0,
    initialWarnings: (row) => row.warnings ?? [],
  };
}

/** A generation failure as stored, and whether another attempt may help (untyped errors may). */
export function describeGenerationError(err: unknown): DescribedFailure {
  if (err instanceof GenerationError) {
    return { error: { ...err.toJSON(), retryable: err.retryable }, retryable: err.retryable };
  }
  return {
    error: { code: "vendor_error", message: "The generation failed unexpectedly", retryable: true },
    retryable: true,
    unexpected: true,
  };
}

/**
 * Runs one attempt of generation `generationId` through the fenced-attempt runner.
 *
 * @returns the attempt's outcome.
 * @throws RetryableAttemptError for a retryable failure with attempts left (pg-boss retries; the
 *   next attempt resumes the vendor request this one submitted).
 */
export function runGenerationAttempt(
  deps: { pipeline: GenerationPipelineDeps; log: Logger; pollMs?: number; maxAttempts?: number },
  generationId: string,
): Promise<AttemptOutcome> {
  const { pipeline } = deps;
  return runAttempt(
    {
      lifecycle: generationLifecycle(pipeline),
      describeError: describeGenerationError,
      log: deps.log.child({ generationId }),
      maxAttempts: deps.maxAttempts ?? JOBS.generation.policy.retryLimit + 1,
      ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
      pipeline: (row, ctx) => runGenerationPipeline(pipeline, row, ctx),
    },
    generationId,
  );
}

/**
 * The `generation` job handler: one fenced attempt per job ({@link runGenerationAttempt}); a job
 * whose retries ran out (its worker kept dying) fails its generation with `worker_lost`.
 *
 * @param opts.concurrency - generations run at once in this process (WORKER_CONCURRENCY).
 */
export function generationJobHandler(opts: {
  pipeline: GenerationPipelineDeps;
  log: Logger;
  concurrency: number;
  pollingIntervalSeconds?: number;
}): JobHandler<GenerationJobV1> {
  const { pipeline } = opts;
  return rowJobHandler<GenerationJobV1>({
    ...opts,
    kind: "generation",
    idOf: (data) => data.generationId,
    runAttempt: (id) => runGenerationAttempt(opts, id),
    failLost: (id) =>
      endGenerationWithEvent(pipeline.db, pipeline.events, id, (tx) =>
        failGenerationUnfenced(tx, { id, error: workerLostError("generation"), now: pipeline.clock.now() }),
      ),
  });
}

/** Generation attempts' work directories (`gen_…-a<attempt>-…`) for the work-directory sweep. */
export function generationWorkDirs(db: Db): WorkDirOwner {
  return rowWorkDirs("gen", (ids) => readGenerationAttempts(db, ids), GENERATION_TERMINAL);
}
