import { collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { App } from "../types.ts";

/**
 * `GET /metrics` in the Prometheus text format (prom-client): process metrics (CPU, memory,
 * event-loop lag, GC) and `http_request_duration_seconds` by method, route pattern and
 * status. Registered only with METRICS_ENABLED=true; needs no key (scrape it on a private
 * network). Route patterns, not raw URLs, keep the label set bounded.
 */
export function registerMetrics(app: App): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration in seconds",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
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
  app.get("/metrics", { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
