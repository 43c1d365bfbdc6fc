import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { RenderErrorJson } from "../../domain/render/types.ts";
import type { Db } from "../client.ts";
import { type RenderStatus, renders } from "../schema/renders.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** A render row. */
export type RenderRow = typeof renders.$inferSelect;
/** Values of a new render row. */
export type NewRender = typeof renders.$inferInsert;

/** Statuses in which a worker owns the render. */
export const ACTIVE_STATUSES: RenderStatus[] = ["preparing", "rendering", "finalizing"];
/** Statuses that never change again. */
export const TERMINAL_STATUSES: RenderStatus[] = ["succeeded", "failed", "cancelled"];

/** Inserts a queued render. */
export async function insertRender(db: Db, row: NewRender): Promise<RenderRow> {
  const [r] = await db.insert(renders).values(row).returning();
  return r as RenderRow;
}

/** One render of `userId`, or null (also another owner's). */
export async function findRender(db: Db, userId: string, id: string): Promise<RenderRow | null> {
  const [r] = await db
    .select()
    .from(renders)
    .where(and(eq(renders.userId, userId), eq(renders.id, id)))
    .limit(1);
  return r ?? null;
}

/** A render by id regardless of owner (workers). */
export async function findRenderById(db: Db, id: string): Promise<RenderRow | null> {
  const [r] = await db.select().from(renders).where(eq(renders.id, id)).limit(1);
  return r ?? null;
}

/** The render a user created earlier with the same Idempotency-Key, or null. */
export async function findRenderByIdempotencyKey(
  db: Db,
  userId: string,
  key: string,
): Promise<RenderRow | null> {
  const [r] = await db
    .select()
    .from(renders)
    .where(and(eq(renders.userId, userId), eq(renders.idempotencyKey, key)))
    .limit(1);
  return r ?? null;
}

/** A page of a user's renders, newest first, filtered by status, composition and project. */
export async function listRendersPage(
  db: Db,
  input: {
    userId: string;
    status?: RenderStatus | undefined;
    compositionId?: string | undefined;
    /** Renders of the project's compositions (the project recorded in the frozen copy). */
    projectId?: string | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: RenderRow[]; hasMore: boolean }> {
  const conditions = [eq(renders.userId, input.userId)];
  if (input.status) conditions.push(eq(renders.status, input.status));
  if (input.compositionId) conditions.push(eq(renders.compositionId, input.compositionId));
  if (input.projectId) conditions.push(sql`${renders.composition}->>'projectId' = ${input.projectId}`);
  return newestFirstPage(db, renders, conditions, input);
}

/**
 * A worker claims a render for a new attempt: increments `attempt` and moves it to
 * `preparing`, unless it is terminal or being cancelled.
 * @returns the claimed row (with the new attempt) or null when there is nothing to do.
 */
export async function claimRender(db: Db, id: string, now: Date): Promise<RenderRow | null> {
  const [r] = await db
    .update(renders)
    .set({
      attempt: sql`${renders.attempt} + 1`,
      status: "preparing",
      startedAt: sql`coalesce(${renders.startedAt}, ${now.toISOString()}::timestamptz)`,
      heartbeatAt: now,
      progress: sql`jsonb_set(${renders.progress}, '{phase}', '"preparing"')`,
    })
    .where(and(eq(renders.id, id), inArray(renders.status, ["queued", ...ACTIVE_STATUSES])))
    .returning();
  return r ?? null;
}

/**
 * Fenced update by a worker: applies only while the render is still on `attempt` and in
 * an active status. Returns false when the worker lost the render (newer attempt,
 * cancellation requested, or terminal) and must stop.
 */
export async function updateRenderFenced(
  db: Db,
  input: { id: string; attempt: number; set: Partial<NewRender> },
): Promise<boolean> {
  const rows = await db
    .update(renders)
    .set(input.set)
    .where(
      and(
        eq(renders.id, input.id),
        eq(renders.attempt, input.attempt),
        inArray(renders.status, ACTIVE_STATUSES),
      ),
    )
    .returning({ id: renders.id });
  return rows.length > 0;
}

/**
 * Fenced final write by the worker on `attempt`; `cancelling` may also be finished
 * (to `cancelled`). Returns the row as written, or null when the render moved on.
 */
export async function finishRender(
  db: Db,
  input: { id: string; attempt: number; from: RenderStatus[]; set: Partial<NewRender> },
): Promise<RenderRow | null> {
  const [row] = await db
    .update(renders)
    .set(input.set)
    .where(
      and(eq(renders.id, input.id), eq(renders.attempt, input.attempt), inArray(renders.status, input.from)),
    )
    .returning();
  return row ?? null;
}

/**
 * Cancel request from the API: a queued render becomes `cancelled` at once; an active one
 * `cancelling` (its worker notices, stops ffmpeg and finishes it as `cancelled`).
 * Returns the row after the change, or the unchanged row when nothing applied, whether this
 * call ended the render (a queued one), and its status before (read under a row lock held for
 * the rest of the transaction `db`).
 */
export async function requestRenderCancel(
  db: Db,
  userId: string,
  id: string,
  now: Date,
): Promise<{ row: RenderRow; ended: boolean; from: RenderStatus } | null> {
  const [before] = await db
    .select({ status: renders.status })
    .from(renders)
    .where(and(eq(renders.userId, userId), eq(renders.id, id)))
    .for("update");
  if (!before) return null;
  const from = before.status;
  const [queued] = await db
    .update(renders)
    .set({
      status: "cancelled",
      cancelRequestedAt: now,
      finishedAt: now,
      progress: sql`jsonb_set(${renders.progress}, '{phase}', '"done"')`,
    })
    .where(and(eq(renders.userId, userId), eq(renders.id, id), eq(renders.status, "queued")))
    .returning();
  if (queued) return { row: queued, ended: true, from };
  const [active] = await db
    .update(renders)
    .set({ status: "cancelling", cancelRequestedAt: now })
    .where(and(eq(renders.userId, userId), eq(renders.id, id), inArray(renders.status, ACTIVE_STATUSES)))
    .returning();
  if (active) return { row: active, ended: false, from };
  const row = await findRender(db, userId, id);
  return row ? { row, ended: false, from } : null;
}

/**
 * Ends a render whatever attempt runs it (its worker is gone): `cancelled` (no error) when a
 * cancel was pending, else — only when `error` is given — `failed` with it; progress phase `done`.
 * Returns the row as written, or null when nothing applied.
 */
export async function failRenderUnfenced(
  db: Db,
  input: { id: string; error: RenderErrorJson | null; now: Date },
): Promise<RenderRow | null> {
  const [row] = await db
    .update(renders)
    .set({
      status: sql`case when ${renders.status} = 'cancelling' then 'cancelled' else 'failed' end`,
      error: sql`case when ${renders.status} = 'cancelling' then null else ${JSON.stringify(input.error ?? {})}::jsonb end`,
      progress: sql`jsonb_set(${renders.progress}, '{phase}', '"done"')`,
      finishedAt: input.now,
    })
    .where(
      and(
        eq(renders.id, input.id),
        inArray(renders.status, input.error ? ["queued", "cancelling", ...ACTIVE_STATUSES] : ["cancelling"]),
      ),
    )
    .returning();
  return row ?? null;
}

/** Status and cancel flag of a render (the worker's cancellation poll). */
export async function readRenderControl(
  db: Db,
  id: string,
): Promise<{ status: RenderStatus; attempt: number } | null> {
  const [r] = await db
    .select({ status: renders.status, attempt: renders.attempt })
    .from(renders)
    .where(eq(renders.id, id))
    .limit(1);
  return r ?? null;
}

/**
 * How many renders of `userId` are queued or running (not yet ended); with `createdBefore`,
 * only those created before that time (the renders ahead of one in its account's line).
 */
export async function countUnfinishedRenders(db: Db, userId: string, createdBefore?: Date): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(renders)
    .where(
      and(
        eq(renders.userId, userId),
        inArray(renders.status, ["queued", "cancelling", ...ACTIVE_STATUSES]),
        createdBefore ? lt(renders.createdAt, createdBefore) : undefined,
      ),
    );
  return r?.n ?? 0;
}

/** Status and attempt of each of `ids` that exists (the work-directory sweep's question). */
export async function readRenderAttempts(
  db: Db,
  ids: string[],
): Promise<Map<string, { status: RenderStatus; attempt: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: renders.id, status: renders.status, attempt: renders.attempt })
    .from(renders)
    .where(inArray(renders.id, ids));
  return new Map(rows.map((r) => [r.id, { status: r.status, attempt: r.attempt }]));
}
