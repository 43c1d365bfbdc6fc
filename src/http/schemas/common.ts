import { type TSchema, Type } from "typebox";
import { ERROR_STATUS } from "../../errors.ts";

/** `$id` of the shared error body schema registered once with `app.addSchema`. */
export const ERROR_SCHEMA_ID = "ErrorResponse";

/** The error body of every status ≥ 400 (docs/conventions.md, Errors). */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Union(
          Object.keys(ERROR_STATUS).map((c) => Type.Literal(c)),
          {
            description: "Stable machine-readable code",
          },
        ),
        message: Type.String({ description: "A human sentence saying what went wrong" }),
        details: Type.Optional(
          Type.Array(
            Type.Object({
              path: Type.String({ description: "JSON Pointer (RFC 6901) into the request" }),
              message: Type.String(),
            }),
          ),
        ),
        requestId: Type.String({ description: "Echoes the X-Request-Id response header" }),
        currentVersion: Type.Optional(
          Type.Integer({
            description:
              "`version_conflict`: the composition's current version (send it as `If-Match` or `version`)",
          }),
        ),
        renderId: Type.Optional(
          Type.String({
            description:
              "`conflict` on POST /api/render: the render already started with this Idempotency-Key",
          }),
        ),
        status: Type.Optional(
          Type.String({ description: "`conflict` on a cancel: the render's terminal status" }),
        ),
        limit: Type.Optional(
          Type.Integer({ description: "`rate_limited`: how many renders may be queued or running at once" }),
        ),
        limitSec: Type.Optional(
          Type.Integer({
            description: "`rate_limited`: the plan's daily render allowance, seconds of timeline",
          }),
        ),
        renderSec: Type.Optional(
          Type.Integer({ description: "`rate_limited`: timeline seconds the refused render needed" }),
        ),
        cause: Type.Optional(
          Type.String({ description: "`unavailable`: the kind of failure behind it (no internals)" }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  {
    $id: ERROR_SCHEMA_ID,
    title: "ErrorResponse",
    examples: [
      {
        error: {
          code: "invalid_request",
          message: "The request body is invalid",
          details: [{ path: "/numImages", message: "must be <= 4" }],
          requestId: "req_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
        },
      },
    ],
  },
);

/** Response headers every response carries (request id and daily quota; docs/conventions.md), documented on every operation. */
export const STANDARD_HEADERS = {
  "X-Request-Id": { type: "string", description: "Request id (a well-formed incoming one is echoed)" },
  "X-RateLimit-Limit": {
    type: "integer",
    description:
      "Calls allowed per UTC day; 2147483647 (2³¹−1) when no quota applies (an unlimited account, an uncounted console page)",
  },
  "X-RateLimit-Remaining": {
    type: "integer",
    description: "Calls left today; 2147483647 (2³¹−1) when no quota applies",
  },
  "X-RateLimit-Reset": {
    type: "string",
    format: "date-time",
    description: "Next reset of the daily counter (midnight UTC), ISO 8601",
  },
} as const;

/** `Retry-After` (RFC 9110 §10.2.3) as this API sends it: whole seconds. */
export const RETRY_AFTER = {
  type: "integer",
  description: "Seconds to wait before trying again (or before polling again)",
} as const;

/** Response descriptions by success status, used when an operation gives none of its own. */
export const SUCCESS_DESCRIPTIONS: Partial<Record<number, string>> = {
  200: "OK: the result",
  201: "Created: the new resource",
  202: "Accepted: the work continues in the background; poll the resource (`Location`) at the `Retry-After` interval",
  204: "No content",
};

const ERROR_DESCRIPTIONS: Partial<Record<number, string>> = {
  400: "Invalid request (validation details in `error.details`)",
  401: "Missing API key, or invalid or revoked API key",
  403: "The key lacks the scope this operation needs",
  404: "Not found (also for other owners' resources)",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  415: "Unsupported media type",
  429: "Daily quota exhausted; `Retry-After` says when it resets",
  500: "Internal error (never carries internals)",
  503: "Unavailable",
  507: "`insufficient_storage`: the server's disk is full; nothing of the request was kept",
};

/** Statuses every authenticated operation may answer. */
export const AUTH_ERRORS = [400, 401, 429, 500] as const;

/**
 * Builds the `response` map of a route schema: the given success responses plus the
 * shared error body for each listed error status, each carrying the standard headers.
 *
 * @param ok - success status → TypeBox schema (or `null` for an empty body).
 * @param errors - error statuses this operation can answer.
 * @param describe - error status → this operation's own description (what it refuses and why),
 *   replacing the shared one.
 */
export function responses(
  ok: Record<number, TSchema | null>,
  errors: readonly number[] = AUTH_ERRORS,
  describe: Partial<Record<number, string>> = {},
): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const [status, schema] of Object.entries(ok)) {
    const description = SUCCESS_DESCRIPTIONS[Number(status)] ?? "Success";
    out[Number(status)] =
      schema === null
        ? { type: "null", description: "No content", headers: STANDARD_HEADERS }
        : { description, ...schema, headers: STANDARD_HEADERS };
  }
  for (const status of new Set(errors)) {
    out[status] = {
      description: describe[status] ?? ERROR_DESCRIPTIONS[status] ?? "Error",
      ...Type.Ref(ERROR_SCHEMA_ID),
      headers:
        status === 429 || status === 503
          ? { ...STANDARD_HEADERS, "Retry-After": RETRY_AFTER }
          : STANDARD_HEADERS,
    };
  }
  return out;
}

/** `limit` and `cursor` query parameters of every list (docs/conventions.md, Lists and pagination). */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 25, description: "Page size, 1..100 (default 25)" }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Opaque cursor from a previous page's nextCursor",
    }),
  ),
};

/** A page of `item`s: `{ data, nextCursor }`, newest first. */
export function Page<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: "Pass as `cursor` for the next page",
      }),
    },
    { title },
  );
}

/** An ISO 8601 UTC timestamp string. */
export const Timestamp = (description?: string) =>
  Type.String({ format: "date-time", ...(description ? { description } : {}) });
