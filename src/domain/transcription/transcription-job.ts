/**
 * The `transcription` job kind: the transcriptions table's lifecycle adapter for the
 * fenced-attempt runner, and the handler the worker registers. The work itself is
 * `runTranscriptionPipeline`.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  claimTranscription,
  failTranscriptionUnfenced,
  findTranscriptionById,
  readTranscriptionAttempts,
  readTranscriptionControl,
  TRANSCRIPTION_TERMINAL,
  type TranscriptionRow,
  updateTranscriptionFenced,
} from "../../db/repositories/transcriptions.ts";
import {
  type AttemptOutcome,
  type DescribedFailure,
  type ResourceLifecycle,
  runAttempt,
} from "../../queue/attempt-runner.ts";
import { JOBS, type TranscriptionJobV1 } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { immediateCancelControl, rowJobHandler, rowWorkDirs, workerLostError } from "../../queue/row-job.ts";
import type { WorkDirOwner } from "../../queue/work-dir-sweep.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { runTranscriptionPipeline, type TranscriptionPipelineDeps } from "./pipeline.ts";
import { TranscriptionError, type TranscriptResult } from "./types.ts";

/** What a transcription attempt needs: the pipeline's needs, a clock and the event recorder. */
export interface TranscriptionJobDeps extends TranscriptionPipelineDeps {
  clock: Clock;
  /** Records `transcription.succeeded`/`transcription.failed` with the final write. */
  events?: WebhookEvents | undefined;
}

/** Runs a write that may end a transcription and records its webhook event in the same transaction. */
async function endWithEvent(
  db: Db,
  events: WebhookEvents | undefined,
  id: string,
  write: (tx: Db) => Promise<boolean>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await write(tx))) return false;
    const row = await findTranscriptionById(tx, id);
    if (row && events) await events.transcriptionEnded(tx, row);
    return true;
  });
}

/**
 * The transcriptions table as a {@link ResourceLifecycle}: like generations, `DELETE` makes a
 * transcription `cancelled` at once, so a running attempt reads `cancelled` as "being cancelled".
 */
export function transcriptionLifecycle(
  deps: TranscriptionJobDeps,
): ResourceLifecycle<TranscriptionRow, TranscriptResult, never> {
  const { db, clock } = deps;
  const readControl = immediateCancelControl((id) => readTranscriptionControl(db, id));
  return {
    claim: (id) => claimTranscription(db, id, clock.now()),
    readControl,
    async heartbeat(id, attempt, progress) {
      const ok = await updateTranscriptionFenced(db, {
        id,
        attempt,
        set: { heartbeatAt: clock.now(), progress: progress.ratio },
      });
      return ok ? "ok" : readControl(id, attempt);
    },
    async finish(id, attempt, end, progress) {
      if (end.status === "cancelled") return (await readControl(id, attempt)) === "cancelling";
      return endWithEvent(db, deps.events, id, (tx) =>
        updateTranscriptionFenced(tx, {
          id,
          attempt,
          set:
            end.status === "succeeded"
              ? { status: "succeeded", progress: 1, result: end.output, error: null, finishedAt: clock.now() }
              : {
                  status: "failed",
                  progress: progress.ratio,
                  error: { code: end.error.code, message: end.error.message },
                  finishedAt: clock.now(),
                },
        }),
      );
    },
    async abandon(id, error) {
      if (!error) return false;
      return endWithEvent(db, deps.events, id, (tx) =>
        failTranscriptionUnfenced(tx, {
          id,
          error: { code: error.code, message: error.message },
          now: clock.now(),
        }),
      );
    },
    initialProgress: (row) => row.progress ?? 0,
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
  return runAttempt(
    {
      lifecycle: transcriptionLifecycle(deps.pipeline),
      describeError: describeTranscriptionError,
      log: deps.log.child({ transcriptionId }),
      maxAttempts: JOBS.transcription.policy.retryLimit + 1,
      ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
      pipeline: (row, ctx) => runTranscriptionPipeline(deps.pipeline, row, ctx),
    },
    transcriptionId,
  );
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
  const { pipeline } = opts;
  return rowJobHandler<TranscriptionJobV1>({
    ...opts,
    kind: "transcription",
    idOf: (data) => data.transcriptionId,
    runAttempt: (id) => runTranscriptionAttempt(opts, id),
    failLost: (id) =>
      endWithEvent(pipeline.db, pipeline.events, id, (tx) =>
        failTranscriptionUnfenced(tx, {
          id,
          error: workerLostError("transcription"),
          now: pipeline.clock.now(),
        }),
      ),
  });
}

/** Transcription attempts' work directories (`trn_…-a<attempt>-…`) for the work-directory sweep. */
export function transcriptionWorkDirs(db: Db): WorkDirOwner {
  return rowWorkDirs("trn", (ids) => readTranscriptionAttempts(db, ids), TRANSCRIPTION_TERMINAL);
}
