/**
 * The `webhook_delivery` job kind: one try of a delivery row per job. A failed try records its
 * outcome and, while the retry schedule lasts, sends the next job with the schedule's delay (in
 * the same transaction); the last failed try ends the delivery as `failed` and counts against
 * its endpoint, which is disabled after `disableAfterFailures` such deliveries in a row.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { WebhookConfig } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import {
  countWebhookEndpointFailure,
  ensureCallbackSecret,
  markWebhookEndpointHealthy,
  readWebhookDeliveryForTry,
  recordWebhookTry,
} from "../../db/repositories/webhooks.ts";
import { webhookTries } from "../../metrics/process-metrics.ts";
import type { WebhookDeliveryJobV1 } from "../../queue/catalog.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { enqueueDelivery } from "./events.ts";
import { newWebhookSecret } from "./secret.ts";
import { sendWebhook, type WebhookTryResult } from "./send.ts";
import { webhookUrlPolicy } from "./target.ts";

/** What the delivery job needs. */
export interface WebhookDeliveryDeps {
  db: Db;
  clock: Clock;
  enqueue: Enqueue;
  config: WebhookConfig;
  log: Logger;
}

/** What one job did, for logs and tests. */
export type WebhookTryOutcome = "skipped" | "succeeded" | "retrying" | "failed";

/**
 * Makes one try of delivery `deliveryId` when it is still pending on `seq` (see the module doc).
 * @returns what happened.
 * @throws database or queue errors (pg-boss retries the job; the delivery stays pending).
 */
export async function tryWebhookDelivery(
  deps: WebhookDeliveryDeps,
  job: WebhookDeliveryJobV1,
): Promise<WebhookTryOutcome> {
  const { db, clock, config } = deps;
  const found = await readWebhookDeliveryForTry(db, job.deliveryId);
  if (found?.delivery.status !== "pending" || found.delivery.seq !== job.seq) return "skipped";
  const { delivery, endpoint } = found;
  const url = endpoint?.url ?? delivery.url;
  if (!url) return "skipped";
  const secret = endpoint
    ? endpoint.secret
    : (await ensureCallbackSecret(db, delivery.userId, newWebhookSecret())).secret;
  const now = clock.now();
  const result: WebhookTryResult = await sendWebhook({
    url,
    secret,
    messageId: delivery.messageId,
    body: JSON.stringify(delivery.payload),
    now,
    timeoutMs: config.timeoutMs,
    policy: webhookUrlPolicy(config.allowPrivate),
  });
  const delay = result.ok ? undefined : config.retryScheduleSec[delivery.roundTries];
  const finished = clock.now();
  return db.transaction(async (tx) => {
    const row = await recordWebhookTry(tx, {
      id: delivery.id,
      seq: delivery.seq,
      tries: delivery.tries,
      set: {
        status: result.ok ? "succeeded" : delay === undefined ? "failed" : "pending",
        lastResponseStatus: result.status,
        lastLatencyMs: result.latencyMs,
        lastError: result.error,
        lastTriedAt: now,
        nextTryAt: delay === undefined ? null : new Date(finished.getTime() + delay * 1000),
      },
    });
    if (!row) return "skipped";
    deps.log.info(
      { deliveryId: row.id, tries: row.tries, status: result.status, error: result.error },
      "webhook try",
    );
    if (result.ok) {
      if (endpoint) await markWebhookEndpointHealthy(tx, endpoint.id, finished);
      return "succeeded";
    }
    if (delay !== undefined) {
      await enqueueDelivery(deps.enqueue, tx, row, delay);
      return "retrying";
    }
    if (endpoint) {
      const limit = config.disableAfterFailures;
      const disabled = await countWebhookEndpointFailure(tx, {
        id: endpoint.id,
        disableAfter: limit,
        reason: `${limit} deliver${limit === 1 ? "y" : "ies"} in a row failed on every try; the last one: ${result.error}`,
        now: finished,
      });
      if (disabled)
        deps.log.warn({ endpointId: endpoint.id }, "webhook endpoint disabled after repeated failures");
    }
    return "failed";
  });
}

/**
 * The `webhook_delivery` job handler ({@link tryWebhookDelivery}); counts each try's outcome
 * on `cutroom_webhook_tries_total`.
 * @param opts.concurrency - tries run at once in this process.
 */
export function webhookDeliveryJobHandler(
  opts: WebhookDeliveryDeps & { concurrency: number; pollingIntervalSeconds?: number },
): JobHandler<WebhookDeliveryJobV1> {
  return {
    concurrency: opts.concurrency,
    ...(opts.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: opts.pollingIntervalSeconds }
      : {}),
    async run(data) {
      const outcome = await tryWebhookDelivery(opts, data);
      webhookTries.inc({ outcome });
      return outcome;
    },
  };
}
