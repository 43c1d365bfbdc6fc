import type { Logger } from "pino";
import { type Clock, systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./db/client.ts";
import { configureHttpClient } from "./net/http-client.ts";
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

/** What services are built over: a {@link Runtime} without its `close`. */
export type RuntimeParts = Omit<Runtime, "close">;

/**
 * Opens what every process role needs, in order: the database (migrated), the blob
 * store (local: URL-signing secret from config or generated into DATA_DIR) and the
 * pg-boss queue on the same database. `buildServices` then builds the services of a role over it.
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
  const sweepFailed = (err: unknown) => log.warn({ err }, "sweeping the blob store's temp files failed");
  const stopSweeps =
    store instanceof LocalDiskStore ? store.sweepTempFilesEvery(600_000, 3600_000, sweepFailed) : () => {};
  const queue = await startQueue(database);
  return {
    config,
    database,
    store,
    queue,
    clock: opts.clock ?? systemClock,
    log,
    async close() {
      stopSweeps();
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
