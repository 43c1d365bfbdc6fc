import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";
import { buildServices } from "../../src/services.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("GET /metrics", () => {
  it("is absent by default and serves Prometheus text when enabled", async () => {
    expect((await t.app.inject({ url: "/metrics" })).statusCode).toBe(401);
    const m = await startTestApp({ testDb: t.testDb, env: { METRICS_ENABLED: "true" } });
    try {
      await m.app.inject({ url: "/api/v1/health" });
      const res = await m.app.inject({ url: "/metrics" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/text\/plain/);
      expect(res.body).toMatch(
        /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/health",status="200"\} 1/,
      );
      expect(res.body).toContain("process_cpu_user_seconds_total");
    } finally {
      await m.close();
    }
  });
});

describe("GET /api/v1/health", () => {
  it("needs no key and reports the database round trip", async () => {
    const res = await t.app.inject({ url: "/api/v1/health" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.ok).toBe(true);
    expect(typeof body.dbLatencyMs).toBe("number");
    expect(body.dbLatencyMs).toBeGreaterThanOrEqual(0);
  });

  it("answers 503 with ok false when the database does not answer within 2 s", async () => {
    const hanging = { ...t.database, ping: () => new Promise<number>(() => {}) };
    const runtime = { ...t.runtime, database: hanging, log: createLogger("silent") };
    const app = await buildApp({ runtime, services: await buildServices(runtime, { role: "api" }) });
    // The ping never resolves: only the 2 s timeout can produce this answer.
    const res = await app.inject({ url: "/api/v1/health" });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ ok: false, dbLatencyMs: null });
    await app.close();
  });
});
