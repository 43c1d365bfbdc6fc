import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import type { Logger } from "pino";
import type { Database } from "../db/client.ts";
import { probeWithin } from "../domain/service/health.ts";
import type { Queue } from "../queue/queue.ts";
import { registerMetrics } from "./plugins/metrics.ts";
import type { App, PublicApp } from "./types.ts";

/** What `/healthz` answers: every check by name, `ok` when all passed. */
export interface WorkerHealth {
  ok: boolean;
  checks: { database: string; queue: string };
}

/** Runs one readiness check: `"ok"`, or why it failed. */
async function check(probe: () => Promise<unknown>): Promise<string> {
  try {
    await probeWithin(probe);
    return "ok";
  } catch (err) {
    return (err as Error).message === "timeout" ? "no answer within 2 s" : "unreachable";
  }
}

/**
 * The worker role's own small HTTP server: `GET /healthz` (200 while the worker can reach its
 * database and pg-boss's queue tables, and is not shutting down; else 503 naming the failed
 * check) and `GET /metrics` (the same Prometheus metrics as the API's: process, jobs, queue).
 * Neither needs a key: listen on a private network. Never listens itself.
 *
 * @param deps.stopping - true once the worker began shutting down (unready from then on).
 */
export function buildWorkerServer(deps: {
  database: Database;
  queue: Queue;
  logger: Logger;
  stopping?: () => boolean;
}): App {
  // Probes and scrapes come every few seconds: only warnings and errors are logged.
  const app = Fastify({
    loggerInstance: deps.logger.child({ role: "worker-http" }, { level: "warn" }),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  // This server has no authentication: its routes are public as registered.
  registerMetrics(app, { sql: deps.database.sql })(app as unknown as PublicApp);
  app.get("/healthz", async (_request, reply): Promise<WorkerHealth> => {
    const [database, queue] = await Promise.all([
      check(() => deps.database.ping()),
      check(async () => {
        if (!(await deps.queue.isInstalled())) throw new Error("pg-boss is not installed");
      }),
    ]);
    const ok = database === "ok" && queue === "ok" && !deps.stopping?.();
    reply.code(ok ? 200 : 503);
    return { ok, checks: { database, queue } };
  });
  return app;
}
