/**
 * The `transcription` job kind on the shared row-job lifecycle: the transcriptions table, its
 * work (`runTranscriptionPipeline`) and its end (`result`, `transcription.succeeded`/`failed`),
 * and the handler the worker registers.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import {
  type NewTranscription,
  type TranscriptionRow,
  transcriptionRows,
} from "../../db/repositories/transcriptions.ts";
import type { AttemptOutcome, DescribedFailure } from "../../queue/attempt-runner.ts";
import { JOBS, type TranscriptionJobV1 } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { type RowJob, rowJobHandler, runRowJobAttempt } from "../../queue/row-job.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { runTranscriptionPipeline, type TranscriptionPipelineDeps } from "./pipeline.ts";
import { TranscriptionError, type TranscriptResult } from "./types.ts";

/** What a transcription attempt needs: the pipeline's needs, a clock and the event recorder. */
export interface TranscriptionJobDeps extends TranscriptionPipelineDeps {
  clock: Clock;
  /** Records `transcription.succeeded`/`transcription.failed` with the final write. */
  events?: WebhookEvents | undefined;
}

/** The transcription as a row job: `DELETE` makes it `cancelled` at once. */
function transcriptionJob(
  deps: TranscriptionJobDeps,
): RowJob<TranscriptionJobV1, TranscriptionRow, TranscriptResult, never, NewTranscription> {
  const { events } = deps;
  return {
    kind: JOBS.transcription,
    idOf: (data) => data.transcriptionId,
    noun: "transcription",
    table: transcriptionRows,
    run: (row, ctx) => runTranscriptionPipeline(deps, row, ctx),
    describeError: describeTranscriptionError,
    succeeded: (result) => ({ result }),
    recordEnd: events && ((tx, row) => events.transcriptionEnded(tx, row)),
  };
}

/** A transcription failure as stored, and whether another attempt may help. */
export function describeTranscriptionError(err: unknown): DescribedFailure {
  if (err instanceof TranscriptionError) {
    return { error: { ...err.toJSON(), retryable: err.retryable }, retryable: err.retryable };
  }
  return {
    error: { code: "engine_failed", message: "The transcription failed unexpectedly", retryable: true },
    retryable: true,
    unexpected: true,
  };
}

/**
 * Runs one attempt of transcription `transcriptionId` through the fenced-attempt runner.
 * @throws RetryableAttemptError for a retryable failure with attempts left (pg-boss retries).
 */
export function runTranscriptionAttempt(
  deps: { pipeline: TranscriptionJobDeps; log: Logger; pollMs?: number },
  transcriptionId: string,
): Promise<AttemptOutcome> {
  return runRowJobAttempt(transcriptionJob(deps.pipeline), deps, transcriptionId);
}

/**
 * The `transcription` job handler: one fenced attempt per job; a job whose retries ran out (its
 * worker kept dying) fails its transcription with `worker_lost`.
 * @param opts.concurrency - transcriptions run at once in this process (WORKER_CONCURRENCY).
 */
export function transcriptionJobHandler(opts: {
  pipeline: TranscriptionJobDeps;
  log: Logger;
  concurrency: number;
  pollingIntervalSeconds?: number;
}): JobHandler<TranscriptionJobV1> {
  return rowJobHandler(transcriptionJob(opts.pipeline), opts);
}
