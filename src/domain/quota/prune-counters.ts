/**
 * Keeps the quota table small: one row per account (or anonymous client IP) per UTC day
 * would otherwise grow for ever, and a scan from many addresses adds a row per address. The
 * API runs this hourly with its other retention tasks (src/domain/retention/retention.ts).
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { deleteQuotaCountersBefore } from "../../db/repositories/quota.ts";
import { quotaDay } from "./daily-quota.ts";

/**
 * Deletes the counters of days more than `keepDays` before today (UTC): with `keepDays` 1,
 * only today's counter stays; with 7, today's and the six days before.
 *
 * @param keepDays - days of counters to keep, ≥ 1.
 * @returns the first day kept (`YYYY-MM-DD`) and the number of rows deleted.
 */
export async function pruneQuotaCounters(
  db: Db,
  clock: Clock,
  keepDays: number,
): Promise<{ keptFrom: string; deleted: number }> {
  const now = clock.now();
  const keptFrom = quotaDay(new Date(now.getTime() - (keepDays - 1) * 86_400_000));
  return { keptFrom, deleted: await deleteQuotaCountersBefore(db, keptFrom) };
}
