import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createParser } from "eventsource-parser";
import type { FastifyRequest } from "fastify";
import type { App } from "../../src/http/types.ts";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document read as plain JSON.
type Json = Record<string, any>;

/** One answer that the OpenAPI document does not describe. */
export interface ContractMismatch {
  /** `METHOD /path/{param} → status`, then what is wrong. */
  message: string;
  /** The test that was running when the answer was sent (vitest's current test name). */
  test: string | undefined;
}

/** Media types whose bodies are validated against their schema; the others only by type. */
const JSON_TYPES = /^application\/(?:[\w.+-]+\+)?json$/;

/** `/api/v1/projects/:projectId` → `/api/v1/projects/{projectId}` (Fastify route → OpenAPI path). */
export const openApiPath = (routeUrl: string) => routeUrl.replace(/:(\w+)/g, "{$1}");

/**
 * Checks answers against an OpenAPI 3.1 document: the status must be documented for the
 * operation (method + path template), the content type must be one of that response's media
 * types (or none when it has no content), and a JSON body must match its schema (Ajv, JSON
 * Schema 2020-12, formats checked). Returns a readable sentence per problem, or null.
 */
export function createContractChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "openapi", components: doc.components ?? {} });
  const cache = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: Json) => {
    let v = cache.get(key);
    if (!v) {
      // Internal references (`#/components/schemas/…`) point into the document's components.
      const text = JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"openapi#/');
      v = ajv.compile(JSON.parse(text));
      cache.set(key, v);
    }
    return v;
  };

  /**
   * Checks the events of a `text/event-stream` answer: each `{ id, event, data }` must match
   * the media type's schema (one alternative per event type), and its `data`, parsed, the
   * `contentSchema` of that event type's alternative.
   */
  function checkEvents(
    method: string,
    route: string,
    status: number,
    events: { id?: string | undefined; event?: string | undefined; data: string }[],
  ): string | null {
    const path = openApiPath(route);
    const where = `${method} ${path} → ${status} (event stream)`;
    const media = doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.[
      "text/event-stream"
    ] as Json | undefined;
    if (!media?.schema) return null;
    const key = `${method} ${path} ${status} events`;
    const wire = validatorFor(key, media.schema);
    const alternatives = (media.schema.oneOf ?? [media.schema]) as Json[];
    for (const e of events) {
      if (!wire(e)) {
        const errors = (wire.errors ?? []).slice(0, 3).map((x) => `${x.instancePath || "/"} ${x.message}`);
        return `${where}: the event ${JSON.stringify(e).slice(0, 200)} does not match the documented event schema: ${errors.join("; ")}`;
      }
      const alternative = alternatives.find((a) => a.properties?.event?.const === e.event);
      const contentSchema = alternative?.properties?.data?.contentSchema as Json | undefined;
      if (!contentSchema) continue;
      const data = validatorFor(`${key} ${e.event}`, contentSchema);
      let value: unknown;
      try {
        value = JSON.parse(e.data);
      } catch {
        return `${where}: the data of a \`${e.event}\` event is not JSON: ${e.data.slice(0, 200)}`;
      }
      if (!data(value)) {
        const errors = (data.errors ?? []).slice(0, 3).map((x) => `${x.instancePath || "/"} ${x.message}`);
        return `${where}: the data of a \`${e.event}\` event does not match its schema: ${errors.join("; ")}; data: ${e.data.slice(0, 300)}`;
      }
    }
    return null;
  }

  return { check, checkEvents };

  function check(answer: {
    method: string;
    route: string;
    status: number;
    contentType: string | undefined;
    /** The serialized body, or undefined when it is a stream or not checked. */
    body: string | undefined;
  }): string | null {
    const path = openApiPath(answer.route);
    const where = `${answer.method} ${path} → ${answer.status}`;
    const op = doc.paths?.[path]?.[answer.method.toLowerCase()];
    if (!op) return `${where}: the operation is not in the OpenAPI document`;
    const response = op.responses?.[String(answer.status)] ?? op.responses?.[`${String(answer.status)[0]}XX`];
    if (!response) {
      const documented = Object.keys(op.responses ?? {}).join(", ");
      return `${where}: status ${answer.status} is not documented (documented: ${documented})`;
    }
    const content = (response.content ?? {}) as Record<string, Json>;
    const types = Object.keys(content);
    const type = answer.contentType?.split(";")[0]?.trim().toLowerCase();
    if (types.length === 0) {
      if (answer.body && answer.body.length > 0) return `${where}: sends a body (${type}) but documents none`;
      return null;
    }
    if (!type) {
      return answer.body ? `${where}: no Content-Type, documented ${types.join(", ")}` : null;
    }
    const media = content[type] ?? (type.startsWith("text/") ? undefined : content["*/*"]);
    if (!media) return `${where}: Content-Type ${type} is not documented (documented: ${types.join(", ")})`;
    if (!JSON_TYPES.test(type) || answer.body === undefined || !media.schema) return null;
    let value: unknown;
    try {
      value = JSON.parse(answer.body);
    } catch {
      return `${where}: the ${type} body is not JSON: ${answer.body.slice(0, 200)}`;
    }
    const validate = validatorFor(`${answer.method} ${path} ${answer.status} ${type}`, media.schema);
    if (validate(value)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`)
      .join("; ");
    return `${where}: the body does not match the documented schema: ${errors}; body: ${answer.body.slice(0, 300)}`;
  }
}

/** The current vitest test's name, when a test is running. */
async function currentTestName(): Promise<string | undefined> {
  try {
    const { expect } = await import("vitest");
    return expect.getState().currentTestName;
  } catch {
    return undefined;
  }
}

const headerText = (v: unknown) =>
  Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);

/**
 * Validates every answer of `app` to a documented route (see {@link createContractChecker})
 * and records each mismatch in the returned list. Routes hidden from the document (the
 * console, /docs, the document itself) and requests no route matched are not checked, nor
 * are refusals while routing (a path parameter over the router's limit, a path that is not
 * UTF-8: Fastify answers them before any hook; the OpenAPI fuzz test checks their statuses). Bodies
 * of streamed or hijacked answers (event streams, files) are not read; their status and
 * content type are. Register before `app.ready()`.
 */
export function recordContractMismatches(app: App): ContractMismatch[] {
  const mismatches: ContractMismatch[] = [];
  let checker: ReturnType<typeof createContractChecker> | undefined;
  const checked = new WeakSet<FastifyRequest>();
  /** The text written so far to each event-stream answer (hijacked: read off `reply.raw`). */
  const streams = new WeakMap<FastifyRequest, { written: string[]; type?: string }>();
  /** The route of a request, when it is a documented operation. */
  const routeOf = (request: FastifyRequest): string | undefined => {
    const options = request.routeOptions;
    if (!options.url || request.method === "HEAD" || request.method === "OPTIONS") return undefined;
    const schema = options.schema as { hide?: boolean } | undefined;
    return schema && !schema.hide && options.url.startsWith("/api/") ? options.url : undefined;
  };
  const record = async (
    request: FastifyRequest,
    route: string,
    status: number,
    contentType: string | undefined,
    body: string | undefined,
  ) => {
    checker ??= createContractChecker(app.swagger() as unknown as Json);
    const problem = checker.check({ method: request.method, route, status, contentType, body });
    if (problem) mismatches.push({ message: problem, test: await currentTestName() });
    const written = streams.get(request)?.written;
    if (problem || !written || !contentType?.startsWith("text/event-stream")) return;
    const events: { id?: string | undefined; event?: string | undefined; data: string }[] = [];
    const parser = createParser({ onEvent: (e) => events.push({ id: e.id, event: e.event, data: e.data }) });
    parser.feed(written.join(""));
    const eventProblem = checker.checkEvents(request.method, route, status, events);
    if (eventProblem) mismatches.push({ message: eventProblem, test: await currentTestName() });
  };
  // Keep a copy of what an event stream writes (its answer is hijacked: no onSend).
  app.addHook("preHandler", async (request, reply) => {
    const route = routeOf(request);
    if (!route) return;
    const doc = app.swagger() as unknown as Json;
    const op = doc.paths?.[openApiPath(route)]?.[request.method.toLowerCase()];
    const streamed = Object.values((op?.responses ?? {}) as Record<string, Json>).some(
      (r) => r.content?.["text/event-stream"],
    );
    if (!streamed) return;
    const stream: { written: string[]; type?: string } = { written: [] };
    streams.set(request, stream);
    const raw = reply.raw;
    const write = raw.write.bind(raw) as (...args: unknown[]) => boolean;
    raw.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === "string" || Buffer.isBuffer(chunk)) stream.written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof raw.write;
    // Headers given to writeHead are not kept where getHeader finds them: note the type here.
    const writeHead = raw.writeHead.bind(raw) as (...args: unknown[]) => typeof raw;
    raw.writeHead = ((status: number, ...rest: unknown[]) => {
      const headers = rest.find((r) => typeof r === "object" && r !== null && !Array.isArray(r)) as
        | Record<string, unknown>
        | undefined;
      const type = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === "content-type")?.[1];
      if (type !== undefined) stream.type = headerText(type);
      return writeHead(status, ...rest);
    }) as typeof raw.writeHead;
  });
  app.addHook("onSend", async (request, reply, payload) => {
    checked.add(request);
    const route = routeOf(request);
    if (!route) return payload;
    const body =
      typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : undefined;
    const streamed = payload !== null && payload !== undefined && body === undefined;
    const type = headerText(reply.getHeader("content-type"));
    await record(request, route, reply.statusCode, type, streamed ? undefined : (body ?? ""));
    return payload;
  });
  // Hijacked answers (event streams) skip onSend: check what reached the wire.
  app.addHook("onResponse", async (request, reply) => {
    if (checked.has(request)) return;
    const route = routeOf(request);
    if (route)
      await record(
        request,
        route,
        reply.statusCode,
        streams.get(request)?.type ?? headerText(reply.raw.getHeader("content-type")),
        undefined,
      );
  });
  return mismatches;
}

/** The mismatches as one readable failure message. */
export function describeMismatches(mismatches: ContractMismatch[]): string {
  const lines = mismatches.map((m) => `- ${m.message}${m.test ? `\n  (in "${m.test}")` : ""}`);
  return `${mismatches.length} answer(s) do not match the OpenAPI document:\n${[...new Set(lines)].join("\n")}`;
}
