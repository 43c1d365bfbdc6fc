import { and, eq, inArray, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../client.ts";

/**
 * A job table whose row is the job's state: `status` goes `queued` → `running` → `succeeded`,
 * `failed` or `cancelled`; `attempt` is the fence of the worker's writes.
 */
type RowJobTable = PgTable & {
  id: PgColumn;
  status: PgColumn;
  attempt: PgColumn;
  heartbeatAt: PgColumn;
  error: PgColumn;
  finishedAt: PgColumn;
};

const ACTIVE = ["queued", "running"];

/** The worker's statements on a row job's table. */
export interface RowJobRows<Row, New, Status> {
  /** Claims a queued or running row for a new attempt (the fence); null when terminal or gone. */
  claim(db: Db, id: string, now: Date): Promise<Row | null>;
  /** Status and attempt of the row (the worker's cancellation poll), or null when it is gone. */
  readControl(db: Db, id: string): Promise<{ status: Status; attempt: number } | null>;
  /** The row by id regardless of owner. */
  findById(db: Db, id: string): Promise<Row | null>;
  /** Write by attempt `attempt` of the running row; false when the attempt lost it. */
  updateFenced(db: Db, input: { id: string; attempt: number; set: Partial<New> }): Promise<boolean>;
  /** Fails a queued or running row whatever attempt owns it (its worker is gone). */
  failUnfenced(
    db: Db,
    input: { id: string; error: { code: string; message: string }; now: Date },
  ): Promise<boolean>;
  /** Current attempt and status of each of `ids` that exists (the work-directory sweep). */
  readAttempts(db: Db, ids: string[]): Promise<Map<string, { attempt: number; status: Status }>>;
}

/**
 * The worker's statements on `table` (generations, transcriptions, auto-edits).
 * @typeParam Row - the table's row; `New` its insert values; `Status` its status column.
 */
export function rowJobRows<Row, New, Status>(table: RowJobTable): RowJobRows<Row, New, Status> {
  const t = table;
  const byId = (id: string) => eq(t.id, id);
  return {
    async claim(db, id, now) {
      const [r] = await db
        .update(t)
        .set({ attempt: sql`${t.attempt} + 1`, status: "running", heartbeatAt: now } as never)
        .where(and(byId(id), inArray(t.status, ACTIVE)))
        .returning();
      return (r as Row | undefined) ?? null;
    },
    async readControl(db, id) {
      const [r] = await db
        .select({ status: t.status, attempt: t.attempt })
        .from(t as PgTable)
        .where(byId(id))
        .limit(1);
      return (r as { status: Status; attempt: number } | undefined) ?? null;
    },
    async findById(db, id) {
      const [r] = await db
        .select()
        .from(t as PgTable)
        .where(byId(id))
        .limit(1);
      return (r as Row | undefined) ?? null;
    },
    async updateFenced(db, input) {
      const rows = await db
        .update(t)
        .set(input.set as never)
        .where(and(byId(input.id), eq(t.attempt, input.attempt), eq(t.status, "running")))
        .returning({ id: t.id });
      return rows.length > 0;
    },
    async failUnfenced(db, input) {
      const rows = await db
        .update(t)
        .set({ status: "failed", error: input.error, finishedAt: input.now } as never)
        .where(and(byId(input.id), inArray(t.status, ACTIVE)))
        .returning({ id: t.id });
      return rows.length > 0;
    },
    async readAttempts(db, ids) {
      if (ids.length === 0) return new Map();
      const rows = (await db
        .select({ id: t.id, attempt: t.attempt, status: t.status })
        .from(t as PgTable)
        .where(inArray(t.id, ids))) as { id: string; attempt: number; status: Status }[];
      return new Map(rows.map((r) => [r.id, { attempt: r.attempt, status: r.status }]));
    },
  };
}
