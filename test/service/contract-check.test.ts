// The test harness checks every answer against the OpenAPI document (test/helpers/contract.ts):
// these tests show that the check passes documented answers and names each kind of mismatch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { createContractChecker, openApiPath } from "../helpers/contract.ts";

let t: TestApp;
let check: ReturnType<typeof createContractChecker>["check"];
let checkEvents: ReturnType<typeof createContractChecker>["checkEvents"];
beforeAll(async () => {
  t = await startTestApp();
  ({ check, checkEvents } = createContractChecker(t.app.swagger() as unknown as Record<string, unknown>));
});
afterAll(() => t.close());

const project = {
  id: "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
  name: "Launch",
  description: "",
  createdAt: "2026-11-25T14:29:28.601Z",
  updatedAt: "2026-11-25T14:29:28.601Z",
};
const answer = (over: Partial<Parameters<typeof check>[0]>) =>
  check({
    method: "GET",
    route: "/api/v1/projects/:projectId",
    status: 200,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify(project),
    ...over,
  });

describe("the harness's OpenAPI check", () => {
  it("maps Fastify routes to OpenAPI paths", () => {
    expect(openApiPath("/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver")).toBe(
      "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    );
  });

  it("passes documented answers: a JSON body on its schema, an error body, a file by type only", () => {
    expect(answer({})).toBeNull();
    const error = { error: { code: "not_found", message: "No project", requestId: "req_1" } };
    expect(answer({ status: 404, body: JSON.stringify(error) })).toBeNull();
    expect(
      answer({ route: "/api/compositions/:id/frame", contentType: "image/jpeg", body: undefined }),
    ).toBeNull();
  });

  it("names an undocumented status, an undocumented content type and a body off its schema", () => {
    expect(answer({ status: 418 })).toMatch(
      /^GET \/api\/v1\/projects\/\{projectId\} → 418: status 418 is not documented \(documented: 200, 400, 401, 403, 404, 429, 500\)$/,
    );
    expect(answer({ contentType: "text/html" })).toMatch(/Content-Type text\/html is not documented/);
    expect(answer({ body: JSON.stringify({ ...project, createdAt: "yesterday" }) })).toMatch(
      /the body does not match the documented schema: \/createdAt must match format "date-time"/,
    );
    expect(answer({ body: JSON.stringify({ name: "x" }) })).toMatch(/must have required property 'id'/);
    expect(answer({ method: "PUT" })).toMatch(/the operation is not in the OpenAPI document/);
  });

  it("checks an event stream's events: their wire fields, and each data against its event type's schema", () => {
    const events = (data: object, event = "text") => [{ id: "1", event, data: JSON.stringify(data) }];
    const args = ["POST", "/api/assistant/orchestrator", 200] as const;
    expect(checkEvents(...args, events({ type: "text", messageId: "m1", delta: "Hi" }))).toBeNull();
    expect(checkEvents(...args, events({ type: "text", messageId: "m1" }))).toMatch(
      /the data of a `text` event does not match its schema: \/ must have required property 'delta'/,
    );
    expect(checkEvents(...args, events({ type: "text" }, "surprise"))).toMatch(
      /does not match the documented event schema/,
    );
    expect(checkEvents(...args, [{ id: "x", event: "text", data: "{}" }])).toMatch(/documented event schema/);
  });

  it("records nothing for real answers the document describes", async () => {
    const { key } = await t.createAccount();
    const res = await t.app.inject({ url: "/api/v1/projects", headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const missing = await t.app.inject({
      url: "/api/v1/projects/prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
      headers: bearer(key),
    });
    expect(missing.statusCode).toBe(404);
    expect(t.contractMismatches).toEqual([]);
  });

  it("documents the 400 of an over-long path id on every operation with a path parameter", async () => {
    // Refused while routing, before any hook: found by the OpenAPI fuzz test (test/service/fuzz.test.ts).
    const { key } = await t.createAccount();
    const long = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/auth/sessions/${"x".repeat(150)}`,
      headers: bearer(key),
    });
    expect(long.statusCode, long.body).toBe(400);
    expect(long.headers["x-ratelimit-limit"]).toMatch(/^\d+$/);
    const doc = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { responses: object }>>;
    };
    const without = Object.entries(doc.paths).flatMap(([path, item]) =>
      path.includes("{")
        ? Object.entries(item)
            .filter(([, op]) => !("400" in op.responses))
            .map(([method]) => `${method} ${path}`)
        : [],
    );
    expect(without).toEqual([]);
    expect(
      answer({ route: "/api/v1/auth/sessions/:sessionId", method: "DELETE", status: 400, body: long.body }),
    ).toBeNull();
  });

  it("documents 413 and 415 on every operation whose request may carry a body, even where it expects none", async () => {
    // Found by the OpenAPI fuzz test: a DELETE or a bodiless POST with an XML body got an undocumented 415.
    const { key } = await t.createAccount();
    const xml = await t.app.inject({
      method: "DELETE",
      url: "/api/v1/webhooks/whk_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
      headers: { ...bearer(key), "content-type": "application/xml" },
      payload: "<a/>",
    });
    expect(xml.statusCode).toBe(415);
    const big = await t.app.inject({
      method: "POST",
      url: "/api/v1/webhooks/whk_01JD3Q5V0M8YB6Y2J4T6Z9KX1C/rotate-secret",
      headers: { ...bearer(key), "content-type": "application/json" },
      payload: JSON.stringify({ a: "x".repeat(3_000_000) }),
    });
    expect(big.statusCode).toBe(413);
    expect(t.contractMismatches).toEqual([]);
    const doc = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { responses: object }>>;
    };
    const without = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method, op]) => method !== "get" && (!("413" in op.responses) || !("415" in op.responses)))
        .map(([method]) => `${method} ${path}`),
    );
    expect(without).toEqual([]);
  });

  it("documents the 403 of export?assets=paths for a read-only key", async () => {
    expect(
      answer({
        route: "/api/compositions/:id/export",
        status: 403,
        body: JSON.stringify({ error: { code: "insufficient_scope", message: "no", requestId: "req_1" } }),
      }),
    ).toBeNull();
  });
});
