import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import {
  webhookCallbackSecrets,
  webhookCallbacks,
  webhookDeliveries,
  webhookEndpoints,
} from "../schema/webhooks.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** A webhook endpoint row. */
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
/** Values of a new webhook endpoint. */
export type NewWebhookEndpoint = typeof webhookEndpoints.$inferInsert;
/** A webhook delivery row. */
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
/** Values of a new webhook delivery. */
export type NewWebhookDelivery = typeof webhookDeliveries.$inferInsert;

/** Inserts an endpoint. */
export async function insertWebhookEndpoint(db: Db, row: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
  const [r] = await db.insert(webhookEndpoints).values(row).returning();
  return r as WebhookEndpointRow;
}

/** How many endpoints `userId` has. */
export async function countWebhookEndpoints(db: Db, userId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.userId, userId));
  return r?.n ?? 0;
}

/** One endpoint of `userId`, or null (also another owner's). */
export async function findWebhookEndpoint(
  db: Db,
  userId: string,
  id: string,
): Promise<WebhookEndpointRow | null> {
  const [r] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.id, id)))
    .limit(1);
  return r ?? null;
}

/** A page of a user's endpoints, newest first. */
export async function listWebhookEndpointsPage(
  db: Db,
  input: { userId: string; limit: number; afterId: string | undefined },
): Promise<{ rows: WebhookEndpointRow[]; hasMore: boolean }> {
  const conditions = [eq(webhookEndpoints.userId, input.userId)];
  return newestFirstPage(db, webhookEndpoints, conditions, input);
}

/** Deletes an endpoint of `userId` and (cascade) its deliveries. Returns whether one was deleted. */
export async function deleteWebhookEndpoint(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** Replaces an endpoint's secret. Returns the row after the change, or null. */
export async function setWebhookEndpointSecret(
  db: Db,
  input: { userId: string; id: string; secret: string; now: Date },
): Promise<WebhookEndpointRow | null> {
  const [r] = await db
    .update(webhookEndpoints)
    .set({ secret: input.secret, updatedAt: input.now })
    .where(and(eq(webhookEndpoints.userId, input.userId), eq(webhookEndpoints.id, input.id)))
    .returning();
  return r ?? null;
}

/** The user's enabled endpoints subscribed to `eventType`. */
export async function subscribedWebhookEndpoints(
  db: Db,
  userId: string,
  eventType: string,
): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.userId, userId),
        eq(webhookEndpoints.status, "enabled"),
        sql`${webhookEndpoints.events} @> ${JSON.stringify([eventType])}::jsonb`,
      ),
    );
}

/** Inserts deliveries (one statement). */
export async function insertWebhookDeliveries(
  db: Db,
  rows: NewWebhookDelivery[],
): Promise<WebhookDeliveryRow[]> {
  if (rows.length === 0) return [];
  return db.insert(webhookDeliveries).values(rows).returning();
}

/** One delivery of an endpoint of `userId`, or null. */
export async function findWebhookDelivery(
  db: Db,
  input: { userId: string; endpointId: string; id: string },
): Promise<WebhookDeliveryRow | null> {
  const [r] = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.userId, input.userId),
        eq(webhookDeliveries.endpointId, input.endpointId),
        eq(webhookDeliveries.id, input.id),
      ),
    )
    .limit(1);
  return r ?? null;
}

/** A delivery by id with its endpoint (null for a callback), for the delivery job. */
export async function readWebhookDeliveryForTry(
  db: Db,
  id: string,
): Promise<{ delivery: WebhookDeliveryRow; endpoint: WebhookEndpointRow | null } | null> {
  const [r] = await db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, id))
    .limit(1);
  return r ?? null;
}

/** A page of an endpoint's deliveries, newest first. */
export async function listWebhookDeliveriesPage(
  db: Db,
  input: { endpointId: string; limit: number; afterId: string | undefined },
): Promise<{ rows: WebhookDeliveryRow[]; hasMore: boolean }> {
  const conditions = [eq(webhookDeliveries.endpointId, input.endpointId)];
  return newestFirstPage(db, webhookDeliveries, conditions, input);
}

/**
 * Writes the outcome of a try, fenced: applies only while the delivery is pending on `seq`
 * with `tries` tries made (so two jobs racing on one delivery write once).
 * @returns the row after the change, or null when the delivery moved on.
 */
export async function recordWebhookTry(
  db: Db,
  input: {
    id: string;
    seq: number;
    tries: number;
    set: Pick<
      NewWebhookDelivery,
      "status" | "lastResponseStatus" | "lastLatencyMs" | "lastError" | "lastTriedAt" | "nextTryAt"
    >;
  },
): Promise<WebhookDeliveryRow | null> {
  const [r] = await db
    .update(webhookDeliveries)
    .set({
      ...input.set,
      tries: sql`${webhookDeliveries.tries} + 1`,
      roundTries: sql`${webhookDeliveries.roundTries} + 1`,
    })
    .where(
      and(
        eq(webhookDeliveries.id, input.id),
        eq(webhookDeliveries.seq, input.seq),
        eq(webhookDeliveries.tries, input.tries),
        eq(webhookDeliveries.status, "pending"),
      ),
    )
    .returning();
  return r ?? null;
}

/**
 * Queues a delivery again (manual redelivery): pending, a new `seq` (older jobs stop), the
 * retry schedule from its start. Returns the row after the change, or null when the delivery
 * no longer exists (its endpoint was deleted).
 */
export async function requeueWebhookDelivery(
  db: Db,
  id: string,
  now: Date,
): Promise<WebhookDeliveryRow | null> {
  const [r] = await db
    .update(webhookDeliveries)
    .set({ status: "pending", seq: sql`${webhookDeliveries.seq} + 1`, roundTries: 0, nextTryAt: now })
    .where(eq(webhookDeliveries.id, id))
    .returning();
  return r ?? null;
}

/**
 * After a successful try: the endpoint's failure count starts again and a disabled endpoint is
 * enabled again (a test send or redelivery that gets through re-enables it).
 */
export async function markWebhookEndpointHealthy(db: Db, id: string, now: Date): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({
      consecutiveFailures: 0,
      status: "enabled",
      disabledReason: null,
      disabledAt: null,
      updatedAt: now,
    })
    .where(
      and(
        eq(webhookEndpoints.id, id),
        sql`(${webhookEndpoints.consecutiveFailures} <> 0 or ${webhookEndpoints.status} <> 'enabled')`,
      ),
    );
}

/**
 * After a delivery failed every try: counts it; at `disableAfter` in a row the enabled endpoint
 * is disabled with `reason` (see {@link disableWebhookEndpoint}).
 * @returns whether the endpoint was disabled now.
 */
export async function countWebhookEndpointFailure(
  db: Db,
  input: { id: string; disableAfter: number; reason: string; now: Date },
): Promise<boolean> {
  const [r] = await db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1`, updatedAt: input.now })
    .where(eq(webhookEndpoints.id, input.id))
    .returning({ failures: webhookEndpoints.consecutiveFailures, status: webhookEndpoints.status });
  if (r?.status !== "enabled" || r.failures < input.disableAfter) return false;
  return disableWebhookEndpoint(db, input);
}

/**
 * Disables an enabled endpoint with `reason`: new events skip it, and its pending deliveries
 * end as failed (a new `seq`, so their queued jobs stop). Run it in a transaction with the
 * change that decided it. An endpoint already disabled keeps its reason and time.
 * @returns whether the endpoint was enabled and is disabled now.
 */
export async function disableWebhookEndpoint(
  db: Db,
  input: { id: string; reason: string; now: Date },
): Promise<boolean> {
  const disabled = await db
    .update(webhookEndpoints)
    .set({ status: "disabled", disabledReason: input.reason, disabledAt: input.now, updatedAt: input.now })
    .where(and(eq(webhookEndpoints.id, input.id), eq(webhookEndpoints.status, "enabled")))
    .returning({ id: webhookEndpoints.id });
  if (disabled.length === 0) return false;
  await db
    .update(webhookDeliveries)
    .set({
      status: "failed",
      seq: sql`${webhookDeliveries.seq} + 1`,
      nextTryAt: null,
      lastError: "Not tried again: the endpoint was disabled",
    })
    .where(and(eq(webhookDeliveries.endpointId, input.id), eq(webhookDeliveries.status, "pending")));
  return true;
}

/**
 * Changes an endpoint's `url`, `events` and `description` (the fields given) and stamps
 * `updatedAt`.
 * @returns the row after the change, or null when `userId` has no endpoint `id`.
 */
export async function updateWebhookEndpoint(
  db: Db,
  input: {
    userId: string;
    id: string;
    set: Partial<Pick<NewWebhookEndpoint, "url" | "events" | "description">>;
    now: Date;
  },
): Promise<WebhookEndpointRow | null> {
  const [r] = await db
    .update(webhookEndpoints)
    .set({ ...input.set, updatedAt: input.now })
    .where(and(eq(webhookEndpoints.userId, input.userId), eq(webhookEndpoints.id, input.id)))
    .returning();
  return r ?? null;
}

/**
 * Deletes finished deliveries (`succeeded`, or `failed` for good) whose last try, or creation
 * when never tried, is before `before`; pending deliveries are never deleted. Covers endpoint
 * deliveries and per-request callbacks.
 * @returns the number of rows deleted.
 */
export async function deleteFinishedWebhookDeliveriesBefore(db: Db, before: Date): Promise<number> {
  const rows = await db
    .delete(webhookDeliveries)
    .where(
      and(
        // Literal, like the partial index `webhook_deliveries_finished_idx` it is served by.
        sql`${webhookDeliveries.status} in ('succeeded', 'failed')`,
        lt(sql`coalesce(${webhookDeliveries.lastTriedAt}, ${webhookDeliveries.createdAt})`, before),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.length;
}

/** Records the callback URL a render or generation was started with. */
export async function insertWebhookCallback(
  db: Db,
  row: { resourceId: string; userId: string; url: string },
): Promise<void> {
  await db.insert(webhookCallbacks).values(row);
}

/** The callback URL of a resource, or null. */
export async function findWebhookCallback(db: Db, resourceId: string): Promise<string | null> {
  const [r] = await db
    .select({ url: webhookCallbacks.url })
    .from(webhookCallbacks)
    .where(eq(webhookCallbacks.resourceId, resourceId))
    .limit(1);
  return r?.url ?? null;
}

/**
 * The account's callback secret, created with `candidate` when it has none yet.
 * @returns the secret and its creation time.
 */
export async function ensureCallbackSecret(
  db: Db,
  userId: string,
  candidate: string,
): Promise<{ secret: string; createdAt: Date }> {
  await db.insert(webhookCallbackSecrets).values({ userId, secret: candidate }).onConflictDoNothing();
  const [r] = await db
    .select({ secret: webhookCallbackSecrets.secret, createdAt: webhookCallbackSecrets.createdAt })
    .from(webhookCallbackSecrets)
    .where(eq(webhookCallbackSecrets.userId, userId))
    .limit(1);
  return r as { secret: string; createdAt: Date };
}

/** Replaces (or sets) the account's callback secret. */
export async function replaceCallbackSecret(
  db: Db,
  userId: string,
  secret: string,
  now: Date,
): Promise<{ secret: string; createdAt: Date }> {
  const [r] = await db
    .insert(webhookCallbackSecrets)
    .values({ userId, secret, createdAt: now })
    .onConflictDoUpdate({ target: webhookCallbackSecrets.userId, set: { secret, createdAt: now } })
    .returning({ secret: webhookCallbackSecrets.secret, createdAt: webhookCallbackSecrets.createdAt });
  return r as { secret: string; createdAt: Date };
}

/**
 * How many pending deliveries were queued before `delivery` (lower id) for its account and for
 * its target (the same endpoint, or the same callback URL): its place in the fair order.
 */
export async function countDeliveriesAhead(
  db: Db,
  delivery: Pick<WebhookDeliveryRow, "id" | "userId" | "endpointId" | "url">,
): Promise<{ account: number; target: number }> {
  const sameTarget = delivery.endpointId
    ? sql`${webhookDeliveries.endpointId} = ${delivery.endpointId}`
    : sql`${webhookDeliveries.endpointId} is null and ${webhookDeliveries.url} = ${delivery.url}`;
  const [r] = await db
    .select({
      account: sql<number>`count(*)::int`,
      target: sql<number>`(count(*) filter (where ${sameTarget}))::int`,
    })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.userId, delivery.userId),
        eq(webhookDeliveries.status, "pending"),
        lt(webhookDeliveries.id, delivery.id),
      ),
    );
  return { account: r?.account ?? 0, target: r?.target ?? 0 };
}
