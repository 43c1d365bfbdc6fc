import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.ts";
import { pruneQuotaCounters } from "../../src/domain/quota/prune-counters.ts";
import { bearer, fakeClock, startTestApp, type TestApp } from "../helpers/app.ts";

const clock = fakeClock("2026-11-21T23:59:58.000Z");
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock, env: { ANON_DAILY_LIMIT: "3" } });
});
afterAll(() => t.close());

async function setUsed(userId: string, day: string, count: number) {
  await t.database.db.execute(sql`
    insert into quota_counters (subject, day, count) values (${userId}, ${day}::date, ${count})
    on conflict (subject, day) do update set count = excluded.count`);
}

describe("daily quota", () => {
  it("every response carries the headers, errors included, and every call counts once", async () => {
    clock.set("2026-11-21T12:00:00.000Z");
    const a = await t.createAccount();
    const ok = await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    expect(ok.headers["x-ratelimit-limit"]).toBe("1000");
    expect(ok.headers["x-ratelimit-remaining"]).toBe("999");
    expect(ok.headers["x-ratelimit-reset"]).toBe("2026-11-22T00:00:00.000Z");
    const notFound = await t.app.inject({ url: "/api/v1/projects/prj_nope", headers: bearer(a.key) });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers["x-ratelimit-remaining"]).toBe("998");
    const unknown = await t.app.inject({ url: "/api/v1/nothing-here", headers: bearer(a.key) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["x-ratelimit-remaining"]).toBe("997");
  });

  it("all keys of an account share one counter", async () => {
    clock.set("2026-11-21T12:00:00.000Z");
    const a = await t.createAccount();
    const second = await t.addKey(a.userId, ["read"]);
    await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    const res = await t.app.inject({ url: "/api/v1/me", headers: bearer(second.key) });
    expect(res.headers["x-ratelimit-remaining"]).toBe("998");
  });

  it("counts exactly under 200 concurrent requests: exactly the remaining calls succeed, the rest get 429", async () => {
    clock.set("2026-11-21T12:00:00.000Z");
    const a = await t.createAccount();
    await setUsed(a.userId, "2026-11-21", 1000 - 37);
    const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => fetch(`${address}/api/v1/me`, { headers: bearer(a.key) })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(37);
    expect(statuses.filter((s) => s === 429)).toHaveLength(163);
    const refused = results.find((r) => r.status === 429);
    expect(refused?.headers.get("retry-after")).toBe(String(12 * 3600));
    expect(refused?.headers.get("x-ratelimit-remaining")).toBe("0");
    const body = (await refused?.json()) as { error: { code: string } };
    expect(body.error.code).toBe("rate_limited");
    // Refused requests are not counted: the counter stopped at the limit.
    const row = await t.database.db.execute(
      sql`select count from quota_counters where subject = ${a.userId}`,
    );
    expect(Number((row as unknown as { rows: { count: number }[] }).rows[0]?.count)).toBe(1000);
  });

  it("stays exact across two app instances with their own connection pools (PostgreSQL)", async (ctx) => {
    if (!t.testDb.url) return ctx.skip(); // PGlite is one process: nothing to share.
    clock.set("2026-11-21T12:00:00.000Z");
    const a = await t.createAccount();
    const second = await t.addKey(a.userId);
    await setUsed(a.userId, "2026-11-21", 1000 - 61);
    const otherDb = await openDatabase({ databaseUrl: t.testDb.url, dataDir: "unused", poolSize: 10 });
    const other = await startTestApp({
      clock,
      testDb: { database: otherDb, url: t.testDb.url, dispose: () => otherDb.close() },
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 ? t.app : other.app).inject({
            url: "/api/v1/me",
            headers: bearer(i % 3 ? a.key : second.key),
          }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(61);
      expect(results.filter((r) => r.statusCode === 429)).toHaveLength(139);
    } finally {
      await other.close();
      await otherDb.close();
    }
  });

  it("resets at midnight UTC", async () => {
    clock.set("2026-11-21T23:59:59.000Z");
    const a = await t.createAccount();
    await setUsed(a.userId, "2026-11-21", 1000);
    const before = await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    expect(before.statusCode).toBe(429);
    expect(before.headers["retry-after"]).toBe("1");
    clock.set("2026-11-22T00:00:00.000Z");
    const after = await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    expect(after.statusCode).toBe(200);
    expect(after.headers["x-ratelimit-remaining"]).toBe("999");
    expect(after.headers["x-ratelimit-reset"]).toBe("2026-11-23T00:00:00.000Z");
  });

  it("upgraded accounts get 10,000 and admin accounts are unlimited", async () => {
    clock.set("2026-11-21T12:00:00.000Z");
    const up = await t.createAccount({ plan: "upgraded" });
    await setUsed(up.userId, "2026-11-21", 5000);
    const u = await t.app.inject({ url: "/api/v1/me", headers: bearer(up.key) });
    expect(u.headers["x-ratelimit-limit"]).toBe("10000");
    expect(u.headers["x-ratelimit-remaining"]).toBe("4999");
    const admin = await t.createAccount({ plan: "admin" });
    await setUsed(admin.userId, "2026-11-21", 50_000);
    const res = await t.app.inject({ url: "/api/v1/me", headers: bearer(admin.key) });
    expect(res.statusCode).toBe(200);
    // No quota applies: the headers say 2³¹−1 calls (integers a client can compare), and the
    // account shows its limit as null (unlimited).
    expect(res.headers["x-ratelimit-limit"]).toBe("2147483647");
    expect(res.headers["x-ratelimit-remaining"]).toBe("2147483647");
    expect(res.headers["x-ratelimit-reset"]).toBe("2026-11-22T00:00:00.000Z");
    expect(res.json().rateLimit).toMatchObject({ limit: null, remaining: null });
  });

  it("console pages and refusals before routing carry the quota headers too, as integers", async () => {
    clock.set("2026-11-21T12:30:00.000Z");
    for (const url of ["/console", "/console/", `/api/v1/projects/${"x".repeat(150)}`]) {
      const res = await t.app.inject({ url });
      expect(res.headers["x-ratelimit-limit"], url).toMatch(/^\d+$/);
      expect(res.headers["x-ratelimit-remaining"], url).toMatch(/^\d+$/);
      expect(res.headers["x-ratelimit-reset"], url).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    }
  });

  it("unauthenticated requests use a per-IP anonymous quota; health is never refused", async () => {
    clock.set("2026-11-21T13:00:00.000Z");
    const ip = "203.0.113.9";
    const call = (url: string) => t.app.inject({ url, remoteAddress: ip });
    expect((await call("/api/v1/openapi.json")).headers["x-ratelimit-remaining"]).toBe("2");
    expect((await call("/api/v1/me")).statusCode).toBe(401);
    const third = await call("/api/v1/openapi.json");
    expect(third.statusCode).toBe(200);
    expect(third.headers["x-ratelimit-remaining"]).toBe("0");
    const refused = await call("/api/v1/openapi.json");
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe("rate_limited");
    const health = await call("/api/v1/health");
    expect(health.statusCode).toBe(200);
    expect(health.headers["x-ratelimit-remaining"]).toBe("0");
    // Another IP has its own counter.
    expect(
      (await t.app.inject({ url: "/api/v1/openapi.json", remoteAddress: "203.0.113.10" })).statusCode,
    ).toBe(200);
  });

  // Last: it deletes every other test's old counters.
  it("prunes counters older than QUOTA_KEEP_DAYS; today's keeps counting", async () => {
    clock.set("2026-11-30T08:00:00.000Z");
    const a = await t.createAccount();
    for (const day of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-29"])
      await setUsed(a.userId, day, 5);
    await setUsed(a.userId, "2026-11-30", 10);
    const days = async () => {
      const r = await t.database.db.execute(
        sql`select to_char(day, 'YYYY-MM-DD') as day from quota_counters where subject = ${a.userId} order by day`,
      );
      return (r as unknown as { rows: { day: string }[] }).rows.map((x) => x.day);
    };
    // Keep 7 days: 2026-11-24 … 2026-11-30.
    const first = await pruneQuotaCounters(t.database.db, clock, 7);
    expect(first.keptFrom).toBe("2026-11-24");
    expect(first.deleted).toBeGreaterThanOrEqual(2);
    expect(await days()).toEqual(["2026-11-24", "2026-11-29", "2026-11-30"]);
    // Idempotent.
    expect((await pruneQuotaCounters(t.database.db, clock, 7)).deleted).toBe(0);
    // Keep 1 day: only today's counter, which still counts on.
    expect((await pruneQuotaCounters(t.database.db, clock, 1)).keptFrom).toBe("2026-11-30");
    expect(await days()).toEqual(["2026-11-30"]);
    const res = await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    expect(res.headers["x-ratelimit-remaining"]).toBe(String(1000 - 11));
  });
});
