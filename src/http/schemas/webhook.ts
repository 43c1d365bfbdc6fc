import { type TSchema, Type } from "typebox";
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from "../../db/schema/webhooks.ts";
import { Timestamp } from "./common.ts";

const ENDPOINT_ID = "whk_01JD3Q5V0M8YB6Y2J4T6Z9KX1C";
const DELIVERY_ID = "dlv_01JD3Q7A2B3C4D5E6F7G8H9J0K";
const SECRET_EXAMPLE = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/** The example endpoint of the OpenAPI document (with and without its secret). */
const ENDPOINT_EXAMPLE = {
  id: ENDPOINT_ID,
  url: "https://example.com/hooks/cutroom",
  description: "Render notifications",
  events: ["render.succeeded", "render.failed"],
  status: "enabled",
  disabledReason: null,
  disabledAt: null,
  consecutiveFailures: 0,
  createdAt: "2026-11-24T10:00:00.000Z",
  updatedAt: "2026-11-24T10:00:00.000Z",
};

/** A webhook URL (https; http and private addresses only with WEBHOOK_ALLOW_PRIVATE=true). */
export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    "Where events are POSTed: https, on a public address (loopback, private, link-local and metadata addresses are refused unless the server sets WEBHOOK_ALLOW_PRIVATE=true, which also allows http)",
  examples: ["https://example.com/hooks/cutroom"],
});

/** The per-request `callbackUrl` of renders and generations. */
export const CallbackUrl = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "Also POST this job's end event (`render.*` / `generation.*`) here, signed like webhooks with the account's callback secret (`GET /api/v1/webhooks/callback-secret`). Same address rules as webhook URLs.",
    examples: ["https://example.com/hooks/render-done"],
  }),
);

/** Whether an endpoint receives events: the resource's `status`, and what `PATCH` sets. */
const EndpointStatus = Type.Union([Type.Literal("enabled"), Type.Literal("disabled")], {
  description:
    '`disabled` after repeated failed deliveries or by the owner (see `disabledReason`); `PATCH` with `status: "enabled"`, or a successful test send or redelivery, enables it again',
});

const EventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: "An event type" },
);

/** The event types an endpoint subscribes to: at least one, each once. */
const WebhookEvents = Type.Array(EventType, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
});

/** The WebhookEndpoint resource (never its secret, except on creation and rotation). */
export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ examples: [ENDPOINT_ID] }),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    events: Type.Array(EventType),
    status: EndpointStatus,
    disabledReason: Type.Union([Type.String(), Type.Null()]),
    disabledAt: Type.Union([Timestamp(), Type.Null()]),
    consecutiveFailures: Type.Integer({
      description: "Deliveries in a row that failed on every try (reset by any successful try)",
    }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    title: "WebhookEndpoint",
    examples: [ENDPOINT_EXAMPLE],
  },
);

/** A WebhookEndpoint with its signing secret (creation and rotation only). */
export const WebhookEndpointWithSecret = Type.Intersect(
  [
    WebhookEndpoint,
    Type.Object({
      secret: Type.String({
        description: "Standard Webhooks signing secret (`whsec_<base64>`). Shown only now: store it.",
        examples: [SECRET_EXAMPLE],
      }),
    }),
  ],
  {
    title: "WebhookEndpointWithSecret",
    examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }],
  },
);

/** `POST /api/v1/webhooks` body. */
export const WebhookEndpointCreate = Type.Object(
  {
    url: WebhookUrl,
    events: WebhookEvents,
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  {
    title: "WebhookEndpointCreate",
    additionalProperties: false,
    examples: [
      {
        url: "https://example.com/hooks/cutroom",
        events: ["render.succeeded", "render.failed"],
        description: "Render notifications",
      },
    ],
  },
);

/** `PATCH /api/v1/webhooks/:id` body: the fields to change. */
export const WebhookEndpointUpdate = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(WebhookEvents),
    description: Type.Optional(
      Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: "null removes it" }),
    ),
    status: Type.Optional(
      Type.Union([Type.Literal("enabled"), Type.Literal("disabled")], {
        description:
          "`enabled` enables the endpoint again (no `disabledReason`, failure count 0); `disabled` disables it by hand, ending its pending deliveries as failed. Deliveries that ended while it was disabled are not resent: redeliver them.",
      }),
    ),
  },
  {
    title: "WebhookEndpointUpdate",
    additionalProperties: false,
    minProperties: 1,
    examples: [{ events: ["render.succeeded", "render.failed", "render.cancelled"], status: "enabled" }],
  },
);

const EndpointIdParam = Type.String({ maxLength: 64, examples: [ENDPOINT_ID] });

/** `:id` of an endpoint. */
export const WebhookParams = Type.Object({ id: EndpointIdParam });

/** `:id` and `:deliveryId`. */
export const WebhookDeliveryParams = Type.Object({
  id: EndpointIdParam,
  deliveryId: Type.String({ maxLength: 64, examples: [DELIVERY_ID] }),
});

/** One delivery of an event to an endpoint (the delivery log). */
export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ examples: [DELIVERY_ID] }),
    endpointId: Type.String(),
    messageId: Type.String({
      description: "The `webhook-id` header: the same on every try and redelivery (deduplicate on it)",
    }),
    eventType: Type.String({ description: "One of the event types, or `webhook.test`" }),
    status: Type.Union(
      WEBHOOK_DELIVERY_STATUSES.map((s) => Type.Literal(s)),
      {
        description: "`pending` while tries remain, then `succeeded` or `failed`",
      },
    ),
    tries: Type.Integer({ description: "HTTP tries made (redeliveries included)" }),
    lastResponseStatus: Type.Union([Type.Integer(), Type.Null()], {
      description: "HTTP status of the last try (null: no response)",
    }),
    lastLatencyMs: Type.Union([Type.Integer(), Type.Null()], {
      description: "Duration of the last try, milliseconds",
    }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    lastTriedAt: Type.Union([Timestamp(), Type.Null()]),
    nextTryAt: Type.Union([Timestamp(), Type.Null()], {
      description: "When the next try is due (pending only)",
    }),
    createdAt: Timestamp(),
    payload: Type.Object(
      {
        type: Type.String(),
        timestamp: Timestamp(),
        data: Type.Object(
          {},
          { additionalProperties: true, description: "The resource as the API returns it" },
        ),
      },
      { description: "The message body" },
    ),
  },
  {
    title: "WebhookDelivery",
    examples: [
      {
        id: DELIVERY_ID,
        endpointId: ENDPOINT_ID,
        messageId: "evt_01JD3Q7A2B3C4D5E6F7G8H9J0M",
        eventType: "render.succeeded",
        status: "pending",
        tries: 1,
        lastResponseStatus: 500,
        lastLatencyMs: 41,
        lastError: "The receiver answered 500",
        lastTriedAt: "2026-11-24T10:01:00.000Z",
        nextTryAt: "2026-11-24T10:01:05.000Z",
        createdAt: "2026-11-24T10:01:00.000Z",
        payload: {
          type: "render.succeeded",
          timestamp: "2026-11-24T10:01:00.000Z",
          data: { id: "rnd_01JD3Q5V0M8YB6Y2J4T6Z9KX1C", status: "succeeded" },
        },
      },
    ],
  },
);

/** The account's callback secret. */
export const CallbackSecret = Type.Object(
  {
    secret: Type.String({
      description:
        "Signs every per-request callback (`callbackUrl`) of the account, Standard Webhooks format",
      examples: [SECRET_EXAMPLE],
    }),
    createdAt: Timestamp(),
  },
  { title: "CallbackSecret", examples: [{ secret: SECRET_EXAMPLE, createdAt: "2026-11-24T10:00:00.000Z" }] },
);

/** The schema of one webhook message whose `data` is `data`. */
function messageSchema(type: string, data: TSchema) {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Timestamp("When the event happened"),
      data,
    },
    { title: `${type} message` },
  );
}

const SIGNATURE_HEADERS = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "Message id (`evt_…`), the same on every retry and redelivery: deduplicate on it",
    schema: { type: "string" },
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Seconds since the epoch when this try was signed",
    schema: { type: "string" },
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the secret (Standard Webhooks); verify with the `standardwebhooks` library",
    schema: { type: "string" },
  },
] as const;

/**
 * The OpenAPI 3.1 `webhooks` section: the messages Cutroom POSTs to endpoints and callback URLs,
 * one per event type, with their signature headers.
 * @param resources - the resource schemas carried as `data`.
 */
export function webhookMessagesDoc(resources: {
  render: TSchema;
  generation: TSchema;
  transcription: TSchema;
  upload: TSchema;
  autoedit: TSchema;
}) {
  const data: Record<string, TSchema> = {
    "render.succeeded": resources.render,
    "render.failed": resources.render,
    "render.cancelled": resources.render,
    "generation.succeeded": resources.generation,
    "generation.failed": resources.generation,
    "transcription.succeeded": resources.transcription,
    "transcription.failed": resources.transcription,
    "upload.created": resources.upload,
    "autoedit.succeeded": resources.autoedit,
    "autoedit.failed": resources.autoedit,
    "webhook.test": Type.Object({ endpointId: Type.String(), message: Type.String() }),
  };
  return Object.fromEntries(
    Object.entries(data).map(([type, schema]) => [
      type,
      {
        post: {
          // "render.succeeded" → "renderSucceededEvent".
          operationId: `${type.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase())}Event`,
          summary: `${type} event`,
          tags: ["Webhooks"],
          parameters: [...SIGNATURE_HEADERS],
          requestBody: {
            required: true,
            content: { "application/json": { schema: messageSchema(type, schema) } },
          },
          responses: {
            "200": { description: "Any 2xx within 10 s acknowledges the message; anything else is retried" },
          },
        },
      },
    ]),
  );
}
