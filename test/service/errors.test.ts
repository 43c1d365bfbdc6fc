import net from "node:net";
import { gzipSync } from "node:zlib";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ env: { BODY_LIMIT_BYTES: "4096" } });
  key = (await t.createAccount()).key;
});
afterAll(() => t.close());

function expectErrorBody(res: { json(): unknown; headers: Record<string, unknown> }, code: string) {
  const body = res.json() as { error: { code: string; message: string; requestId: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(5);
  expect(body.error.requestId).toBe(res.headers["x-request-id"]);
  expect(res.headers["x-ratelimit-limit"]).toBeDefined();
  return body.error;
}

describe("error bodies", () => {
  it("unknown route → 404 not_found", async () => {
    const res = await t.app.inject({ url: "/api/v1/nope", headers: bearer(key) });
    expect(res.statusCode).toBe(404);
    expectErrorBody(res, "not_found");
  });

  it("known path, wrong method → 405 with Allow", async () => {
    const res = await t.app.inject({ method: "DELETE", url: "/api/v1/projects", headers: bearer(key) });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain("GET");
    expect(res.headers.allow).toContain("POST");
    expectErrorBody(res, "method_not_allowed");
  });

  it("malformed JSON → 400", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "application/json" },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(expectErrorBody(res, "invalid_request").message).toMatch(/JSON/);
  });

  it("wrong content type → 415", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "text/csv" },
      payload: "a,b",
    });
    expect(res.statusCode).toBe(415);
    expectErrorBody(res, "unsupported_media_type");
  });

  it("JSON sent as text/plain → 415, nothing created", async () => {
    const before = (await t.app.inject({ url: "/api/v1/projects", headers: bearer(key) })).json().data.length;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "text/plain; charset=utf-8" },
      payload: JSON.stringify({ name: "sent as text" }),
    });
    expect(res.statusCode).toBe(415);
    expect(expectErrorBody(res, "unsupported_media_type").message).toMatch(/text\/plain.*application\/json/);
    const after = (await t.app.inject({ url: "/api/v1/projects", headers: bearer(key) })).json().data.length;
    expect(after).toBe(before);
  });

  it("a gzip-encoded JSON body → 415 naming the encoding", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "application/json", "content-encoding": "gzip" },
      payload: gzipSync(JSON.stringify({ name: "compressed" })),
    });
    expect(res.statusCode).toBe(415);
    expect(expectErrorBody(res, "unsupported_media_type").message).toMatch(/Content-Encoding "gzip"/);
    const identity = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "application/json", "content-encoding": "identity" },
      payload: JSON.stringify({ name: "plain" }),
    });
    expect(identity.statusCode).toBe(201);
  });

  it("headers over Node's limit → 431 with the error body and an X-Request-Id", async () => {
    const base = await t.listen();
    const { hostname, port } = new URL(base);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
      });
      let text = "";
      socket.on("data", (c) => (text += String(c)));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    const [head = "", body = ""] = raw.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    const requestId = /^X-Request-Id: (req_\S+)$/im.exec(head)?.[1];
    expect(requestId).toBeDefined();
    const error = (JSON.parse(body) as { error: { code: string; message: string; requestId: string } }).error;
    expect(error).toMatchObject({ code: "headers_too_large", requestId });
    expect(error.message).toMatch(/headers are larger/);
  });

  it("multipart body on a JSON route → 415 (multipart is parsed on upload routes only)", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "multipart/form-data; boundary=x" },
      payload: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\np\r\n--x--\r\n',
    });
    expect(res.statusCode).toBe(415);
    expectErrorBody(res, "unsupported_media_type");
  });

  it("oversized JSON body → 413", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: { ...bearer(key), "content-type": "application/json" },
      payload: JSON.stringify({ name: "x", description: "y".repeat(10_000) }),
    });
    expect(res.statusCode).toBe(413);
    expectErrorBody(res, "payload_too_large");
  });

  it("schema violations list JSON Pointer paths", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: bearer(key),
      payload: { name: "", extra: 1 },
    });
    expect(res.statusCode).toBe(400);
    const err = expectErrorBody(res, "invalid_request") as unknown as { details: { path: string }[] };
    expect(err.details.map((d) => d.path).sort()).toEqual(["/extra", "/name"]);
  });

  it("echoes a well-formed X-Request-Id and replaces a malformed one", async () => {
    const good = await t.app.inject({ url: "/api/v1/health", headers: { "x-request-id": "client-123.abc" } });
    expect(good.headers["x-request-id"]).toBe("client-123.abc");
    const bad = await t.app.inject({
      url: "/api/v1/health",
      headers: { "x-request-id": "bad id\u0000<script>" },
    });
    expect(bad.headers["x-request-id"]).toMatch(/^req_[0-9A-Z]{26}$/);
  });

  it("a crash is a 500 internal_error that leaks nothing", async () => {
    const leaky = await startTestApp({ testDb: t.testDb });
    const acct = await leaky.createAccount();
    // Break the database under the app: the route fails with a driver error mentioning SQL.
    await leaky.database.db.execute(sql`alter table projects rename to projects_gone`);
    try {
      const res = await leaky.app.inject({ url: "/api/v1/projects", headers: bearer(acct.key) });
      expect(res.statusCode).toBe(500);
      const err = expectErrorBody(res, "internal_error");
      expect(err.message).toBe("Internal server error");
      expect(res.body).not.toMatch(/projects|select|relation|at /i);
    } finally {
      await leaky.database.db.execute(sql`alter table projects_gone rename to projects`);
      await leaky.close();
    }
  });
});
