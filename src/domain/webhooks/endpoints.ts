/**
 * The account's webhook endpoints: create (within the per-account cap), list, fetch, change
 * (including enabling and disabling), rotate the signing secret and delete.
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  countWebhookEndpoints,
  deleteWebhookEndpoint as deleteEndpointRow,
  disableWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpointsPage,
  markWebhookEndpointHealthy,
  setWebhookEndpointSecret,
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from "../../db/repositories/webhooks.ts";
import type { WebhookEventType } from "../../db/schema/webhooks.ts";
import { conflict, notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { newWebhookSecret } from "./secret.ts";
import { checkWebhookTarget } from "./target.ts";

/** Endpoints one account may have (each event is written once per subscribed endpoint). */
export const MAX_WEBHOOK_ENDPOINTS = 20;

/** Why an endpoint its owner disabled is disabled. */
const DISABLED_BY_OWNER = "Disabled by the owner";

/** What the endpoint use cases need. */
export interface WebhookEndpointDeps {
  db: Db;
  clock: Clock;
  /** WEBHOOK_ALLOW_PRIVATE: accept loopback/private targets and http. */
  allowPrivate: boolean;
}

/** The fields of a new endpoint. */
export interface WebhookEndpointInput {
  url: string;
  description?: string | null | undefined;
  events: WebhookEventType[];
}

/** The fields of a change to an endpoint: each one given is changed; `description: null` removes it. */
export interface WebhookEndpointChange {
  url?: string | undefined;
  description?: string | null | undefined;
  events?: WebhookEventType[] | undefined;
  /** `enabled` enables it again (failure count back to 0); `disabled` disables it by its owner. */
  status?: "enabled" | "disabled" | undefined;
}

/**
 * Creates an endpoint of `userId` with a fresh signing secret.
 *
 * @returns the stored row, secret included (shown to the owner once).
 * @throws AppError 400 `invalid_request` naming `/url` when the target is refused or does not
 *   resolve; 409 `conflict` (with `limit`) when the account already has
 *   {@link MAX_WEBHOOK_ENDPOINTS} endpoints.
 */
export async function createWebhookEndpoint(
  deps: WebhookEndpointDeps,
  userId: string,
  input: WebhookEndpointInput,
): Promise<WebhookEndpointRow> {
  await checkWebhookTarget(input.url, deps.allowPrivate, "/url");
  if ((await countWebhookEndpoints(deps.db, userId)) >= MAX_WEBHOOK_ENDPOINTS) {
    throw conflict(`This account already has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`, {
      limit: MAX_WEBHOOK_ENDPOINTS,
    });
  }
  const now = deps.clock.now();
  return insertWebhookEndpoint(deps.db, {
    id: newId("whk", now.getTime()),
    userId,
    url: input.url,
    description: input.description ?? null,
    events: input.events,
    secret: newWebhookSecret(),
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * A page of the endpoints of `userId`, newest first.
 * @param window - at most `limit` rows after the endpoint `afterId` (from the first when undefined).
 * @returns the rows and whether more follow.
 */
export function listWebhookEndpoints(
  db: Db,
  userId: string,
  window: { limit: number; afterId: string | undefined },
): Promise<{ rows: WebhookEndpointRow[]; hasMore: boolean }> {
  return listWebhookEndpointsPage(db, { userId, ...window });
}

/**
 * One endpoint of `userId`.
 * @throws AppError 404 `not_found` when it has none with that id (another owner's included).
 */
export async function getWebhookEndpoint(db: Db, userId: string, id: string): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(db, userId, id);
  if (!endpoint) throw notFound(`Webhook endpoint ${id}`);
  return endpoint;
}

/**
 * Changes the given fields of an endpoint of `userId`, in one transaction with its enabling
 * (failure count back to 0) or disabling (pending deliveries end as failed; an endpoint already
 * disabled keeps its reason).
 *
 * @returns the row after the change.
 * @throws AppError 400 `invalid_request` naming `/url` when a new target is refused;
 *   404 `not_found` when `userId` has no endpoint `id`.
 */
export async function changeWebhookEndpoint(
  deps: WebhookEndpointDeps,
  userId: string,
  id: string,
  change: WebhookEndpointChange,
): Promise<WebhookEndpointRow> {
  const { status, ...fields } = change;
  if (fields.url !== undefined) await checkWebhookTarget(fields.url, deps.allowPrivate, "/url");
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const updated = await updateWebhookEndpoint(tx, { userId, id, set: fields, now });
    if (!updated || status === undefined) return updated;
    if (status === "enabled") await markWebhookEndpointHealthy(tx, id, now);
    else await disableWebhookEndpoint(tx, { id, reason: DISABLED_BY_OWNER, now });
    return findWebhookEndpoint(tx, userId, id);
  });
  if (!row) throw notFound(`Webhook endpoint ${id}`);
  return row;
}

/**
 * Replaces the signing secret of an endpoint of `userId`.
 * @returns the row after the change, its new secret included.
 * @throws AppError 404 `not_found` when `userId` has no endpoint `id`.
 */
export async function rotateWebhookEndpointSecret(
  deps: Pick<WebhookEndpointDeps, "db" | "clock">,
  userId: string,
  id: string,
): Promise<WebhookEndpointRow> {
  const row = await setWebhookEndpointSecret(deps.db, {
    userId,
    id,
    secret: newWebhookSecret(),
    now: deps.clock.now(),
  });
  if (!row) throw notFound(`Webhook endpoint ${id}`);
  return row;
}

/** Deletes an endpoint of `userId` and its delivery log; nothing when it has none (idempotent). */
export async function deleteWebhookEndpoint(db: Db, userId: string, id: string): Promise<void> {
  await deleteEndpointRow(db, userId, id);
}
