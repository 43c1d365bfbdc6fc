import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import {
  countWebhookEndpoints,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  ensureCallbackSecret,
  findWebhookDelivery,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookDeliveriesPage,
  listWebhookEndpointsPage,
  markWebhookEndpointHealthy,
  replaceCallbackSecret,
  requeueWebhookDelivery,
  setWebhookEndpointSecret,
  updateWebhookEndpoint,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from "../../../db/repositories/webhooks.ts";
import { enqueueDelivery, queueDeliveries } from "../../../domain/webhooks/events.ts";
import { newWebhookSecret } from "../../../domain/webhooks/secret.ts";
import { checkWebhookTarget } from "../../../domain/webhooks/target.ts";
import { conflict, notFound } from "../../../errors.ts";
import { newId } from "../../../ids.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import { decodeCursor, toPage } from "../../pagination.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import {
  CallbackSecret,
  WebhookDelivery,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  WebhookParams,
} from "../../schemas/webhook.ts";
import { type App, requireAuth } from "../../types.ts";

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  db: Db;
  clock: Clock;
  enqueue: Enqueue;
  /** WEBHOOK_ALLOW_PRIVATE: accept loopback/private targets and http. */
  allowPrivate: boolean;
}

/** Endpoint row → WebhookEndpoint resource (without its secret). */
function presentEndpoint(e: WebhookEndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    status: e.status,
    disabledReason: e.disabledReason,
    disabledAt: e.disabledAt?.toISOString() ?? null,
    consecutiveFailures: e.consecutiveFailures,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** Delivery row → WebhookDelivery resource. */
function presentDelivery(d: WebhookDeliveryRow) {
  return {
    id: d.id,
    endpointId: d.endpointId as string,
    messageId: d.messageId,
    eventType: d.eventType,
    status: d.status,
    tries: d.tries,
    lastResponseStatus: d.lastResponseStatus,
    lastLatencyMs: d.lastLatencyMs,
    lastError: d.lastError,
    lastTriedAt: d.lastTriedAt?.toISOString() ?? null,
    nextTryAt: d.status === "pending" ? (d.nextTryAt?.toISOString() ?? null) : null,
    createdAt: d.createdAt.toISOString(),
    payload: d.payload,
  };
}

const TAGS = ["Webhooks"];
/** Endpoints one account may have (each event is written once per subscribed endpoint). */
export const MAX_WEBHOOK_ENDPOINTS = 20;
const ERRORS_ONE = [...AUTH_ERRORS, 404] as const;
const ERRORS_WRITE = [...AUTH_ERRORS, 403, 404] as const;

/**
 * Webhook routes: account-level endpoints (create, list, get, change, delete, rotate secret, test send),
 * each endpoint's delivery log with manual redelivery, and the account's callback secret that
 * signs per-request `callbackUrl` messages (docs/webhooks.md).
 */
export function registerWebhookRoutes(app: App, deps: WebhookRouteDeps): void {
  const { db } = deps;
  const owned = async (userId: string, id: string) => {
    const endpoint = await findWebhookEndpoint(db, userId, id);
    if (!endpoint) throw notFound(`Webhook endpoint ${id}`);
    return endpoint;
  };

  app.post(
    "/api/v1/webhooks",
    {
      config: { scope: "write" },
      schema: {
        operationId: "createWebhookEndpoint",
        summary: "Create a webhook endpoint",
        description:
          "Subscribes `url` to `events`. **201** with the endpoint and its signing `secret`, shown only in this response (and on rotation). The URL is checked at once: not https, or a loopback/private/link-local/metadata address (unless WEBHOOK_ALLOW_PRIVATE=true), or a host that does not resolve → 400 naming `/url`.",
        tags: TAGS,
        body: WebhookEndpointCreate,
        response: responses({ 201: WebhookEndpointWithSecret }, [...AUTH_ERRORS, 403, 409], {
          409: `\`conflict\`: the account already has ${MAX_WEBHOOK_ENDPOINTS} endpoints; delete one first`,
        }),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const body = request.body;
      await checkWebhookTarget(body.url, deps.allowPrivate, "/url");
      if ((await countWebhookEndpoints(db, auth.userId)) >= MAX_WEBHOOK_ENDPOINTS) {
        throw conflict(
          `This account already has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`,
          {
            limit: MAX_WEBHOOK_ENDPOINTS,
          },
        );
      }
      const now = deps.clock.now();
      const endpoint = await insertWebhookEndpoint(db, {
        id: newId("whk", now.getTime()),
        userId: auth.userId,
        url: body.url,
        description: body.description ?? null,
        events: body.events,
        secret: newWebhookSecret(),
        createdAt: now,
        updatedAt: now,
      });
      reply.header("Location", `/api/v1/webhooks/${endpoint.id}`);
      return reply.code(201).send({ ...presentEndpoint(endpoint), secret: endpoint.secret });
    },
  );

  app.get(
    "/api/v1/webhooks",
    {
      schema: {
        operationId: "listWebhookEndpoints",
        summary: "List the caller's webhook endpoints, newest first",
        tags: TAGS,
        querystring: Type.Object({ ...PageQuery }),
        response: responses({ 200: Page(WebhookEndpoint, "WebhookEndpointPage") }),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const query = request.query;
      const page = await listWebhookEndpointsPage(db, {
        userId: auth.userId,
        limit: query.limit ?? 25,
        afterId: decodeCursor(query.cursor),
      });
      return toPage(page, presentEndpoint);
    },
  );

  app.get(
    "/api/v1/webhooks/callback-secret",
    {
      config: { scope: "write" },
      // GET only: an automatic HEAD twin would be one more write-scoped route that shows nothing.
      exposeHeadRoute: false,
      schema: {
        operationId: "getCallbackSecret",
        summary: "The account's callback secret",
        description:
          "The secret that signs the messages sent to a render's or generation's `callbackUrl` (Standard Webhooks, like endpoint messages). Created on first use and the same until rotated. Needs the write scope because it reveals a secret.",
        tags: TAGS,
        response: responses({ 200: CallbackSecret }, [...AUTH_ERRORS, 403]),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const s = await ensureCallbackSecret(db, auth.userId, newWebhookSecret());
      return { secret: s.secret, createdAt: s.createdAt.toISOString() };
    },
  );

  app.post(
    "/api/v1/webhooks/callback-secret/rotate",
    {
      config: { scope: "write" },
      schema: {
        operationId: "rotateCallbackSecret",
        summary: "Replace the account's callback secret",
        description:
          "Every callback sent from now on (retries of earlier ones included) is signed with the new secret.",
        tags: TAGS,
        response: responses({ 200: CallbackSecret }, [...AUTH_ERRORS, 403]),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const s = await replaceCallbackSecret(db, auth.userId, newWebhookSecret(), deps.clock.now());
      return { secret: s.secret, createdAt: s.createdAt.toISOString() };
    },
  );

  app.get(
    "/api/v1/webhooks/:id",
    {
      schema: {
        operationId: "getWebhookEndpoint",
        summary: "Fetch a webhook endpoint",
        description: "Shows whether it is disabled and why (`disabledReason`).",
        tags: TAGS,
        params: WebhookParams,
        response: responses({ 200: WebhookEndpoint }, ERRORS_ONE),
      },
    },
    async (request) => presentEndpoint(await owned(requireAuth(request).userId, request.params.id)),
  );

  app.patch(
    "/api/v1/webhooks/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "updateWebhookEndpoint",
        summary: "Change a webhook endpoint",
        description:
          'Changes the fields given: `url` (checked like on creation: 400 naming `/url`), `events` (events from now on), `description` (`null` removes it) and `status`, the same field the endpoint shows. `status: "enabled"` enables a disabled endpoint again and starts its failure count at 0; `status: "disabled"` disables it with `disabledReason` "Disabled by the owner" and ends its pending deliveries as failed (an endpoint already disabled keeps its reason). Deliveries that ended while it was disabled are not resent on re-enabling: redeliver the ones you want. Pending retries go to the new `url`. **200** with the endpoint (never its secret).',
        tags: TAGS,
        params: WebhookParams,
        body: WebhookEndpointUpdate,
        response: responses({ 200: WebhookEndpoint }, ERRORS_WRITE),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const { id } = request.params;
      const { status, ...fields } = request.body;
      if (fields.url !== undefined) await checkWebhookTarget(fields.url, deps.allowPrivate, "/url");
      const now = deps.clock.now();
      const row = await db.transaction(async (tx) => {
        const updated = await updateWebhookEndpoint(tx, { userId: auth.userId, id, set: fields, now });
        if (!updated || status === undefined) return updated;
        if (status === "enabled") await markWebhookEndpointHealthy(tx, id, now);
        else await disableWebhookEndpoint(tx, { id, reason: "Disabled by the owner", now });
        return findWebhookEndpoint(tx, auth.userId, id);
      });
      if (!row) throw notFound(`Webhook endpoint ${id}`);
      return presentEndpoint(row);
    },
  );

  app.delete(
    "/api/v1/webhooks/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "deleteWebhookEndpoint",
        summary: "Delete a webhook endpoint and its delivery log (idempotent)",
        description: "Answers 204 whether or not it existed; pending deliveries to it are dropped.",
        tags: TAGS,
        params: WebhookParams,
        response: responses({ 204: null }, [...AUTH_ERRORS, 403]),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      await deleteWebhookEndpoint(db, auth.userId, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    "/api/v1/webhooks/:id/rotate-secret",
    {
      config: { scope: "write" },
      schema: {
        operationId: "rotateWebhookSecret",
        summary: "Replace an endpoint's signing secret",
        description:
          "**200** with the endpoint and its new `secret` (shown only now). Every message sent from now on, retries included, is signed with it; signatures made with the old secret no longer verify.",
        tags: TAGS,
        params: WebhookParams,
        response: responses({ 200: WebhookEndpointWithSecret }, ERRORS_WRITE),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const row = await setWebhookEndpointSecret(db, {
        userId: auth.userId,
        id: request.params.id,
        secret: newWebhookSecret(),
        now: deps.clock.now(),
      });
      if (!row) throw notFound(`Webhook endpoint ${request.params.id}`);
      return { ...presentEndpoint(row), secret: row.secret };
    },
  );

  app.post(
    "/api/v1/webhooks/:id/test",
    {
      config: { scope: "write" },
      schema: {
        operationId: "testWebhookEndpoint",
        summary: "Send a test event to an endpoint",
        description:
          "Queues a `webhook.test` message to this endpoint (whatever its events, even when disabled; a successful delivery enables a disabled endpoint again). **202** with the delivery; follow it in the delivery log.",
        tags: TAGS,
        params: WebhookParams,
        response: responses({ 202: WebhookDelivery }, ERRORS_WRITE),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const endpoint = await owned(auth.userId, request.params.id);
      const now = deps.clock.now();
      const delivery = await db.transaction(async (tx) => {
        const [row] = await queueDeliveries(deps.enqueue, tx, [
          {
            id: newId("dlv", now.getTime()),
            userId: auth.userId,
            endpointId: endpoint.id,
            messageId: newId("evt", now.getTime()),
            eventType: "webhook.test",
            payload: {
              type: "webhook.test",
              timestamp: now.toISOString(),
              data: { endpointId: endpoint.id, message: "A test message from Cutroom" },
            },
            nextTryAt: now,
            createdAt: now,
          },
        ]);
        return row as WebhookDeliveryRow;
      });
      return reply.code(202).send(presentDelivery(delivery));
    },
  );

  app.get(
    "/api/v1/webhooks/:id/deliveries",
    {
      schema: {
        operationId: "listWebhookDeliveries",
        summary: "An endpoint's delivery log, newest first",
        description:
          "Each message sent to the endpoint: event type, status, tries, the last try's response code, latency and error, and when the next try is due.",
        tags: TAGS,
        params: WebhookParams,
        querystring: Type.Object({ ...PageQuery }),
        response: responses({ 200: Page(WebhookDelivery, "WebhookDeliveryPage") }, ERRORS_ONE),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const endpoint = await owned(auth.userId, request.params.id);
      const query = request.query;
      const page = await listWebhookDeliveriesPage(db, {
        endpointId: endpoint.id,
        limit: query.limit ?? 25,
        afterId: decodeCursor(query.cursor),
      });
      return toPage(page, presentDelivery);
    },
  );

  app.post(
    "/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver",
    {
      config: { scope: "write" },
      schema: {
        operationId: "redeliverWebhook",
        summary: "Send a delivery again",
        description:
          "Queues the same message (same `webhook-id` and body, signed afresh with the current secret) with a fresh retry schedule, whatever its status. **202** with the delivery.",
        tags: TAGS,
        params: WebhookDeliveryParams,
        response: responses({ 202: WebhookDelivery }, ERRORS_WRITE),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { id, deliveryId } = request.params;
      const found = await findWebhookDelivery(db, { userId: auth.userId, endpointId: id, id: deliveryId });
      if (!found) throw notFound(`Delivery ${deliveryId} of webhook endpoint ${id}`);
      const row = await db.transaction(async (tx) => {
        const requeued = await requeueWebhookDelivery(tx, found.id, deps.clock.now());
        // Gone since the check above (its endpoint was deleted meanwhile): as if never found.
        if (!requeued) return null;
        await enqueueDelivery(deps.enqueue, tx, requeued);
        return requeued;
      });
      if (!row) throw notFound(`Delivery ${deliveryId} of webhook endpoint ${id}`);
      return reply.code(202).send(presentDelivery(row));
    },
  );
}
