// TEMPORARY wiring of the `generation` queue until the generic job registry and fenced-attempt
// runner take it over: the queue, its send, and a small attempt loop around the pipeline.
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import {
  claimGeneration,
  readGenerationControl,
  updateGenerationFenced,
} from "../db/repositories/generations.ts";
import { GenerationError } from "../domain/generation/errors.ts";
import {
  AttemptLostError,
  type GenerationPipelineDeps,
  runGenerationPipeline,
} from "../domain/generation/pipeline.ts";
import { announceSettled } from "../domain/generation/settled.ts";
import type { Queue } from "./queue.ts";

/** Payload of a `generation` job: the row is the source of truth. */
export interface GenerationJobV1 {
  v: 1;
  generationId: string;
}

const QUEUE = "generation";
const DEAD = "generation_dead";
const RETRY_LIMIT = 2;

/** Workers of this process, woken right after a send so that a job starts without a poll delay. */
const localWorkers = new Set<string>();

/** Creates the `generation` queue and its dead-letter queue (idempotent). */
export async function ensureGenerationQueue(boss: Queue): Promise<void> {
  await boss.createQueue(DEAD);
  await boss.createQueue(QUEUE, {
    retryLimit: RETRY_LIMIT,
    retryDelay: 2,
    heartbeatSeconds: 10,
    expireInSeconds: 3600,
    deadLetter: DEAD,
  });
}

/** The domain's enqueue function on pg-boss. */
export function generationEnqueuer(boss: Queue): (generationId: string) => Promise<void> {
  return async (generationId) => {
    const job: GenerationJobV1 = { v: 1, generationId };
    await boss.send(QUEUE, job);
    for (const id of localWorkers) boss.notifyWorker(id);
  };
}

/**
 * One attempt: claim (attempt + 1), run the pipeline with a signal aborted on cancel or loss of
 * the claim, persist progress and heartbeat every `pollMs`, and end a failed generation (or
 * rethrow a retryable failure for pg-boss to retry while attempts remain).
 */
export async function runGenerationAttempt(
  deps: { db: Db; clock: Clock; log: Logger; pipeline: GenerationPipelineDeps; pollMs?: number },
  generationId: string,
): Promise<"succeeded" | "failed" | "lost" | "skipped"> {
  const { db, clock } = deps;
  const claimed = await claimGeneration(db, generationId, clock.now());
  if (!claimed) return "skipped";
  const attempt = claimed.attempt;
  const log = deps.log.child({ generationId, attempt });
  const controller = new AbortController();
  let progress = claimed.progress ?? 0;
  let tick: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    tick = tick.then(async () => {
      const control = await readGenerationControl(db, generationId).catch(() => null);
      if (control && (control.status !== "running" || control.attempt !== attempt)) {
        controller.abort(new AttemptLostError());
        return;
      }
      await updateGenerationFenced(db, {
        id: generationId,
        attempt,
        set: { heartbeatAt: clock.now(), progress },
      }).catch(() => {});
    });
  }, deps.pollMs ?? 500);
  try {
    await runGenerationPipeline(deps.pipeline, claimed, {
      attempt,
      signal: controller.signal,
      progress: (r) => {
        progress = Math.max(progress, Math.min(1, r));
      },
      log,
    });
    return "succeeded";
  } catch (err) {
    if (controller.signal.aborted || err instanceof AttemptLostError) return "lost";
    const failure =
      err instanceof GenerationError
        ? err
        : new GenerationError("vendor_error", "The generation failed unexpectedly", { retryable: true });
    if (!(err instanceof GenerationError)) log.error({ err }, "generation attempt crashed");
    if (failure.retryable && attempt <= RETRY_LIMIT) {
      log.warn({ code: failure.code }, "retryable generation failure; the queue will retry");
      throw failure;
    }
    await updateGenerationFenced(db, {
      id: generationId,
      attempt,
      set: { status: "failed", error: failure.toJSON(), finishedAt: clock.now() },
    });
    announceSettled(generationId);
    return "failed";
  } finally {
    clearInterval(timer);
    await tick;
  }
}

/**
 * Makes this process a generation worker. Returns a function that stops taking jobs and waits
 * for running ones.
 */
export async function startGenerationWorker(opts: {
  boss: Queue;
  db: Db;
  clock: Clock;
  log: Logger;
  concurrency: number;
  pipeline: GenerationPipelineDeps;
}): Promise<() => Promise<void>> {
  const { boss, db, clock, log } = opts;
  const workerId = await boss.work<GenerationJobV1>(
    QUEUE,
    { batchSize: 1, localConcurrency: opts.concurrency, pollingIntervalSeconds: 0.5 },
    async ([job]) => {
      if (!job) return;
      const outcome = await runGenerationAttempt(
        { db, clock, log, pipeline: opts.pipeline },
        job.data.generationId,
      );
      log.info({ generationId: job.data.generationId, outcome }, "generation attempt ended");
    },
  );
  localWorkers.add(workerId);
  await boss.work<GenerationJobV1>(DEAD, { pollingIntervalSeconds: 2 }, async ([job]) => {
    if (!job) return;
    const control = await readGenerationControl(db, job.data.generationId);
    if (control?.status !== "running" && control?.status !== "queued") return;
    const claimed = await claimGeneration(db, job.data.generationId, clock.now());
    if (!claimed) return;
    await updateGenerationFenced(db, {
      id: claimed.id,
      attempt: claimed.attempt,
      set: {
        status: "failed",
        error: {
          code: "worker_lost",
          message: "The worker running this generation stopped on every attempt",
        },
        finishedAt: clock.now(),
      },
    });
    announceSettled(claimed.id);
  });
  return async () => {
    localWorkers.delete(workerId);
    await boss.offWork(QUEUE, { wait: true });
    await boss.offWork(DEAD, { wait: true });
  };
}
