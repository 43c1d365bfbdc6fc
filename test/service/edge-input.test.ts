import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggableError } from "../../src/http/plugins/error-handler.ts";
import { findBadStrings } from "../../src/http/plugins/string-guard.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ key } = await t.createAccount({ scopes: ["read", "write"] }));
});
afterAll(() => t?.close());

const composition = (text: unknown = "Hello", family: unknown = "Sans", start: unknown = 0) => ({
  name: "Teaser",
  canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start, duration: 2, asset: { type: "text", text, style: { family, size: 32, color: "#ffffff" } } },
      ],
    },
  ],
});

async function call(method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: method as "GET",
    url,
    headers: {
      ...bearer(key),
      ...(payload !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(payload !== undefined
      ? { payload: typeof payload === "string" ? payload : JSON.stringify(payload) }
      : {}),
  });
  return { status: res.statusCode, body: res.json() as ErrorJson, headers: res.headers };
}

interface ErrorJson {
  error: { code: string; message: string; requestId: string; details?: { path: string; message: string }[] };
}

function expectErrorBody(
  r: { status: number; body: ErrorJson; headers: Record<string, unknown> },
  status: number,
) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  expect(r.body.error.requestId).toBe(r.headers["x-request-id"]);
}

describe("NUL characters and unpaired surrogates", () => {
  it("refuses them in body fields with 400 naming the field", async () => {
    const r = await call("POST", "/api/v1/projects", '{"name":"a\\u0000b"}');
    expectErrorBody(r, 400);
    expect(r.body.error.details).toEqual([{ path: "/name", message: expect.stringMatching(/NUL/) }]);
    const s = await call("POST", "/api/compositions", composition("\ud800 lone"));
    expectErrorBody(s, 400);
    expect(s.body.error.details?.[0]?.path).toBe("/tracks/0/clips/0/asset/text");
    const k = await call("POST", "/api/v1/projects", '{"na\\udc00me":"x"}');
    expectErrorBody(k, 400);
    expect(k.body.error.details?.[0]?.path).toBe("/na\udc00me");
  });

  it.each([
    ["GET", "/api/v1/projects/%00"],
    ["GET", "/api/compositions/%00"],
    ["PUT", "/api/compositions/a%00b"],
    ["PATCH", "/api/compositions/%00"],
    ["DELETE", "/api/compositions/%00"],
    ["GET", "/api/render/%00"],
    ["DELETE", "/api/render/%00"],
    ["GET", "/api/v1/uploads/%00"],
    ["DELETE", "/api/v1/uploads/%00"],
  ])("refuses them in the path of %s %s", async (method, url) => {
    const payload = method === "PUT" ? composition() : method === "PATCH" ? [] : undefined;
    const r = await call(
      method,
      url,
      payload,
      method === "GET" || method === "DELETE" ? {} : { "if-match": '"1"' },
    );
    expectErrorBody(r, 400);
    expect(r.body.error.message).toBe("The path parameters are invalid");
  });

  it.each([
    "/api/v1/projects?cursor=%00",
    "/api/compositions?projectId=a%00",
    "/api/v1/uploads?cursor=%00",
    "/api/render?cursor=%00",
  ])("refuses them in the query of %s", async (url) => {
    const r = await call("GET", url);
    expectErrorBody(r, 400);
    expect(r.body.error.message).toBe("The query string is invalid");
  });

  it("logs no unhandled error for any of them", () => {
    expect(t.logs.join("\n")).not.toMatch(/unhandled error|internal_error/);
  });

  it("walks any depth without recursion", () => {
    let deep: unknown = "a\u0000";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findBadStrings(deep)).toHaveLength(1);
  });

  it("never logs a failed statement's parameters", () => {
    const err = Object.assign(new Error("Failed query: insert into x values ($1)\nparams: secret-data"), {
      query: "insert into x values ($1)",
      params: ["secret-data"],
      cause: Object.assign(new Error('invalid byte sequence "secret-data"'), { code: "22021" }),
    });
    const logged = JSON.stringify(loggableError(err));
    expect(logged).not.toContain("secret-data");
    expect(logged).toContain("22021");
  });
});

describe("JSON bodies that are not UTF-8", () => {
  it("are a 400, not silently replaced with U+FFFD; UTF-8 multi-byte text is kept", async () => {
    for (const bytes of [
      Buffer.from([...Buffer.from('{"name":"a'), 0xff, ...Buffer.from('b"}')]),
      Buffer.from([...Buffer.from('{"name":"'), 0xc3, ...Buffer.from('"}')]),
      Buffer.from([...Buffer.from('{"name":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
    ]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/v1/projects",
        headers: { ...bearer(key), "content-type": "application/json" },
        payload: bytes,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({
        code: "invalid_request",
        message: expect.stringMatching(/UTF-8/),
      });
    }
    const patch = await t.app.inject({
      method: "PATCH",
      url: "/api/compositions/cmp_x",
      headers: { ...bearer(key), "content-type": "application/json-patch+json", "if-match": '"1"' },
      payload: Buffer.from([
        ...Buffer.from('[{"op":"add","path":"/name","value":"'),
        0xfe,
        ...Buffer.from('"}]'),
      ]),
    });
    expect(patch.statusCode, patch.body).toBe(400);
    expect(patch.json().error.message).toMatch(/UTF-8/);
    const ok = await call("POST", "/api/v1/projects", { name: "Café ☕ 😀" });
    expect(ok.status).toBe(201);
    expect((ok.body as unknown as { name: string }).name).toBe("Café ☕ 😀");
  });
});

describe("deeply nested JSON", () => {
  const deep = (levels: number): unknown => {
    let v: unknown = "leaf";
    for (let i = 0; i < levels; i++) v = i % 2 ? { a: v } : [v];
    return v;
  };

  it("is a 400 naming the field on create, replace, inline render and OTIO import", async () => {
    const created = await call("POST", "/api/compositions", composition());
    expect(created.status).toBe(201);
    const id = (created.body as unknown as { id: string }).id;
    const withMeta = { ...composition(), metadata: { note: deep(4000) } };
    for (const [method, url, payload, path] of [
      ["POST", "/api/compositions", withMeta, "/metadata/note"],
      ["PUT", `/api/compositions/${id}`, withMeta, "/metadata/note"],
      ["POST", "/api/render", { composition: withMeta }, "/composition/metadata/note"],
      [
        "POST",
        "/api/compositions/import",
        { otio: { OTIO_SCHEMA: "Timeline.1", metadata: { note: deep(4000) } } },
        "/otio/metadata/note",
      ],
    ] as const) {
      const r = await call(method, url, payload, method === "PUT" ? { "if-match": '"1"' } : {});
      expectErrorBody(r, 400);
      expect(r.body.error.details?.[0]?.path.startsWith(path), JSON.stringify(r.body)).toBe(true);
      expect(r.body.error.details?.[0]?.message).toMatch(/deeper than 64 levels/);
    }
    expect(t.logs.join("\n")).not.toMatch(/unhandled error|internal_error/);
  });

  it("is accepted up to the bound", async () => {
    const r = await call("POST", "/api/compositions", { ...composition(), metadata: { note: deep(60) } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });
});

describe("framework errors", () => {
  it.each(["/api/compositions/%FF", "/api/v1/projects/%E0%A4%A", "/api/v1/uploads/%ED%A0%80"])(
    "%s gets the error body",
    async (url) => {
      const r = await call("GET", url);
      expectErrorBody(r, 400);
      expect(JSON.stringify(r.body)).not.toMatch(/FST_ERR/);
    },
  );

  it("a path parameter over 100 characters gets the error body without the path", async () => {
    const id = "x".repeat(150);
    const r = await call("GET", `/api/compositions/${id}`);
    expectErrorBody(r, 400);
    expect(JSON.stringify(r.body)).not.toContain(id);
  });
});

describe("JSON bodies are not coerced", () => {
  it("refuses a boolean as a project name", async () => {
    const r = await call("POST", "/api/v1/projects", { name: true });
    expectErrorBody(r, 400);
    expect(r.body.error.details?.[0]?.path).toBe("/name");
  });

  it("refuses null as a clip start and a number as a font family", async () => {
    const a = await call("POST", "/api/compositions", composition("Hi", "Sans", null));
    expectErrorBody(a, 400);
    const b = await call("POST", "/api/compositions", composition("Hi", 12));
    expectErrorBody(b, 400);
    const ok = await call("POST", "/api/compositions", composition());
    expect(ok.status).toBe(201);
  });

  it("still coerces query parameters", async () => {
    const r = await call("GET", "/api/v1/projects?limit=2");
    expect(r.status).toBe(200);
  });
});
