import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

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
    const app = await buildApp({
      config: t.config,
      store: t.runtime.store,
      queue: t.runtime.queue,
      database: hanging,
      logger: createLogger("silent"),
    });
    const started = Date.now();
    const res = await app.inject({ url: "/api/v1/health" });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ ok: false, dbLatencyMs: null });
    await app.close();
  });
});
