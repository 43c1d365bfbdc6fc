import type { Logger } from "pino";
import { type Clock, systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./db/client.ts";
import { createProviders } from "./domain/generation/providers/index.ts";
import { createDiscardOutputs, createStoreOutputs } from "./domain/generation/store-outputs.ts";
import { createRenderJoinPipeline } from "./domain/render-jobs/render-join-job.ts";
import { createRenderPartPipeline } from "./domain/render-jobs/render-part-job.ts";
import { createRenderPipeline } from "./domain/render-jobs/render-pipeline.ts";
import { createSplitRenderStarter } from "./domain/render-jobs/split-render.ts";
import { createTranscribers } from "./domain/transcription/engines/index.ts";
import { createWebhookEvents } from "./domain/webhooks/events.ts";
import { startJobWorker } from "./main/job-worker.ts";
import { configureHttpClient } from "./net/http-client.ts";
import { createEnqueue } from "./queue/enqueue.ts";
import { createFlowQueue } from "./queue/flow.ts";
import { type Queue, startQueue } from "./queue/queue.ts";
import type { BlobStore } from "./storage/blob-store.ts";
import { createBlobStore } from "./storage/create-blob-store.ts";
import { LocalDiskStore } from "./storage/local-disk.ts";
import { loadOrCreateSecret } from "./storage/signed-url.ts";

/** The shared infrastructure of a process: database, blob store and queue. */
export interface Runtime {
  config: Config;
  database: Database;
  store: BlobStore;
  queue: Queue;
  clock: Clock;
  log: Logger;
  close(): Promise<void>;
}

/**
 * Opens what every process role needs, in order: the database (migrated), the blob
 * store (local: URL-signing secret from config or generated into DATA_DIR) and the
 * pg-boss queue on the same database. The composition root of the API and worker roles.
 *
 * @param opts.database - an already open database (tests), else opened from config.
 * @param opts.owner - the role named to another process that finds the PGlite data directory
 *   in use (default "server").
 */
export async function openRuntime(
  config: Config,
  log: Logger,
  opts: { database?: Database; clock?: Clock; owner?: string } = {},
): Promise<Runtime> {
  const database =
    opts.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      owner: opts.owner ?? "server",
    }));
  if (!opts.database) await database.migrate();
  configureHttpClient(config.outbound);
  const store = await createStore(config);
  if (store instanceof LocalDiskStore) await store.sweepTempFiles(3600_000).catch(() => {});
  const queue = await startQueue(database);
  return {
    config,
    database,
    store,
    queue,
    clock: opts.clock ?? systemClock,
    log,
    async close() {
      await queue.stop({ graceful: true, timeout: 10_000 }).catch(() => {});
      if (!opts.database) await database.close();
    },
  };
}

/** The blob store the configuration names. */
export async function createStore(config: Config): Promise<BlobStore> {
  const s = config.storage;
  if (s.driver === "s3") {
    return createBlobStore({
      driver: "s3",
      bucket: s.bucket,
      region: s.region,
      forcePathStyle: s.forcePathStyle,
      ...(s.endpoint ? { endpoint: s.endpoint } : {}),
      ...(s.publicEndpoint ? { publicEndpoint: s.publicEndpoint } : {}),
      ...(s.accessKeyId ? { accessKeyId: s.accessKeyId } : {}),
      ...(s.secretAccessKey ? { secretAccessKey: s.secretAccessKey } : {}),
    });
  }
  return createBlobStore({
    driver: "local",
    dir: s.dir,
    publicBaseUrl: config.publicUrl,
    secret: config.urlSigningSecret ?? (await loadOrCreateSecret(config.dataDir)),
  });
}

/**
 * Makes this process a job worker (in-process beside the API, or the `worker` role) for every
 * job kind, and sweeps `WORK_DIR` of the scratch directories that killed workers left behind.
 * Renders longer than `RENDER_SEGMENT_SEC` are split into parts (see `split-render.ts`).
 * @param opts.lossless - lossless H.264 video in renders and their segments: for exactness
 *   tests only (split and unsplit outputs then decode to identical frames).
 * @returns a function that stops taking jobs and waits for running ones.
 */
export async function startWorker(
  runtime: Runtime,
  opts: { lossless?: boolean } = {},
): Promise<() => Promise<void>> {
  const { config, database, store, queue, clock, log } = runtime;
  const render = {
    db: database.db,
    store,
    workRoot: config.workDir,
    log,
    stallTimeoutMs: config.renderStallTimeoutSec * 1000,
    ...(opts.lossless ? { lossless: true } : {}),
  };
  const split = createSplitRenderStarter({
    db: database.db,
    clock,
    flows: createFlowQueue(queue),
    segmentSec: config.renderSegmentSec,
    keyframeBoundaries: config.renderSegmentKeyframes,
  });
  return startJobWorker({
    boss: queue,
    db: database.db,
    clock,
    store,
    log,
    workRoot: config.workDir,
    concurrency: config.workerConcurrency,
    webhooks: config.webhooks,
    events: createWebhookEvents({
      enqueue: createEnqueue(queue),
      store,
      signedUrlTtlSec: config.signedUrlTtlSec,
      clock,
    }),
    renderPipeline: createRenderPipeline({ ...render, split }),
    resumeSplitRender: split.resume,
    renderPartPipeline: createRenderPartPipeline(render),
    renderJoinPipeline: createRenderJoinPipeline(render),
    generationPipeline: {
      db: database.db,
      store,
      clock,
      providers: createProviders(config.generation, config.workDir),
      workRoot: config.workDir,
      storeOutputs: createStoreOutputs({
        db: database.db,
        store,
        maxBytes: config.uploadMaxBytes,
        enqueue: createEnqueue(queue),
      }),
      discardOutputs: createDiscardOutputs({ db: database.db, store }),
      remote: { maxBytes: 64 * 1024 * 1024, timeoutMs: 60_000 },
    },
    transcriptionPipeline: {
      db: database.db,
      store,
      clock,
      workRoot: config.workDir,
      transcribers: createTranscribers(config.transcription).byProvider,
    },
  });
}
