import { Histogram, Registry } from "prom-client";
import type { SqlExecutor } from "../../db/client.ts";
import { processRegistry } from "../../metrics/process-metrics.ts";
import { JOBS } from "../../queue/catalog.ts";
import { registerQueueMetrics } from "../../queue/queue-metrics.ts";
import type { App, PublicApp } from "../types.ts";

/**
 * `GET /metrics` in the Prometheus text format (prom-client): the process's metrics (CPU,
 * memory, event-loop lag, GC, job durations and outcomes, render speed, generation, webhook
 * and ffmpeg outcomes; see `process-metrics.ts`), the queue gauges of every job kind read at
 * scrape time, and this server's `http_request_duration_seconds` by method, route pattern and
 * status. Needs no key (scrape it on a private network). Route patterns, not raw URLs, keep the
 * label set bounded. The API registers it with METRICS_ENABLED=true; a worker on its own port.
 *
 * @param deps.sql - a connection to the queue's database, for the queue gauges.
 * @returns what registers `GET /metrics` on the instance it is given: the API's public scope, or
 *   the worker's server itself (which has no authentication).
 */
export function registerMetrics(app: App, deps: { sql: SqlExecutor }): (routes: PublicApp) => void {
  const own = new Registry();
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration in seconds",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [own],
  });
  registerQueueMetrics(own, deps.sql, JOBS);
  const registry = Registry.merge([processRegistry, own]);
  app.addHook("onResponse", async (request, reply) => {
    duration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unknown",
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  return (routes) => {
    routes.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  };
}
