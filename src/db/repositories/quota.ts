import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../client.ts";

/**
 * Counts one call for `subject` on `day`. With `limit`, the increment only happens while
 * the counter is below it (exact under concurrency, see authenticateAndCount); without,
 * it always counts (health checks are never refused).
 *
 * @returns the counter after this call, or null when refused.
 */
export async function countCall(
  db: Db,
  input: { subject: string; day: string; limit: number | null },
): Promise<number | null> {
  const guard = input.limit === null ? sql`` : sql`where quota_counters.count < ${input.limit}::int`;
  const result = await db.execute(sql`
    insert into quota_counters (subject, day, count) values (${input.subject}, ${input.day}::date, 1)
    on conflict (subject, day) do update set count = quota_counters.count + 1 ${guard}
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
