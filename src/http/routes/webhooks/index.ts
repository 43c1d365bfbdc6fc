import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import { getCallbackSecret, rotateCallbackSecret } from "../../../domain/webhooks/callback-secret.ts";
import {
  listWebhookDeliveries,
  redeliverWebhook,
  sendTestWebhook,
} from "../../../domain/webhooks/deliveries.ts";
import {
  changeWebhookEndpoint,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  MAX_WEBHOOK_ENDPOINTS,
  rotateWebhookEndpointSecret,
} from "../../../domain/webhooks/endpoints.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import { pageWindow, toPage } from "../../pagination.ts";
import {
  presentCallbackSecret,
  presentWebhookDelivery,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
} from "../../presenters/webhooks.ts";
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
import type { KeyApp } from "../../types.ts";

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  db: Db;
  clock: Clock;
  enqueue: Enqueue;
  /** WEBHOOK_ALLOW_PRIVATE: accept loopback/private targets and http. */
  allowPrivate: boolean;
}

const TAGS = ["Webhooks"];
const ERRORS_ONE = [...AUTH_ERRORS, 404] as const;
const ERRORS_WRITE = [...AUTH_ERRORS, 403, 404] as const;

/**
 * Webhook routes: account-level endpoints (create, list, get, change, delete, rotate secret, test send),
 * each endpoint's delivery log with manual redelivery, and the account's callback secret that
 * signs per-request `callbackUrl` messages (docs/webhooks.md).
 */
export function registerWebhookRoutes(app: KeyApp, deps: WebhookRouteDeps): void {
  const { db } = deps;

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
      const auth = request.auth;
      const endpoint = await createWebhookEndpoint(deps, auth.userId, request.body);
      reply.header("Location", `/api/v1/webhooks/${endpoint.id}`);
      return reply.code(201).send(presentWebhookEndpointWithSecret(endpoint));
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
      const auth = request.auth;
      const page = await listWebhookEndpoints(db, auth.userId, pageWindow(request.query));
      return toPage(page, presentWebhookEndpoint);
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
      const auth = request.auth;
      return presentCallbackSecret(await getCallbackSecret(db, auth.userId));
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
      const auth = request.auth;
      return presentCallbackSecret(await rotateCallbackSecret(deps, auth.userId));
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
    async (request) =>
      presentWebhookEndpoint(await getWebhookEndpoint(db, request.auth.userId, request.params.id)),
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
      const auth = request.auth;
      const row = await changeWebhookEndpoint(deps, auth.userId, request.params.id, request.body);
      return presentWebhookEndpoint(row);
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
      const auth = request.auth;
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
      const auth = request.auth;
      const row = await rotateWebhookEndpointSecret(deps, auth.userId, request.params.id);
      return presentWebhookEndpointWithSecret(row);
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
      const auth = request.auth;
      const delivery = await sendTestWebhook(deps, auth.userId, request.params.id);
      return reply.code(202).send(presentWebhookDelivery(delivery));
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
      const auth = request.auth;
      const page = await listWebhookDeliveries(db, auth.userId, request.params.id, pageWindow(request.query));
      return toPage(page, presentWebhookDelivery);
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
      const auth = request.auth;
      const { id, deliveryId } = request.params;
      const row = await redeliverWebhook(deps, auth.userId, { endpointId: id, deliveryId });
      return reply.code(202).send(presentWebhookDelivery(row));
    },
  );
}
