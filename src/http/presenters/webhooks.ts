import type { WebhookDeliveryRow, WebhookEndpointRow } from "../../db/repositories/webhooks.ts";
import type { CallbackSecret } from "../../domain/webhooks/callback-secret.ts";

/** Endpoint row → WebhookEndpoint resource (without its secret). */
export function presentWebhookEndpoint(e: WebhookEndpointRow) {
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

/** Endpoint row → WebhookEndpointWithSecret resource (on creation and rotation only). */
export function presentWebhookEndpointWithSecret(e: WebhookEndpointRow) {
  return { ...presentWebhookEndpoint(e), secret: e.secret };
}

/** Delivery row → WebhookDelivery resource. */
export function presentWebhookDelivery(d: WebhookDeliveryRow) {
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

/** The account's callback secret → CallbackSecret resource. */
export function presentCallbackSecret(s: CallbackSecret) {
  return { secret: s.secret, createdAt: s.createdAt.toISOString() };
}
