// Schema-driven fuzzing of every operation of the OpenAPI document over real HTTP on loopback,
// sent with a write key, a read-only key or no key: hostile path parameters, query strings and
// JSON bodies must never give a 5xx, every answer must be one the document describes (status,
// content type, body schema: the test app's contract check), every error must carry the error
// body, every request must be answered, and /health must keep answering.
// FUZZ_RUNS (default 12) sets the cases per operation; FUZZ_SEED (fixed default) replays a run.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
/** Time for all operations together (FUZZ_BUDGET_MS, default 40 s), shared evenly; each stops early when its share is spent. */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 40_000);
fc.configureGlobal({ seed: SEED, numRuns: RUNS, endOnFailure: true });
/** Generous: a hostile 2 MB analysis body may take seconds on a thread of a busy machine. */
const RESPONSE_BOUND_MS = 120_000;

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document read as plain JSON.
type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: string; schema?: Schema }>;
  body?: Schema;
  /** The media type the body is sent as. */
  bodyType: string;
  /** The documented response statuses. */
  statuses: string[];
}

let t: TestApp;
let base: string;
let key: string;
/** The key each case is sent with: write (admin account), read-only (standard account), or none. */
let keys: Record<"write" | "read" | "none", string | null>;
let doc: Schema;
/** Ids of resources that exist (set before the fuzzing starts). */
let realIds: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ env: { ANALYSIS_TIMEOUT_SEC: "20" } });
  base = await t.listen();
  key = (await t.createAccount({ plan: "admin" })).key;
  keys = { write: key, read: (await t.createAccount({ scopes: ["read"] })).key, none: null };
  // Real resources of the write key's account, so that generated requests also reach them.
  const post = async (url: string, body: unknown) =>
    (
      (await (
        await fetch(`${base}${url}`, {
          method: "POST",
          headers: { ...bearer(key), "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json()) as { id: string }
    ).id;
  const projectId = await post("/api/v1/projects", { name: "fuzzed" });
  const compositionId = await post("/api/compositions", {
    name: "fuzzed",
    projectId,
    canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
    tracks: [
      { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] },
    ],
  });
  realIds = [projectId, compositionId];
  doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as Schema;
}, 180_000);
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
});

function deref(s: Schema | undefined): Schema {
  let cur = s ?? {};
  while (cur.$ref) cur = doc.components.schemas[String(cur.$ref).split("/").pop() as string];
  return cur;
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      const bodyType = ["application/json", "application/json-patch+json"].find((type) => content[type]);
      const json = bodyType ? content[bodyType] : undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: json?.schema,
        bodyType: bodyType ?? "application/json",
        statuses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return ops;
}

/** A string of any UTF-16 code units: controls, NUL and unpaired surrogates included. */
const anyUnits = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

const nest = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

/** Values no schema expects: wrong types, extreme numbers, hostile strings, deep nesting. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 64,
    -(2 ** 63),
    5e-324,
    2 ** 53 + 1,
    "",
    "\u0000",
    "\ud800",
    "a\udfffb",
    "a\u0000b",
    "\u202e\u0007\u001b[31m",
    "%00%FF",
    "../../../etc/passwd",
    "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
    [],
    {},
    { __proto__: { polluted: true } },
    { constructor: { prototype: { polluted: true } } },
  ),
  anyUnits,
  fc.double(),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(
    "x".repeat(100_000),
    "A".repeat(300_000),
    "!?.".repeat(30_000),
    "中文".repeat(30_000),
    "word ".repeat(40_000),
  ),
  fc.integer({ min: 1, max: 1000 }).map((d) => nest(d, "leaf")),
  fc.dictionary(anyUnits, fc.oneof(anyUnits, fc.integer()), { maxKeys: 4 }),
);

/** Mostly schema-shaped values with hostile leaves, sometimes a hostile value outright. */
function shaped(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(schema);
  if (depth > 5) return hostile;
  const variants: fc.Arbitrary<unknown>[] = [];
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) variants.push(shaped(alt, depth + 1));
  if (s.const !== undefined) variants.push(fc.constant(s.const));
  if (Array.isArray(s.enum)) variants.push(fc.constantFrom(...s.enum));
  switch (s.type) {
    case "object": {
      const props = Object.fromEntries(
        Object.entries<Schema>(s.properties ?? {}).map(([k, v]) => [k, shaped(v, depth + 1)]),
      );
      variants.push(fc.record(props, { requiredKeys: (s.required ?? []) as string[] }));
      break;
    }
    case "array":
      variants.push(fc.array(shaped(s.items, depth + 1), { maxLength: 4 }));
      break;
    case "string":
      // JSON Pointers (JSON Patch paths): the root, real fields and random ones.
      if (/JSON Pointer/.test(String(s.description)))
        variants.push(
          fc.constantFrom(
            "",
            "/",
            "/name",
            "/canvas",
            "/canvas/fps",
            "/tracks/0",
            "/tracks/0/clips/0/duration",
          ),
        );
      variants.push(fc.string({ maxLength: 30 }));
      break;
    case "number":
    case "integer":
      variants.push(fc.oneof(fc.integer({ min: -10, max: 1000 }), fc.double({ noNaN: true })));
      break;
    case "boolean":
      variants.push(fc.boolean());
      break;
  }
  if (variants.length === 0) return hostile;
  return fc.oneof({ weight: 1, arbitrary: hostile }, { weight: 5, arbitrary: fc.oneof(...variants) });
}

/** Percent-encodes every UTF-16 unit (an unpaired surrogate as its 3 UTF-8-style bytes). */
function encodeUnits(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (/[A-Za-z0-9_.~-]/.test(s[i] as string)) out += s[i];
    else if (c < 0x80) out += `%${c.toString(16).padStart(2, "0").toUpperCase()}`;
    else if (c < 0x800) out += `%${(0xc0 | (c >> 6)).toString(16)}%${(0x80 | (c & 63)).toString(16)}`;
    else
      out += `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 63)).toString(16)}%${(0x80 | (c & 63)).toString(16)}`;
  }
  return out;
}

const pathValue = fc.oneof(
  fc.constantFrom("%00", "%FF", "%ED%A0%80", "x".repeat(150), "%2F..%2F", "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"),
  anyUnits.map(encodeUnits),
);
const queryValue = fc.oneof(
  fc.constantFrom("%00", "%FF", "-1", "1e308", "99999999999999999999", "true", "", "x".repeat(5000)),
  anyUnits.map(encodeUnits),
);

/** A query value its schema allows: an enum value, a small number, a boolean or a short string. */
function allowedQueryValue(schema: Schema | undefined): fc.Arbitrary<string> {
  const s = deref(schema);
  const values = [...(s.enum ?? []), ...(s.anyOf ?? []).flatMap((a: Schema) => deref(a).enum ?? [])];
  if (values.length > 0) return fc.constantFrom(...values.map(String));
  if (s.type === "integer" || s.type === "number") return fc.integer({ min: 0, max: 100 }).map(String);
  if (s.type === "boolean") return fc.constantFrom("true", "false");
  return fc.string({ maxLength: 12 }).map(encodeUnits);
}

/** A JSON body over any operation's body limit. */
const OVERSIZED = JSON.stringify({ a: "x".repeat(3_000_000) });

interface Case {
  path: string;
  query: string;
  body: unknown;
  rawBody?: string;
  /** The body's media type when it is not the operation's own. */
  contentType?: string;
  key: keyof typeof keys;
}

function caseFor(op: Operation): fc.Arbitrary<Case> {
  const pathParams = op.params.filter((p) => p.in === "path");
  const queryParams = op.params.filter((p) => p.in === "query").map((p) => p.name);
  const segments = fc.tuple(
    ...pathParams.map(() =>
      fc.oneof({ weight: 3, arbitrary: pathValue }, { weight: 1, arbitrary: fc.constantFrom(...realIds) }),
    ),
  );
  // Documented parameters with values their schema allows (enums, small numbers), and any
  // name with hostile values.
  const documented = op.params
    .filter((p) => p.in === "query")
    .map((p) => fc.tuple(fc.constant(p.name), fc.oneof(queryValue, allowedQueryValue(p.schema))));
  const anyPair = fc.tuple(
    fc.oneof(fc.constantFrom(...queryParams, "x"), anyUnits.map(encodeUnits)),
    queryValue,
  );
  const query = fc
    .array(documented.length > 0 ? fc.oneof(anyPair, ...documented) : anyPair, { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&"));
  const body = op.body ? shaped(op.body) : fc.constant(undefined);
  // Raw bodies: broken JSON, and nesting deeper than a JSON encoder on this side could write.
  const raw = fc.option(
    fc.constantFrom(
      '{"a":',
      "[".repeat(100_000),
      `${"[".repeat(200_000)}${"]".repeat(200_000)}`,
      `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`,
      '{"name":"\\ud800"}',
      // A valid composition whose free-form metadata nests deeper than any copy could recurse.
      `{"name":"n","canvas":{"width":320,"height":180,"fps":25,"background":"#000000"},"tracks":[],"metadata":{"note":${"[".repeat(5000)}${"]".repeat(5000)}}}`,
      "nul\u0000",
    ),
    { freq: 8 },
  );
  // A body where the operation expects none (POST, PUT, PATCH, DELETE): of any type, or too large.
  const stray =
    op.body || op.method === "GET"
      ? fc.constant(null)
      : fc.option(
          fc.record({
            type: fc.constantFrom("application/json", "application/xml", "text/plain", "multipart/form-data"),
            raw: fc.constantFrom("{}", '{"a":', "<a/>", "x", OVERSIZED),
          }),
          { freq: 3 },
        );
  const key = fc.constantFrom<keyof typeof keys>("write", "read", "none");
  return fc
    .record({ segments, query, body, raw, key, stray })
    .map(({ segments: seg, query: q, body: b, raw: r, key: k, stray: st }) => {
      let path = op.path;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, seg[i] as string);
      });
      return {
        path,
        query: q,
        body: b,
        key: k,
        ...(r !== null && op.body ? { rawBody: r } : {}),
        ...(st ? { rawBody: st.raw, contentType: st.type } : {}),
      };
    });
}

async function send(op: Operation, c: Case) {
  const hasBody = c.rawBody !== undefined || (op.body !== undefined && c.body !== undefined);
  const url = `${base}${c.path}${c.query ? `?${c.query}` : ""}`;
  const res = await fetch(url, {
    method: op.method,
    headers: {
      ...(keys[c.key] ? bearer(keys[c.key] as string) : {}),
      ...(hasBody ? { "content-type": c.contentType ?? op.bodyType } : {}),
      ...(op.method === "PUT" || op.method === "PATCH" ? { "if-match": '"1"' } : {}),
    },
    ...(hasBody ? { body: c.rawBody ?? JSON.stringify(c.body) } : {}),
    signal: AbortSignal.timeout(RESPONSE_BOUND_MS),
  });
  const text = await res.text();
  return { status: res.status, text, requestId: res.headers.get("x-request-id") };
}

describe("fuzzing every operation of the OpenAPI document", () => {
  it("finds no 5xx, no error without the error body, no unanswered request, and /health keeps answering", async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(10);
    let fuzzing = true;
    const healthStatuses: number[] = [];
    const health = (async () => {
      while (fuzzing) {
        const res = await fetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(RESPONSE_BOUND_MS) });
        healthStatuses.push(res.status);
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const failures: string[] = [];
    try {
      for (const [i, op] of ops.entries()) {
        await fc
          .assert(
            fc.asyncProperty(caseFor(op), async (c) => {
              const before = t.contractMismatches.length;
              const r = await send(op, c);
              const where = `${op.method} ${c.path.slice(0, 120)}?${c.query.slice(0, 80)} (${c.key} key) → ${r.status} ${r.text.slice(0, 200)}`;
              if (r.status >= 500) throw new Error(`5xx: ${where}`);
              // Refusals while routing reach no hook: their status is checked here.
              if (!op.statuses.includes(String(r.status))) throw new Error(`undocumented status: ${where}`);
              const mismatch = t.contractMismatches.splice(before).map((m) => m.message);
              if (mismatch.length > 0) throw new Error(`not as documented: ${mismatch.join("; ")}\n${where}`);
              if (r.status >= 400) {
                let body: { error?: { code?: unknown; message?: unknown; requestId?: unknown } };
                try {
                  body = JSON.parse(r.text);
                } catch {
                  throw new Error(`not JSON: ${where}`);
                }
                const e = body.error;
                if (
                  typeof e?.code !== "string" ||
                  typeof e.message !== "string" ||
                  e.requestId !== r.requestId
                ) {
                  throw new Error(`no error body: ${where}`);
                }
              }
            }),
            {
              seed: SEED + i,
              interruptAfterTimeLimit: BUDGET_MS / ops.length,
              markInterruptAsFailure: false,
            },
          )
          .catch((err: Error) => failures.push(err.message.split("\n").slice(0, 6).join("\n")));
      }
    } finally {
      fuzzing = false;
      await health;
    }
    expect(failures).toEqual([]);
    expect(healthStatuses.length).toBeGreaterThan(0);
    expect(healthStatuses.every((s) => s === 200)).toBe(true);
    expect(t.logs.join("\n")).not.toMatch(/unhandled error/);
  }, 600_000);
});

describe("fuzzing the multipart fields of uploads", () => {
  it("finds no 5xx and no error without the error body for hostile field values, names and file names", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    const fieldName = fc.oneof(fc.constantFrom("projectId", "file", "note"), anyUnits);
    const fieldValue = fc.oneof(
      anyUnits,
      fc.constantFrom("\u0000", "prj_\u0000", "x".repeat(100_000), "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"),
    );
    const part = fc.oneof(
      fc.record({ kind: fc.constant("field" as const), name: fieldName, value: fieldValue }),
      fc.record({ kind: fc.constant("file" as const), name: fieldName, filename: anyUnits }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 4 }), async (parts) => {
        const form = new FormData();
        for (const p of parts) {
          if (p.kind === "field") form.append(p.name, p.value);
          else form.append(p.name, new Blob([png]), p.filename);
        }
        const res = await fetch(`${base}/api/v1/uploads`, {
          method: "POST",
          headers: bearer(key),
          body: form,
          signal: AbortSignal.timeout(RESPONSE_BOUND_MS),
        });
        const text = await res.text();
        const where = `${JSON.stringify(parts).slice(0, 300)} → ${res.status} ${text.slice(0, 200)}`;
        expect(res.status, where).toBeLessThan(500);
        if (res.status >= 400) {
          const body = JSON.parse(text) as { error?: { code?: unknown; requestId?: unknown } };
          expect(typeof body.error?.code, where).toBe("string");
          expect(body.error?.requestId, where).toBe(res.headers.get("x-request-id"));
        }
      }),
      { numRuns: RUNS * 4, seed: SEED, endOnFailure: true },
    );
    expect(t.logs.join("\n")).not.toMatch(/unhandled error/);
  }, 300_000);
});
