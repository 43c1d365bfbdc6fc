/**
 * The `generation` job kind on the shared row-job lifecycle: the generations table, its work
 * (`runGenerationPipeline`: submit or resume the vendor request, poll, store the outputs as
 * uploads) and its end (warnings, `generation.succeeded`/`failed`, the API's waiters woken,
 * `cutroom_generations_total`), and the handler the worker registers.
 */
import type { Logger } from "pino";
import { type GenerationRow, generationRows, type NewGeneration } from "../../db/repositories/generations.ts";
import type { GenerationWarning } from "../../db/schema/generations.ts";
import { generationOutcomes } from "../../metrics/process-metrics.ts";
import type { AttemptOutcome, DescribedFailure } from "../../queue/attempt-runner.ts";
import { type GenerationJobV1, JOBS } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { type RowJob, rowJobHandler, runRowJobAttempt } from "../../queue/row-job.ts";
import { GenerationError } from "./errors.ts";
import { type GenerationPipelineDeps, runGenerationPipeline } from "./pipeline.ts";
import { announceSettled } from "./settled.ts";

/** What a successful generation attempt produced: the ids of its output uploads. */
export interface GenerationOutput {
  outputs: string[];
}

/**
 * The generation as a row job. `DELETE` makes it `cancelled` at once (and cancels the vendor
 * request). Every end, cancelled included, wakes the API's waiters in every process
 * (`announceSettled`) and is counted on `cutroom_generations_total`.
 */
function generationJob(
  deps: GenerationPipelineDeps,
): RowJob<GenerationJobV1, GenerationRow, GenerationOutput, GenerationWarning, NewGeneration> {
  const { db, events } = deps;
  return {
    kind: JOBS.generation,
    idOf: (data) => data.generationId,
    noun: "generation",
    table: generationRows,
    run: (row, ctx) => runGenerationPipeline(deps, row, ctx),
    describeError: describeGenerationError,
    succeeded: (_output, warnings) => ({ warnings }),
    failed: (warnings) => ({ warnings }),
    recordEnd: events && ((tx, row) => events.generationEnded(tx, row)),
    async afterEnd(id, end) {
      await announceSettled(db, id);
      generationOutcomes.inc({ outcome: end.status, code: end.code });
    },
    discardOutput: (_id, output) => deps.discardOutputs(output.outputs),
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
  return runRowJobAttempt(generationJob(deps.pipeline), deps, generationId);
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
  return rowJobHandler(generationJob(opts.pipeline), opts);
}
