import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { PgBoss } from "pg-boss";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.ts";
import type { App } from "../../src/http/types.ts";
import { buildWorkerServer } from "../../src/http/worker-server.ts";
import { createLogger } from "../../src/logger.ts";
import { JOBS } from "../../src/queue/catalog.ts";
import { registerQueueMetrics } from "../../src/queue/queue-metrics.ts";
import { createJobQueues, defineJob } from "../../src/queue/registry.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas, waitFor } from "../renders/helpers.ts";
import { startReceiver } from "../webhooks/receiver.ts";

// A worker (in-process, beside a test API that sends it jobs) with its own health and metrics server.
let t: TestApp;
let worker: App;
let workerBase: string;
let apiBase: string;
let stopping = false;
let rx: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({ worker: true, env: { METRICS_ENABLED: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
  worker = buildWorkerServer({
    database: t.database,
    queue: t.runtime.queue,
    logger: createLogger("silent"),
    stopping: () => stopping,
  });
  workerBase = await worker.listen({ port: 0, host: "127.0.0.1" });
  apiBase = await t.listen();
});
afterAll(async () => {
  await worker?.close();
  await t?.close();
  await rx?.close();
});

/** The value of one sample line of a Prometheus text exposition, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

describe("worker health and metrics", () => {
  it("counts a render on the worker's /metrics and reports every job kind's queue", async () => {
    const before = await scrape(workerBase);
    // Every mp4 render is made as segments by default: the render job hands a one-second render
    // over to a video part, the audio part and the join.
    const handedOff = 'cutroom_job_duration_seconds_count{kind="render",outcome="handed_off"}';
    const joined = 'cutroom_job_duration_seconds_count{kind="render_join",outcome="succeeded"}';
    const parts = 'cutroom_job_duration_seconds_count{kind="render_part",outcome="succeeded"}';
    const rendersBefore = sample(before, handedOff) ?? 0;
    const joinsBefore = sample(before, joined) ?? 0;
    const partsBefore = sample(before, parts) ?? 0;
    for (const def of Object.values(JOBS)) {
      expect(sample(before, `cutroom_queue_depth{kind="${def.name}"}`)).toBe(0);
      expect(sample(before, `cutroom_queue_oldest_waiting_seconds{kind="${def.name}"}`)).toBe(0);
    }

    const api = client(apiBase, (await t.createAccount()).key);
    const endpoint = await api.json("POST", "/api/v1/webhooks", {
      url: rx.url("/hook"),
      events: ["render.succeeded"],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const started = await api.startRender({
      composition: {
        name: "metrics",
        canvas: tinyCanvas(25),
        tracks: [
          { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#3366ff" } }] },
        ],
      },
      output: { format: "mp4", quality: "draft" },
    });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 60_000 })).at(-1);
    expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");

    // The job's duration is recorded once its handler returns, just after the render's final
    // write, and the job stops being active after that: wait for the scrape that shows both.
    const after = await waitFor(async () => {
      const text = await scrape(workerBase);
      return sample(text, handedOff) === rendersBefore + 1 &&
        sample(text, parts) === partsBefore + 2 &&
        sample(text, joined) === joinsBefore + 1 &&
        sample(text, 'cutroom_queue_active{kind="render_join"}') === 0
        ? text
        : null;
    }, 30_000);
    expect(
      sample(after, 'cutroom_render_seconds_per_timeline_second_count{format="mp4"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'cutroom_render_seconds_per_timeline_second_sum{format="mp4"}')).toBeGreaterThan(0);
    expect(after).toContain("process_cpu_seconds_total");

    // A generation (offline placeholder, run by the worker) is counted by outcome.
    const generated = await api.json("POST", "/api/v1/generate/image", { prompt: "a boat", seed: 1 });
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    await waitFor(async () => {
      const text = await scrape(workerBase);
      return (
        (sample(text, 'cutroom_generations_total{outcome="succeeded",code=""}') ?? 0) >= 1 &&
        (sample(text, 'cutroom_job_duration_seconds_count{kind="generation",outcome="succeeded"}') ?? 0) >= 1
      );
    }, 30_000);

    // The render's webhook is delivered by the worker and counted by outcome.
    await waitFor(async () => {
      const text = await scrape(workerBase);
      return (
        sample(text, 'cutroom_webhook_tries_total{outcome="succeeded"}') === 1 &&
        sample(text, 'cutroom_job_duration_seconds_count{kind="webhook_delivery",outcome="succeeded"}') === 1
      );
    }, 30_000);
    expect(rx.at("/hook")).toHaveLength(1);

    // The API role exports the same process and queue metrics, plus its request durations.
    const apiMetrics = await (await fetch(`${apiBase}/metrics`)).text();
    expect(sample(apiMetrics, handedOff)).toBe(rendersBefore + 1);
    expect(sample(apiMetrics, joined)).toBe(joinsBefore + 1);
    expect(apiMetrics).toContain('cutroom_queue_depth{kind="render"}');
    expect(apiMetrics).toContain('http_request_duration_seconds_count{method="POST",route="/api/render"');
  });

  it("counts due, unstarted jobs per kind and the age of the oldest, not delayed ones", async () => {
    // A kind no process works: its jobs stay where they were sent.
    const defs = {
      probe: defineJob<{ n: number }>("metrics_probe", { retryLimit: 0, retryDelay: 1, deadLetter: false }),
    };
    await createJobQueues(t.runtime.queue, defs);
    const registry = new Registry();
    registerQueueMetrics(registry, t.database.sql, defs);
    const read = async () => {
      const text = await registry.metrics();
      return {
        depth: sample(text, 'cutroom_queue_depth{kind="metrics_probe"}'),
        oldest: sample(text, 'cutroom_queue_oldest_waiting_seconds{kind="metrics_probe"}'),
      };
    };
    expect(await read()).toEqual({ depth: 0, oldest: 0 });
    await t.runtime.queue.send("metrics_probe", { n: 1 }, { startAfter: 3600 });
    expect(await read()).toEqual({ depth: 0, oldest: 0 });
    await t.runtime.queue.send("metrics_probe", { n: 2 });
    await t.runtime.queue.send("metrics_probe", { n: 3 });
    const { depth, oldest } = await read();
    expect(depth).toBe(2);
    expect(oldest).toBeGreaterThan(0);
  });

  it("is ready while the database and the queue answer, and unready while shutting down", async () => {
    const ok = await fetch(`${workerBase}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, checks: { database: "ok", queue: "ok" } });
    stopping = true;
    try {
      const res = await fetch(`${workerBase}/healthz`);
      expect(res.status).toBe(503);
    } finally {
      stopping = false;
    }
  });

  it("is unready, naming both checks, when its database is unreachable", async () => {
    // A port nothing listens on: connections are refused.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const dataDir = await mkdtemp(path.join(tmpdir(), "cutroom-unreachable-"));
    const database = await openDatabase({ databaseUrl: url, dataDir, poolSize: 1 });
    const queue = new PgBoss({ connectionString: url, max: 1 });
    queue.on("error", () => {});
    const server = buildWorkerServer({ database, queue, logger: createLogger("silent") });
    try {
      const res = await server.inject({ method: "GET", url: "/healthz" });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ ok: false, checks: { database: "unreachable", queue: "unreachable" } });
      // Metrics still answer: the queue gauges have no samples instead of failing the scrape.
      const metrics = await server.inject({ method: "GET", url: "/metrics" });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).not.toContain("cutroom_queue_depth{");
    } finally {
      await server.close();
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
