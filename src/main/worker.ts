import { existsSync } from "node:fs";
import { ConfigError, loadConfig } from "../config.ts";
import { createLogger } from "../logger.ts";
import { installUnhandledRejectionGuard } from "../queue/job-scope.ts";
import { openRuntime } from "../runtime.ts";
import { buildServices } from "../services.ts";
import { startWorker } from "./job-worker.ts";

/**
 * Worker process entry point (scale-out role): takes jobs from the shared queue and serves
 * `/healthz` and `/metrics` on HOST:WORKER_PORT (unless WORKER_PORT=0: then the HTTP server's
 * modules, Fastify and the metrics plugin, are not even loaded, ≈5 MiB of heap). SIGTERM makes it
 * unready, stops taking jobs and lets running ones finish (or be retried elsewhere).
 */
async function main(): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  installUnhandledRejectionGuard(logger);
  const runtime = await openRuntime(config, logger, { owner: "worker" });
  let stopping = false;
  const server =
    config.workerPort === 0
      ? null
      : (await import("../http/worker-server.ts")).buildWorkerServer({
          database: runtime.database,
          queue: runtime.queue,
          logger,
          stopping: () => stopping,
        });
  // Listening first: a port in use stops the worker before it takes any job.
  await server?.listen({ port: config.workerPort, host: config.host });
  const stop = await startWorker(runtime, { services: await buildServices(runtime, { role: "worker" }) });
  logger.info(
    {
      concurrency: config.workerConcurrency,
      driver: runtime.database.driver,
      ...(server ? { health: `http://${config.host}:${config.workerPort}/healthz` } : {}),
    },
    "cutroom worker ready",
  );
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "worker shutting down: finishing running jobs");
    const force = setTimeout(() => process.exit(1), 60_000);
    force.unref();
    await stop();
    await server?.close();
    // Closes the queue and the database it opened (closing the pool twice throws).
    await runtime.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `cutroom worker: failed to start: ${(err as Error).stack}\n`,
  );
  process.exit(err instanceof ConfigError ? 2 : 1);
});
