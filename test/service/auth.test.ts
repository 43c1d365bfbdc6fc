import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/client.ts";
import { revokeApiKey } from "../../src/db/repositories/api-keys.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("authentication and scopes", () => {
  it("missing Authorization → 401 Missing API key with the error body and quota headers", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/me" });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: "unauthorized", message: "Missing API key" });
    expect(res.json().error.requestId).toBe(res.headers["x-request-id"]);
    expect(res.headers["x-ratelimit-limit"]).toBe("1000");
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it.each([
    ["a non-bearer scheme", "Basic dXNlcjpwYXNz"],
    ["another scheme", `Token crk_${"a".repeat(40)}`],
    ["a bare key", `crk_${"a".repeat(40)}`],
    ["Bearer with two tokens", "Bearer a b"],
    ["Bearer alone", "Bearer"],
  ])("a malformed header (%s) → 401 Missing API key", async (_label, header) => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: { authorization: header } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: "unauthorized", message: "Missing API key" });
  });

  it.each([
    ["a malformed key", "Bearer not-a-key"],
    ["an unknown well-formed key", `Bearer crk_${"a".repeat(40)}`],
  ])("%s → 401 Invalid or revoked API key", async (_label, header) => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: { authorization: header } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: "unauthorized", message: "Invalid or revoked API key" });
  });

  it("a valid key returns the owner, key details without the secret, and the quota", async () => {
    const acct = await t.createAccount({ plan: "upgraded" });
    const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(acct.key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({
      id: acct.userId,
      plan: "upgraded",
      settings: { imageModel: "fal-ai/flux-pro/v1.1" },
    });
    expect(body.apiKey).toMatchObject({ id: acct.keyId, scopes: ["read", "write"], revokedAt: null });
    expect(body.apiKey.prefix).toBe(acct.key.slice(0, 10));
    expect(JSON.stringify(body)).not.toContain(acct.key);
    expect(body.rateLimit).toMatchObject({ limit: 10000, remaining: 9999 });
  });

  it("keys are stored only as a SHA-256 digest", async () => {
    const acct = await t.createAccount();
    const rows = rowsOf<{ hash: string; prefix: string }>(
      await t.database.db.execute(sql`select hash, prefix from api_keys where id = ${acct.keyId}`),
    );
    expect(rows[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify(rowsOf(await t.database.db.execute(sql`select * from api_keys`)));
    expect(dump).not.toContain(acct.key);
    expect(dump).not.toContain(acct.key.slice(10));
  });

  it("revocation takes effect on the very next request, on every app instance sharing the database", async () => {
    const acct = await t.createAccount();
    const other = await startTestApp({ testDb: t.testDb });
    try {
      for (const app of [t.app, other.app]) {
        expect((await app.inject({ url: "/api/v1/me", headers: bearer(acct.key) })).statusCode).toBe(200);
      }
      await revokeApiKey(t.database.db, acct.keyId, new Date());
      for (const app of [t.app, other.app]) {
        const res = await app.inject({ url: "/api/v1/me", headers: bearer(acct.key) });
        expect(res.statusCode).toBe(401);
        expect(res.json().error.message).toBe("Invalid or revoked API key");
      }
    } finally {
      await other.close();
    }
  });
});

describe("scopes", () => {
  it("a read-only key gets 403 insufficient_scope on every write route, and reads still work", async () => {
    const reader = await t.createAccount({ scopes: ["read"] });
    const writeRoutes = t.app.printRoutes({ commonPrefix: false });
    expect(writeRoutes).toContain("projects");
    const { WRITE_ROUTES } = await import("../helpers/write-routes.ts");
    // Every route registered with config.scope "write" must be in the table, and vice versa.
    expect(new Set(WRITE_ROUTES.map((r) => `${r.method} ${r.url}`))).toEqual(new Set(t.app.writeRoutes()));
    for (const r of WRITE_ROUTES) {
      const url = r.url.replace(/:(\w+)/g, "nonexistent_$1");
      const res = await t.app.inject({ method: r.method, url, headers: bearer(reader.key), payload: {} });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.json().error.code).toBe("insufficient_scope");
    }
    expect((await t.app.inject({ url: "/api/v1/projects", headers: bearer(reader.key) })).statusCode).toBe(
      200,
    );
  });
});
