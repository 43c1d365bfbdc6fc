import { and, desc, lt, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../client.ts";

/** A table whose `id` is a time-sortable text key (`prj_…`, `rnd_…`: ULIDs after a prefix). */
type IdTable = PgTable & { id: PgColumn };

/**
 * One page of the rows of `table` that match every one of `conditions`, newest first (ids are
 * time-sortable, so id order is creation order): the first `limit` rows after the row `afterId`
 * (the last id of the previous page, from its cursor), and whether another page follows (one
 * extra row is fetched to know).
 */
export async function newestFirstPage<T extends IdTable>(
  db: Db,
  table: T,
  conditions: SQL[],
  window: { limit: number; afterId: string | undefined },
): Promise<{ rows: T["$inferSelect"][]; hasMore: boolean }> {
  const where = window.afterId ? [...conditions, lt(table.id, window.afterId)] : conditions;
  const rows = (await db
    .select()
    .from(table as PgTable)
    .where(and(...where))
    .orderBy(desc(table.id))
    .limit(window.limit + 1)) as T["$inferSelect"][];
  return { rows: rows.slice(0, window.limit), hasMore: rows.length > window.limit };
}
