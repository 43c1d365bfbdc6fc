import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { WebhookConfig } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { RenderPartRow } from "../db/repositories/render-segments.ts";
import { generationJobHandler } from "../domain/generation/generation-job.ts";
import { type GenerationPipelineDeps, generationWorkDirs } from "../domain/generation/pipeline.ts";
import type { RenderWarning } from "../domain/render/types.ts";
import { type RenderPipeline, renderJobHandler, renderWorkDirs } from "../domain/render-jobs/render-job.ts";
import { renderJoinJobHandler } from "../domain/render-jobs/render-join-job.ts";
import { renderPartJobHandler, renderPartWorkDirs } from "../domain/render-jobs/render-part-job.ts";
import { transcriptionWorkDirs } from "../domain/transcription/pipeline.ts";
import {
  type TranscriptionJobDeps,
  transcriptionJobHandler,
} from "../domain/transcription/transcription-job.ts";
import { previewProxyJobHandler } from "../domain/uploads/preview-proxy.ts";
import type { WebhookEvents } from "../domain/webhooks/events.ts";
import { webhookDeliveryJobHandler } from "../domain/webhooks/webhook-delivery-job.ts";
import type { AttemptPipeline } from "../queue/attempt-runner.ts";
import { JOBS, type JobCatalog } from "../queue/catalog.ts";
import { createEnqueue } from "../queue/enqueue.ts";
import type { Queue } from "../queue/queue.ts";
import { type JobHandlers, startJobWorkers } from "../queue/registry.ts";
import { scratchWorkDirs } from "../queue/scratch-work-dirs.ts";
import { startWorkDirSweeps, type WorkDirOwner } from "../queue/work-dir-sweep.ts";
import type { BlobStore } from "../storage/blob-store.ts";

/**
 * Makes this process a job worker: one handler per job kind of the catalog (start-up fails
 * when a kind has none), and the background sweep of `workRoot` for the scratch directories
 * that killed workers left behind. Returns a function that stops taking jobs and waits for
 * running ones (graceful shutdown).
 *
 * @param opts.concurrency - renders and generations run at once in this process
 *   (WORKER_CONCURRENCY); webhook tries, which mostly wait on the network, at least 4.
 * @param opts.events - records the webhook events of renders and generations that end.
 */
export async function startJobWorker(opts: {
  boss: Queue;
  db: Db;
  clock: Clock;
  store: BlobStore;
  log: Logger;
  workRoot: string;
  concurrency: number;
  renderPipeline: RenderPipeline;
  /** Sends the part and join jobs of a split render again when they are missing (`SplitRenderStarter.resume`). */
  resumeSplitRender(renderId: string): Promise<void>;
  /** The work of one part of a split render (`createRenderPartPipeline`). */
  renderPartPipeline: AttemptPipeline<RenderPartRow, string, RenderWarning>;
  /** The join of a split render (`createRenderJoinPipeline`). */
  renderJoinPipeline: RenderPipeline;
  generationPipeline: GenerationPipelineDeps;
  transcriptionPipeline: TranscriptionJobDeps;
  webhooks: WebhookConfig;
  events: WebhookEvents;
  pollingIntervalSeconds?: number;
}): Promise<() => Promise<void>> {
  const { db, log } = opts;
  const polling =
    opts.pollingIntervalSeconds !== undefined ? { pollingIntervalSeconds: opts.pollingIntervalSeconds } : {};
  const handlers: JobHandlers<JobCatalog> = {
    render: renderJobHandler({
      db,
      clock: opts.clock,
      store: opts.store,
      log,
      pipeline: opts.renderPipeline,
      resumeSplit: opts.resumeSplitRender,
      events: opts.events,
      concurrency: opts.concurrency,
      ...polling,
    }),
    renderPart: renderPartJobHandler({
      db,
      clock: opts.clock,
      store: opts.store,
      log,
      pipeline: opts.renderPartPipeline,
      events: opts.events,
      concurrency: opts.concurrency,
      async deleteJoinJob(id) {
        await opts.boss.deleteJob(JOBS.renderJoin.name, id);
      },
      ...polling,
    }),
    renderJoin: renderJoinJobHandler({
      db,
      clock: opts.clock,
      store: opts.store,
      log,
      pipeline: opts.renderJoinPipeline,
      events: opts.events,
      concurrency: opts.concurrency,
      ...polling,
    }),
    generation: generationJobHandler({
      pipeline: { ...opts.generationPipeline, events: opts.events },
      log,
      concurrency: opts.concurrency,
      ...polling,
    }),
    transcription: transcriptionJobHandler({
      pipeline: { ...opts.transcriptionPipeline, events: opts.events },
      log,
      concurrency: opts.concurrency,
      ...polling,
    }),
    webhookDelivery: webhookDeliveryJobHandler({
      db,
      clock: opts.clock,
      enqueue: createEnqueue(opts.boss),
      config: opts.webhooks,
      log,
      concurrency: Math.max(4, opts.concurrency),
      ...polling,
    }),
    previewProxy: previewProxyJobHandler({
      db,
      store: opts.store,
      workRoot: opts.workRoot,
      log,
      // One at a time: a proxy encodes on every core, beside renders.
      concurrency: 1,
      ...polling,
    }),
  };
  const workDirOwners: WorkDirOwner[] = [
    renderWorkDirs(db),
    renderPartWorkDirs(db),
    generationWorkDirs(db),
    transcriptionWorkDirs(db),
    scratchWorkDirs("pfl"),
    scratchWorkDirs("frm"),
    scratchWorkDirs("pvw"),
    scratchWorkDirs("prx"),
  ];
  const stopJobs = await startJobWorkers(opts.boss, JOBS, handlers);
  const stopSweeps = startWorkDirSweeps({ workRoot: opts.workRoot, owners: workDirOwners, log });
  return async () => {
    stopSweeps();
    await stopJobs();
  };
}
