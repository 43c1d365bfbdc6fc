/**
 * Keeps the quota table small: one row per account (or anonymous client IP) per UTC day
 * would otherwise grow for ever, and a scan from many addresses adds a row per address.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { deleteDeadConsoleCredentials } from "../../db/repositories/console-sessions.ts";
import { deleteLoginWindowsBefore } from "../../db/repositories/login-limits.ts";
import { deleteQuotaCountersBefore } from "../../db/repositories/quota.ts";
import { repeatInBackground } from "../../repeat.ts";
import { quotaDay } from "./daily-quota.ts";

/** How often the API prunes, milliseconds (hourly). */
export const PRUNE_INTERVAL_MS = 3600_000;

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

/**
 * Prunes now and then every {@link PRUNE_INTERVAL_MS} in the background, together with
 * console sessions, capture tokens and password links that ended more than a day ago and
 * sign-in rate-limit windows that started more than a day ago (see `repeatInBackground`); a failed run is logged and retried at the next interval.
 *
 * @returns a function that stops the timer.
 */
export function startQuotaPruning(opts: { db: Db; clock: Clock; keepDays: number; log: Logger }): () => void {
  return repeatInBackground(
    PRUNE_INTERVAL_MS,
    async () => {
      const { keptFrom, deleted } = await pruneQuotaCounters(opts.db, opts.clock, opts.keepDays);
      if (deleted > 0) opts.log.info({ keptFrom, deleted }, "pruned old quota counters");
      const dayAgo = new Date(opts.clock.now().getTime() - 86_400_000);
      const dead = await deleteDeadConsoleCredentials(opts.db, dayAgo);
      if (dead > 0) opts.log.info({ deleted: dead }, "pruned ended console sessions and links");
      const windows = await deleteLoginWindowsBefore(opts.db, dayAgo);
      if (windows > 0) opts.log.info({ deleted: windows }, "pruned ended sign-in rate-limit windows");
    },
    (err) => opts.log.warn({ err }, "pruning quota counters failed; will retry"),
  );
}
