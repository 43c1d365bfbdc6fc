import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users.ts";

/** The event types a webhook endpoint may subscribe to (`webhook.test` is sent on request only). */
export const WEBHOOK_EVENT_TYPES = [
  "render.succeeded",
  "render.failed",
  "render.cancelled",
  "generation.succeeded",
  "generation.failed",
  "transcription.succeeded",
  "transcription.failed",
  "upload.created",
  "autoedit.succeeded",
  "autoedit.failed",
] as const;
/** One subscribable event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Statuses of a webhook endpoint. */
export type WebhookEndpointStatus = "enabled" | "disabled";
/** Statuses of a delivery: `pending` until a try succeeds or the retries run out. */
export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
/** One delivery status. */
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** The body of one webhook message (Standard Webhooks payload shape). */
export interface WebhookPayload {
  type: string;
  /** When the event happened, ISO 8601. */
  timestamp: string;
  /** The resource as the API returns it. */
  data: Record<string, unknown>;
}

/**
 * An account's webhook endpoints. `secret` (`whsec_<base64>`) signs every message to the
 * endpoint; it is stored as is because signing needs it, and shown to the owner only when the
 * endpoint is created or the secret rotated. `consecutive_failures` counts deliveries whose
 * tries all failed since the last successful try; at the configured count the endpoint is
 * disabled with `disabled_reason`.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    events: jsonb("events").$type<WebhookEventType[]>().notNull(),
    secret: text("secret").notNull(),
    status: text("status").$type<WebhookEndpointStatus>().notNull().default("enabled"),
    disabledReason: text("disabled_reason"),
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_user_idx").on(t.userId, t.id)],
);

/**
 * One message to one target: an endpoint (`endpoint_id`) or a request's callback URL
 * (`endpoint_id` null, `url` set). Written in the transaction of the change that caused the
 * event, together with its first delivery job (outbox). `message_id` is the `webhook-id`
 * header, the same on every try and redelivery so that receivers can deduplicate. `seq` fences
 * the delivery jobs: a job only acts while its `seq` is the row's (a redelivery bumps it).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** Callback URL (per-request callbacks only; endpoint deliveries use the endpoint's URL). */
    url: text("url"),
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").$type<WebhookPayload>().notNull(),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    /** HTTP tries made, redeliveries included. */
    tries: integer("tries").notNull().default(0),
    /** Tries since the delivery was (re)queued: the position in the retry schedule. */
    roundTries: integer("round_tries").notNull().default(0),
    seq: integer("seq").notNull().default(1),
    lastResponseStatus: integer("last_response_status"),
    lastLatencyMs: integer("last_latency_ms"),
    lastError: text("last_error"),
    lastTriedAt: timestamp("last_tried_at", { withTimezone: true, mode: "date" }),
    nextTryAt: timestamp("next_try_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.id),
    // The hourly retention prune: finished rows by when they were last active.
    index("webhook_deliveries_finished_idx")
      .on(sql`coalesce(${t.lastTriedAt}, ${t.createdAt})`)
      .where(sql`${t.status} in ('succeeded', 'failed')`),
  ],
);

/**
 * Per-request callbacks: the `callbackUrl` a render or generation was started with, written
 * with the resource. Its messages are signed with the account's callback secret.
 */
export const webhookCallbacks = pgTable("webhook_callbacks", {
  resourceId: text("resource_id").primaryKey(),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  url: text("url").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/** The account's callback secret (`whsec_…`), signing every per-request callback. */
export const webhookCallbackSecrets = pgTable("webhook_callback_secrets", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
