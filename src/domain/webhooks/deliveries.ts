/**
 * The deliveries of an account's webhook endpoints: the delivery log, test sends and manual
 * redelivery. Each queued delivery's first job is sent in the transaction that writes it.
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  findWebhookDelivery,
  listWebhookDeliveriesPage,
  requeueWebhookDelivery,
  type WebhookDeliveryRow,
} from "../../db/repositories/webhooks.ts";
import { notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import { getWebhookEndpoint } from "./endpoints.ts";
import { enqueueDelivery, queueDeliveries } from "./events.ts";

/** What the delivery use cases need. */
export interface WebhookDeliveryDeps {
  db: Db;
  clock: Clock;
  /** Sends delivery jobs inside the caller's transaction. */
  enqueue: Enqueue;
}

/**
 * A page of the delivery log of an endpoint of `userId`, newest first.
 * @param window - at most `limit` rows after the delivery `afterId` (from the first when undefined).
 * @returns the rows and whether more follow.
 * @throws AppError 404 `not_found` when `userId` has no endpoint `endpointId`.
 */
export async function listWebhookDeliveries(
  db: Db,
  userId: string,
  endpointId: string,
  window: { limit: number; afterId: string | undefined },
): Promise<{ rows: WebhookDeliveryRow[]; hasMore: boolean }> {
  const endpoint = await getWebhookEndpoint(db, userId, endpointId);
  return listWebhookDeliveriesPage(db, { endpointId: endpoint.id, ...window });
}

/**
 * Queues a `webhook.test` message to an endpoint of `userId`, whatever its events and even
 * when it is disabled (a successful delivery enables it again).
 * @returns the queued delivery.
 * @throws AppError 404 `not_found` when `userId` has no endpoint `endpointId`.
 */
export async function sendTestWebhook(
  deps: WebhookDeliveryDeps,
  userId: string,
  endpointId: string,
): Promise<WebhookDeliveryRow> {
  const endpoint = await getWebhookEndpoint(deps.db, userId, endpointId);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await queueDeliveries(deps.enqueue, tx, [
      {
        id: newId("dlv", now.getTime()),
        userId,
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
}

/**
 * Queues a delivery of an endpoint of `userId` again, whatever its status: the same message,
 * signed afresh when sent, with the retry schedule from its start.
 * @returns the delivery after the change.
 * @throws AppError 404 `not_found` when the endpoint has no such delivery (or is not the
 *   user's, or was deleted meanwhile).
 */
export async function redeliverWebhook(
  deps: WebhookDeliveryDeps,
  userId: string,
  input: { endpointId: string; deliveryId: string },
): Promise<WebhookDeliveryRow> {
  const { endpointId, deliveryId } = input;
  const missing = () => notFound(`Delivery ${deliveryId} of webhook endpoint ${endpointId}`);
  const found = await findWebhookDelivery(deps.db, { userId, endpointId, id: deliveryId });
  if (!found) throw missing();
  const row = await deps.db.transaction(async (tx) => {
    const requeued = await requeueWebhookDelivery(tx, found.id, deps.clock.now());
    // Gone since the check above (its endpoint was deleted meanwhile): as if never found.
    if (!requeued) return null;
    await enqueueDelivery(deps.enqueue, tx, requeued);
    return requeued;
  });
  if (!row) throw missing();
  return row;
}
