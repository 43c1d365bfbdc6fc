import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../client.ts";

/**
 * Adds `amount` (default 1: one call) to the counter of `subject` on `day`. With `limit`, it
 * only adds while the counter stays at or below it (one statement, exact under concurrency,
 * see authenticateAndCount); without, it always adds (health checks are never refused).
 *
 * @param input.amount - positive integer to add (render seconds for `render-sec:<userId>`).
 * @returns the counter after this call, or null when refused.
 */
export async function countCall(
  db: Db,
  input: { subject: string; day: string; limit: number | null; amount?: number },
): Promise<number | null> {
  const amount = input.amount ?? 1;
  if (input.limit !== null && amount > input.limit) return null;
  const guard =
    input.limit === null ? sql`` : sql`where quota_counters.count::bigint + ${amount} <= ${input.limit}`;
  const result = await db.execute(sql`
    insert into quota_counters (subject, day, count) values (${input.subject}, ${input.day}::date, ${amount}::int)
    on conflict (subject, day) do update set count = quota_counters.count + ${amount}::int ${guard}
    returning count`);
  const row = rowsOf(result)[0] as { count: number | string } | undefined;
  return row ? Number(row.count) : null;
}

/**
 * Deletes the quota counters of days before `day` (`YYYY-MM-DD`, UTC): only today's counter
 * decides anything, older rows are history. Idempotent; safe to run from several processes.
 *
 * @returns the number of rows deleted.
 */
export async function deleteQuotaCountersBefore(db: Db, day: string): Promise<number> {
  const result = await db.execute(sql`
    with gone as (delete from quota_counters where day < ${day}::date returning 1)
    select count(*)::int as n from gone`);
  const row = rowsOf(result)[0] as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
