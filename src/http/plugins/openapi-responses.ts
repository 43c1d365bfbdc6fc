import { createParser } from "eventsource-parser";
import { RETRY_AFTER, STANDARD_HEADERS, SUCCESS_DESCRIPTIONS } from "../schemas/common.ts";

/**
 * Response headers some operations send beyond the standard ones (X-Request-Id,
 * X-RateLimit-*), as the OpenAPI document describes them.
 */
export const HEADER_DOCS = {
  ETag: {
    type: "string",
    description: 'The composition\'s version as an entity tag, e.g. `"3"`; send it back as `If-Match`',
  },
  Location: { type: "string", description: "Path of the resource to poll (same origin)" },
  "Retry-After": RETRY_AFTER,
  "Idempotent-Replayed": {
    type: "string",
    enum: ["true"],
    description: "Present when an earlier request with this Idempotency-Key is answered again",
  },
  "X-Run-Id": {
    type: "string",
    description: "The assistant run; resume its stream with GET /api/assistant/runs/{runId}/events",
  },
  "Content-Disposition": {
    type: "string",
    description: 'An attachment with a file name, e.g. `attachment; filename="Launch teaser.otio"`',
  },
  "Set-Cookie": {
    type: "string",
    description: "The HttpOnly console session cookie (`cutroom_session`)",
  },
} as const;

/** A documented response header name. */
export type DocumentedHeader = keyof typeof HEADER_DOCS;

/** What one success response of an operation says beyond its schema. */
export interface ResponseDoc {
  /** The response description (distinct per status of one operation). */
  description?: string;
  /** Headers this response carries (always or under the condition the description gives). */
  headers?: DocumentedHeader[];
}

/**
 * Descriptions and headers of success responses, by operationId and status. Applied to the
 * generated document, so route schemas keep only their body shapes; the OpenAPI examples
 * test checks that every header a real response carries is documented here or is standard.
 */
export const RESPONSE_DOCS: Record<string, Record<number, ResponseDoc>> = {
  createComposition: { 201: { description: "The new composition, version 1", headers: ["ETag"] } },
  importComposition: {
    201: { description: "The imported composition, version 1", headers: ["ETag", "Location"] },
  },
  exportComposition: {
    200: {
      description: "The composition as an OpenTimelineIO or MLT file",
      headers: ["Content-Disposition"],
    },
  },
  createWebhookEndpoint: {
    201: {
      description: "The new endpoint with its signing secret (shown only this once)",
      headers: ["Location"],
    },
  },
  updateWebhookEndpoint: { 200: { description: "The endpoint after the change, without its secret" } },
  getComposition: { 200: { description: "The composition at its current version", headers: ["ETag"] } },
  replaceComposition: { 200: { description: "The composition at its new version", headers: ["ETag"] } },
  patchComposition: { 200: { description: "The composition at its new version", headers: ["ETag"] } },
  revertComposition: {
    200: {
      description: "The composition at its new version, equal to the one reverted to",
      headers: ["ETag"],
    },
  },
  relinkComposition: {
    200: { description: "The composition at its new version, relinked", headers: ["ETag"] },
  },
  reframeComposition: {
    200: {
      description: "The composition at its new version, reframed, with its shots and the reasons",
      headers: ["ETag"],
    },
  },
  startRender: {
    202: {
      description: "Queued: a new render job; poll `Location` at the `Retry-After` interval",
      headers: ["Location", "Retry-After"],
    },
    200: {
      description:
        "Replayed: the render an earlier request with the same Idempotency-Key and body started; `Retry-After` while it is not terminal",
      headers: ["Location", "Idempotent-Replayed", "Retry-After"],
    },
  },
  getRender: {
    200: {
      description: "The render job; until it is terminal the response carries `Retry-After`",
      headers: ["Retry-After"],
    },
  },
  cancelRender: {
    200: { description: "Cancelled (it was queued, or was already cancelled)" },
    202: { description: "Cancelling: ffmpeg is being stopped; poll until `cancelled`" },
  },
  generateImage: {
    201: {
      description: "Finished within IMAGE_WAIT_SEC: the generation with its outputs",
      headers: ["Location"],
    },
    202: {
      description: "Still running after IMAGE_WAIT_SEC: poll `Location` at the `Retry-After` interval",
      headers: ["Location", "Retry-After"],
    },
  },
  generateVideo: {
    202: {
      description: "Queued: poll `Location` at the `Retry-After` interval",
      headers: ["Location", "Retry-After"],
    },
  },
  getGeneration: {
    200: {
      description: "The generation; until it is terminal the response carries `Retry-After`",
      headers: ["Retry-After"],
    },
  },
  cancelAssistantRun: {
    202: { description: "Cancel requested: the run stops at its next step" },
    200: { description: "The run had already ended; nothing changed" },
  },
  cancelGeneration: { 200: { description: "The generation, cancelled (or already terminal)" } },
  createTranscription: {
    202: {
      description: "Queued: poll `Location` at the `Retry-After` interval",
      headers: ["Location", "Retry-After"],
    },
  },
  getTranscription: {
    200: {
      description: "The transcription; until it is terminal the response carries `Retry-After`",
      headers: ["Retry-After"],
    },
  },
  cancelTranscription: { 200: { description: "The transcription, cancelled (or already terminal)" } },
  createAutoedit: {
    202: {
      description: "Queued: poll `Location` at the `Retry-After` interval",
      headers: ["Location", "Retry-After"],
    },
  },
  getAutoedit: {
    200: {
      description: "The auto-edit; until it is terminal the response carries `Retry-After`",
      headers: ["Retry-After"],
    },
  },
  cancelAutoedit: { 200: { description: "The auto-edit, cancelled (or already terminal)" } },
  runAssistant: {
    200: {
      description: "A `text/event-stream` of the run's events; the run id is in `X-Run-Id`",
      headers: ["X-Run-Id"],
    },
  },
  login: { 200: { description: "Signed in: the session cookie is set", headers: ["Set-Cookie"] } },
  setupPassword: {
    200: { description: "Password set and signed in: the session cookie is set", headers: ["Set-Cookie"] },
  },
  signup: { 201: { description: "Account created and signed in", headers: ["Set-Cookie"] } },
  logout: { 204: { description: "Signed out: the session cookie is cleared", headers: ["Set-Cookie"] } },
};

type Json = Record<string, unknown>;

/**
 * Named examples of an event stream's events: the `data` of the first event of each type in
 * the recorded `stream` (server-sent events text), keyed by the type.
 */
function eventExamples(stream: string): Record<string, { summary: string; value: unknown }> {
  const out: Record<string, { summary: string; value: unknown }> = {};
  const parser = createParser({
    onEvent: ({ event, data }) => {
      const type = event ?? "message";
      out[type] ??= { summary: `A \`${type}\` event's data`, value: JSON.parse(data) };
    },
  });
  parser.feed(stream.endsWith("\n\n") ? stream : `${stream}\n\n`);
  return out;
}
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** Every operation object of an OpenAPI document with its method and path. */
export function operationsOf(doc: Json): { method: string; path: string; op: Json }[] {
  const out: { method: string; path: string; op: Json }[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op && typeof op === "object") out.push({ method, path, op: op as Json });
    }
  }
  return out;
}

const headerObject = (h: { description: string } & Json) => {
  const { description, ...schema } = h;
  return { description, schema };
};

/**
 * Error statuses any operation can answer whatever its route declares: 400 from the guard on
 * path and query strings (a NUL, an unpaired surrogate, a path parameter over 100 characters,
 * a path that is not UTF-8); and on authenticated operations 401 and 403 (a phone capture
 * token outside uploads, a console-session write without its CSRF token); and on methods that
 * may carry a body 413 and 415 (a body too large or of a type the operation does not read, even
 * where it expects none). Routes list 429 and 500 themselves (health is never refused for quota).
 */
const UNIVERSAL_ERRORS: Record<number, { description: string; authenticated?: boolean; withBody?: boolean }> =
  {
    400: {
      description:
        "Invalid request: a path or query parameter holds a NUL character or an unpaired surrogate, or a path parameter is longer than the 100 characters any id has",
    },
    401: { description: "Missing API key, or invalid or revoked API key", authenticated: true },
    403: {
      description:
        "Forbidden: a phone capture token used outside uploads, or a console-session write without its `X-CSRF-Token`",
      authenticated: true,
    },
    413: {
      description: "Payload too large: the request body is larger than this operation accepts",
      withBody: true,
    },
    415: {
      description: "Unsupported media type: a request body of a type this operation does not read",
      withBody: true,
    },
  };

/** Methods whose requests may carry a body (read, and refused by size or type, on every route). */
const BODY_METHODS = new Set(["post", "put", "patch", "delete"]);

const headerObjects = (headers: Record<string, { description: string } & Json>) =>
  Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, headerObject(h)]));

/** Adds the {@link UNIVERSAL_ERRORS} an operation does not list yet, with the shared error body. */
function addUniversalErrors(op: Json, method: string, documentSecurity: unknown): void {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const security = (op.security ?? documentSecurity) as unknown[] | undefined;
  const authenticated = Array.isArray(security) && security.length > 0;
  for (const [status, { description, authenticated: onlyAuthenticated, withBody }] of Object.entries(
    UNIVERSAL_ERRORS,
  )) {
    if (responses[status] || (onlyAuthenticated && !authenticated) || (withBody && !BODY_METHODS.has(method)))
      continue;
    responses[status] = {
      description,
      headers: headerObjects(
        status === "429" ? { ...STANDARD_HEADERS, "Retry-After": RETRY_AFTER } : STANDARD_HEADERS,
      ),
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
    };
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * An event stream's media type as the wire carries it: the schema of one event is its
 * `id`, `event` and `data` fields, one alternative per event type, where `data` is a line of
 * JSON whose schema (`contentSchema`) is the type's own component, named `<title>_<type>` after
 * the original schema's title (e.g. `AssistantEvent_session`); the recorded examples become
 * wire events.
 */
function describeEventStream(doc: Json, media: Json): void {
  const data = media.schema as Json | undefined;
  const variants = (data?.anyOf ?? data?.oneOf) as Json[] | undefined;
  if (!data || !variants || typeof data.title !== "string") return;
  const components = (doc.components as Json).schemas as Json;
  const name = data.title;
  const events: Json[] = [];
  for (const variant of variants) {
    const type = ((variant.properties as Json | undefined)?.type as Json | undefined)?.enum as
      | string[]
      | undefined;
    const eventName = type?.[0];
    if (!eventName) return;
    const component = `${name}_${eventName}`;
    components[component] = variant;
    const ref = { $ref: `#/components/schemas/${component}` };
    events.push({
      title: `${eventName} event`,
      description: `\`event: ${eventName}\`: ${String(variant.description ?? "")}`,
      type: "object",
      required: ["id", "event", "data"],
      properties: {
        id: {
          type: "string",
          pattern: "^[0-9]+$",
          description: "`id:` line: the event's sequence number in the run (1, 2, …)",
        },
        event: { const: eventName, description: "`event:` line: the event type" },
        data: {
          type: "string",
          description: `\`data:\` line: one line of JSON (${component})`,
          contentMediaType: "application/json",
          contentSchema: ref,
        },
      },
    });
  }
  media.schema = {
    title: `${name}Stream`,
    description: `One server-sent event as the wire carries it: the lines \`id: <n>\`, \`event: <type>\` and \`data: <JSON>\`, then a blank line; \`data\` is a ${name} whose \`type\` repeats the event name. Comment lines (\`: ping\`) carry no event.`,
    oneOf: events,
  };
  const examples = media.examples as Record<string, { summary: string; value: unknown }> | undefined;
  let seq = 0;
  for (const [type, example] of Object.entries(examples ?? {})) {
    example.summary = `A \`${type}\` event`;
    example.value = { id: String(++seq), event: type, data: JSON.stringify(example.value) };
  }
}

/**
 * Completes the generated document in place: the error statuses every operation can answer
 * ({@link UNIVERSAL_ERRORS}), event streams described as the wire carries them, per-operation
 * response descriptions and headers from {@link RESPONSE_DOCS}, and recorded success examples (`examples`: operationId
 * → status → body, recorded from real answers by test/service/openapi-examples.test.ts) on
 * responses that have none.
 */
export function completeResponses(doc: Json, examples: Record<string, Record<string, unknown>>): Json {
  for (const { method, op } of operationsOf(doc)) {
    addUniversalErrors(op, method, doc.security);
    const id = String(op.operationId ?? "");
    const responses = (op.responses ?? {}) as Record<string, Json>;
    for (const [status, response] of Object.entries(responses)) {
      const extra = RESPONSE_DOCS[id]?.[Number(status)];
      if (extra?.description) response.description = extra.description;
      if (extra?.headers) {
        const headers = (response.headers ?? {}) as Json;
        for (const name of extra.headers) headers[name] = headerObject(HEADER_DOCS[name]);
        response.headers = headers;
      }
      const example = examples[id]?.[status];
      // The one media type of the response (JSON, or the text of an event stream).
      const media = Object.values((response.content ?? {}) as Record<string, Json>)[0];
      // The default description belongs to the response, not to the body's schema.
      const schema = media?.schema as Json | undefined;
      if (schema && schema.description === SUCCESS_DESCRIPTIONS[Number(status)]) delete schema.description;
      if (media && example !== undefined && media.example === undefined && media.examples === undefined) {
        if (typeof example === "string" && "text/event-stream" in (response.content as Json)) {
          // The schema is one event's data: the examples are the recorded events' data, by type,
          // and the recorded stream itself is shown in the description.
          media.examples = eventExamples(example);
          response.description = `${response.description}\n\nA recorded stream:\n\n\`\`\`text\n${example.trim()}\n\`\`\``;
        } else media.example = example;
      }
      if (media && "text/event-stream" in (response.content as Json)) describeEventStream(doc, media);
    }
  }
  return doc;
}
