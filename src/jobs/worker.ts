import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { failRenderUnfenced, findRenderById } from "../db/repositories/renders.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { QUEUES, type RenderJobV1 } from "./catalog.ts";
import { type RenderPipeline, runRenderAttempt } from "./handlers/render-job.ts";
import type { Queue } from "./queue.ts";

/**
 * Registers this process as a render worker: `render` jobs run one attempt each through
 * {@link runRenderAttempt}; `render_dead` jobs (retries exhausted: the worker kept dying)
 * end their render as `failed` with `WORKER_LOST`. Returns a function that stops taking
 * jobs and waits for running ones (graceful shutdown).
 *
 * @param opts.concurrency - renders run at once in this process (WORKER_CONCURRENCY).
 */
export async function startRenderWorker(opts: {
  boss: Queue;
  db: Db;
  clock: Clock;
  pipeline: RenderPipeline;
  store: BlobStore;
  log: Logger;
  concurrency: number;
  pollingIntervalSeconds?: number;
}): Promise<() => Promise<void>> {
  const { boss, db, clock, log } = opts;
  await boss.work<RenderJobV1>(
    QUEUES.render.name,
    {
      batchSize: 1,
      localConcurrency: opts.concurrency,
      pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 0.5,
    },
    async ([job]) => {
      if (!job) return;
      const outcome = await runRenderAttempt(
        {
          db,
          clock,
          pipeline: opts.pipeline,
          log,
          discardOutput: async () => {
            await opts.store.deletePrefix(`renders/${job.data.renderId}/`);
          },
        },
        job.data.renderId,
      );
      if (outcome === "skipped") {
        // Nothing claimable: a render left `cancelling` by a dead worker is finished here.
        const row = await findRenderById(db, job.data.renderId);
        if (row?.status === "cancelling") {
          await failRenderUnfenced(db, { id: row.id, now: clock.now(), error: {} });
        }
      }
      log.info({ renderId: job.data.renderId, outcome }, "render attempt ended");
    },
  );
  await boss.work<RenderJobV1>(QUEUES.renderDead.name, { pollingIntervalSeconds: 2 }, async ([job]) => {
    if (!job) return;
    await failRenderUnfenced(db, {
      id: job.data.renderId,
      now: clock.now(),
      error: {
        code: "WORKER_LOST",
        message: "The worker running this render stopped responding on every attempt",
        retryable: true,
      },
    });
  });
  return async () => {
    await boss.offWork(QUEUES.render.name, { wait: true });
    await boss.offWork(QUEUES.renderDead.name, { wait: true });
  };
}
