import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { countCall } from "../../db/repositories/quota.ts";
import { AppError } from "../../errors.ts";
import { quotaDay, secondsUntilReset } from "./daily-quota.ts";

/** One daily counter an account's job start draws from (`quota_counters`, per UTC day). */
export interface DailyAllowance {
  /** Counter subject, e.g. `render-sec:<userId>` or `gen-paid:<userId>`. */
  subject: string;
  /** Most the counter may reach in a day. */
  limit: number;
  /** What this start adds (positive integer). */
  amount: number;
  /** The 429 message when the start would exceed the limit. */
  refusal: string;
  /** Extra fields of the 429 error body. */
  extra?: Record<string, unknown>;
}

/**
 * Holds an account's allowance for a job of one kind (renders, generations) for the rest of the
 * transaction `tx`: at most `maxActive` of its jobs queued or running, and each daily counter
 * within its limit (counted in this transaction, so a job that is not stored is not counted).
 * A per-account, per-kind advisory lock makes the count and the insert one step under
 * concurrency.
 *
 * The returned count is the job's place for fairness across accounts: sent with priority
 * `-ahead`, an account's n-th waiting job runs after every other account's first.
 *
 * @param input.kind - the job kind (advisory-lock key and messages: "renders", "generations").
 * @param input.countActive - the account's unfinished jobs of the kind, read inside `tx`.
 * @returns how many of the account's jobs of the kind are unfinished (before this one).
 * @throws AppError 429 `rate_limited` with `Retry-After` (30 s for the active limit, the time to
 *   midnight UTC for a daily one) when a limit is reached.
 */
export async function holdAccountAllowance(
  tx: Db,
  input: {
    kind: string;
    userId: string;
    now: Date;
    maxActive: number;
    countActive: (tx: Db) => Promise<number>;
    daily: DailyAllowance[];
  },
): Promise<number> {
  const { kind, userId, maxActive } = input;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${kind}:${userId}`}, 0))`);
  const ahead = await input.countActive(tx);
  if (ahead >= maxActive) {
    throw new AppError(
      "rate_limited",
      `${ahead} ${kind} of this account are queued or running; at most ${maxActive} may be at once. Wait for one to finish or cancel one`,
      { headers: { "Retry-After": "30" }, extra: { limit: maxActive } },
    );
  }
  for (const d of input.daily) {
    if (d.amount <= 0) continue;
    const used = await countCall(tx, {
      subject: d.subject,
      day: quotaDay(input.now),
      limit: d.limit,
      amount: d.amount,
    });
    if (used === null) {
      throw new AppError("rate_limited", d.refusal, {
        headers: { "Retry-After": String(secondsUntilReset(input.now)) },
        ...(d.extra ? { extra: d.extra } : {}),
      });
    }
  }
  return ahead;
}
