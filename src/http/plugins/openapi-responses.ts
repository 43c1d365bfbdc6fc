import { createParser } from "eventsource-parser";
import { RETRY_AFTER, SUCCESS_DESCRIPTIONS } from "../schemas/common.ts";

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
 * Completes the generated document in place: per-operation response descriptions and
 * headers from {@link RESPONSE_DOCS}, and recorded success examples (`examples`: operationId
 * → status → body, recorded from real answers by test/service/openapi-examples.test.ts) on
 * responses that have none.
 */
export function completeResponses(doc: Json, examples: Record<string, Record<string, unknown>>): Json {
  for (const { op } of operationsOf(doc)) {
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
    }
  }
  return doc;
}
