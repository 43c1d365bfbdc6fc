/**
 * Keeps the webhook delivery log bounded: every event writes one row per subscribed endpoint
 * (and per callback), and finished rows are only useful for a while (to look at or redeliver).
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { deleteFinishedWebhookDeliveriesBefore } from "../../db/repositories/webhooks.ts";

/**
 * Deletes finished deliveries (`succeeded`, or `failed` for good) whose last try — or creation,
 * when never tried — is more than `keepDays` days (of 24 hours) before now. Pending deliveries
 * stay, whatever their age; a redelivery counts as a new try, so it keeps its row.
 *
 * @param keepDays - days of finished deliveries to keep, ≥ 1.
 * @returns the cut-off (rows last active before it were deleted) and the number deleted.
 */
export async function pruneWebhookDeliveries(
  db: Db,
  clock: Clock,
  keepDays: number,
): Promise<{ before: Date; deleted: number }> {
  const before = new Date(clock.now().getTime() - keepDays * 86_400_000);
  return { before, deleted: await deleteFinishedWebhookDeliveriesBefore(db, before) };
}
