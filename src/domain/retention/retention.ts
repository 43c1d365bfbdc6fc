/**
 * The API's hourly retention run: one timer that deletes what is no longer needed — old quota
 * counters, ended console sessions and links, ended sign-in rate-limit windows, finished
 * webhook deliveries past their retention and composition versions past theirs. Each kind is one task; a failing task is logged and
 * does not stop the others, and the next run tries again.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { deleteDeadConsoleCredentials } from "../../db/repositories/console-sessions.ts";
import { deleteLoginWindowsBefore } from "../../db/repositories/login-limits.ts";
import { repeatInBackground } from "../../repeat.ts";
import { pruneCompositionVersions } from "../composition/prune-versions.ts";
import { pruneQuotaCounters } from "../quota/prune-counters.ts";
import { pruneWebhookDeliveries } from "../webhooks/prune-deliveries.ts";

/** How often the API runs the retention tasks, milliseconds (hourly). */
export const RETENTION_INTERVAL_MS = 3600_000;

/** One kind of data to prune. */
export interface RetentionTask {
  /** What is pruned, for logs (e.g. "quota counters"). */
  what: string;
  /** Deletes what is past its retention; resolves to the number of rows deleted. */
  prune(): Promise<number>;
}

/** How long each kind is kept. */
export interface RetentionSettings {
  /** QUOTA_KEEP_DAYS: days of quota counters kept, today included. */
  quotaKeepDays: number;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS: days finished webhook deliveries are kept. */
  webhookDeliveryRetentionDays: number;
}

/**
 * The API's retention tasks: quota counters older than `quotaKeepDays`, console sessions,
 * capture tokens and password links that ended more than a day ago, sign-in rate-limit windows
 * that started more than a day ago, and finished webhook deliveries last tried more than
 * `webhookDeliveryRetentionDays` ago, and composition versions older than 30 days that are
 * not the last of their day (nor the current version).
 */
export function retentionTasks(db: Db, clock: Clock, settings: RetentionSettings): RetentionTask[] {
  const dayAgo = () => new Date(clock.now().getTime() - 86_400_000);
  return [
    {
      what: "quota counters",
      prune: async () => (await pruneQuotaCounters(db, clock, settings.quotaKeepDays)).deleted,
    },
    { what: "ended console sessions and links", prune: () => deleteDeadConsoleCredentials(db, dayAgo()) },
    { what: "ended sign-in rate-limit windows", prune: () => deleteLoginWindowsBefore(db, dayAgo()) },
    {
      what: "finished webhook deliveries",
      prune: async () =>
        (await pruneWebhookDeliveries(db, clock, settings.webhookDeliveryRetentionDays)).deleted,
    },
    {
      what: "old composition versions",
      prune: async () => (await pruneCompositionVersions(db, clock)).deleted,
    },
  ];
}

/**
 * Runs every task once, one after the other; logs what each deleted (when anything) and each
 * failure (then goes on with the next task).
 * @returns how many tasks failed.
 */
export async function runRetention(tasks: RetentionTask[], log: Logger): Promise<number> {
  let failed = 0;
  for (const task of tasks) {
    try {
      const deleted = await task.prune();
      if (deleted > 0) log.info({ deleted }, `pruned ${task.what}`);
    } catch (err) {
      failed++;
      log.warn({ err }, `pruning ${task.what} failed; will retry`);
    }
  }
  return failed;
}

/**
 * Runs the tasks now and then every {@link RETENTION_INTERVAL_MS} in the background (see
 * `repeatInBackground`: the timer does not keep the process alive and runs never overlap).
 * @returns a function that stops the timer.
 */
export function startRetention(opts: { tasks: RetentionTask[]; log: Logger }): () => void {
  return repeatInBackground(
    RETENTION_INTERVAL_MS,
    async () => {
      await runRetention(opts.tasks, opts.log);
    },
    (err) => opts.log.warn({ err }, "the retention run failed; will retry"),
  );
}
