import { autoeditJobHandler } from "../domain/autoedit/autoedit-job.ts";
import { generationJobHandler } from "../domain/generation/generation-job.ts";
import { generationWorkDirs } from "../domain/generation/pipeline.ts";
import { renderJobHandler, renderWorkDirs } from "../domain/render-jobs/render-job.ts";
import { renderJoinJobHandler } from "../domain/render-jobs/render-join-job.ts";
import { renderPartJobHandler, renderPartWorkDirs } from "../domain/render-jobs/render-part-job.ts";
import { transcriptionWorkDirs } from "../domain/transcription/pipeline.ts";
import { transcriptionJobHandler } from "../domain/transcription/transcription-job.ts";
import { previewProxyJobHandler } from "../domain/uploads/preview-proxy.ts";
import { webhookDeliveryJobHandler } from "../domain/webhooks/webhook-delivery-job.ts";
import { JOBS, type JobCatalog } from "../queue/catalog.ts";
import { type JobHandlers, startJobWorkers } from "../queue/registry.ts";
import { scratchWorkDirs } from "../queue/scratch-work-dirs.ts";
import { startWorkDirSweeps, type WorkDirOwner } from "../queue/work-dir-sweep.ts";
import type { RuntimeParts } from "../runtime.ts";
import { buildServices, type WorkerServices } from "../services.ts";

/**
 * Makes this process a job worker: one handler per job kind of the catalog (start-up fails
 * when a kind has none), each given its pipeline from `services`, and the background sweep of
 * `WORK_DIR` for the scratch directories that killed workers left behind. Renders and
 * generations run `WORKER_CONCURRENCY` at once; webhook tries, which mostly wait on the
 * network, at least 4. Returns a function that stops taking jobs and waits for running ones
 * (graceful shutdown).
 *
 * @param opts.pollingIntervalSeconds - how often each queue is polled (default pg-boss's own).
 */
export async function startJobWorker(
  runtime: RuntimeParts,
  services: WorkerServices,
  opts: { pollingIntervalSeconds?: number } = {},
): Promise<() => Promise<void>> {
  const { config, store, queue, clock, log } = runtime;
  const { events } = services;
  const db = runtime.database.db;
  const workRoot = config.workDir;
  const concurrency = config.workerConcurrency;
  const polling =
    opts.pollingIntervalSeconds !== undefined ? { pollingIntervalSeconds: opts.pollingIntervalSeconds } : {};
  const handlers: JobHandlers<JobCatalog> = {
    render: renderJobHandler({
      db,
      clock,
      store,
      log,
      pipeline: services.renderPipeline,
      resumeSplit: services.resumeSplitRender,
      events,
      concurrency,
      ...polling,
    }),
    renderPart: renderPartJobHandler({
      db,
      clock,
      store,
      log,
      pipeline: services.renderPartPipeline,
      events,
      concurrency,
      async deleteJoinJob(id) {
        await queue.deleteJob(JOBS.renderJoin.name, id);
      },
      ...polling,
    }),
    renderJoin: renderJoinJobHandler({
      db,
      clock,
      store,
      log,
      pipeline: services.renderJoinPipeline,
      events,
      concurrency,
      ...polling,
    }),
    generation: generationJobHandler({
      pipeline: services.generationPipeline,
      log,
      concurrency,
      ...polling,
    }),
    transcription: transcriptionJobHandler({
      pipeline: services.transcriptionPipeline,
      log,
      concurrency,
      ...polling,
    }),
    autoedit: autoeditJobHandler({
      pipeline: services.autoeditPipeline,
      log,
      concurrency,
      ...polling,
    }),
    webhookDelivery: webhookDeliveryJobHandler({
      db,
      clock,
      enqueue: services.enqueue,
      config: config.webhooks,
      log,
      concurrency: Math.max(4, concurrency),
      ...polling,
    }),
    previewProxy: previewProxyJobHandler({
      db,
      store,
      workRoot,
      log,
      stallTimeoutMs: config.renderStallTimeoutSec * 1000,
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
  const stopJobs = await startJobWorkers(queue, JOBS, handlers);
  const stopSweeps = startWorkDirSweeps({ workRoot, owners: workDirOwners, log });
  return async () => {
    stopSweeps();
    await stopJobs();
    await services.faces.close();
  };
}

/**
 * Makes this process a job worker (in-process beside the API, or the `worker` role) for every
 * job kind, and sweeps `WORK_DIR` of the scratch directories that killed workers left behind.
 * Renders longer than `RENDER_SEGMENT_SEC` are split into parts (see `split-render.ts`).
 * @param opts.services - the worker's services (`buildServices` with role `worker` or `both`);
 *   built here with role `worker` when not given.
 * @param opts.lossless - when the services are built here: lossless H.264 video in renders and
 *   their segments, for exactness tests only (split and unsplit outputs then decode to identical
 *   frames).
 * @returns a function that stops taking jobs and waits for running ones.
 */
export async function startWorker(
  runtime: RuntimeParts,
  opts: { services?: WorkerServices; lossless?: boolean } = {},
): Promise<() => Promise<void>> {
  const services =
    opts.services ?? (await buildServices(runtime, { role: "worker", lossless: opts.lossless }));
  return startJobWorker(runtime, services);
}
