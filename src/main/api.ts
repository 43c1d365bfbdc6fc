import { existsSync } from "node:fs";
import { buildApp } from "../app.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { bootstrapOwner } from "../domain/accounts/bootstrap-owner.ts";
import { retentionTasks, startRetention } from "../domain/retention/retention.ts";
import { createLogger } from "../logger.ts";
import { installUnhandledRejectionGuard } from "../queue/job-scope.ts";
import { openRuntime } from "../runtime.ts";
import { buildServices } from "../services.ts";
import { firstStartBanner } from "./first-start-banner.ts";
import { startWorker } from "./job-worker.ts";

/**
 * API process entry point: load config, open and migrate the database, create the owner
 * on first start, start the in-process worker (unless WORKER_IN_PROCESS=false) and the
 * hourly retention run (old quota counters, sign-in windows, console sessions, finished
 * webhook deliveries), listen, and shut down gracefully on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  installUnhandledRejectionGuard(logger);
  const runtime = await openRuntime(config, logger);
  const { database } = runtime;

  const owner = await bootstrapOwner(database.db, { publicUrl: config.publicUrl });
  if (owner) {
    // Printed to stdout once, not logged: logs must never carry keys.
    process.stdout.write(
      firstStartBanner({
        secret: owner.secret,
        setupUrl: owner.setupUrl,
        email: owner.user.email,
        publicUrl: config.publicUrl,
        embedded: database.driver === "pglite",
      }),
    );
  }

  // One set of services for the API and, when it runs in this process, the worker.
  const both = config.workerInProcess ? await buildServices(runtime, { role: "both" }) : null;
  const services = both ?? (await buildServices(runtime, { role: "api" }));
  const app = await buildApp({ runtime, services });
  const stopWorker = both ? await startWorker(runtime, { services: both }) : null;
  const stopPruning = startRetention({
    tasks: retentionTasks(database.db, runtime.clock, {
      quotaKeepDays: config.quotaKeepDays,
      webhookDeliveryRetentionDays: config.webhooks.deliveryRetentionDays,
    }),
    log: logger,
  });
  await app.listen({ port: config.port, host: config.host });
  logger.info(
    {
      driver: database.driver,
      storage: runtime.store.driver,
      worker: Boolean(stopWorker),
      docs: `${config.publicUrl}/docs`,
    },
    "cutroom api ready",
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      stopPruning();
      await app.close();
      await stopWorker?.();
      // Closes the queue and the database it opened (closing the pool twice throws).
      await runtime.close();
    } finally {
      process.exit(0);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`cutroom: failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
