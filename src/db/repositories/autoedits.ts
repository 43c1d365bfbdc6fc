import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type AutoeditStatus, autoedits } from "../schema/autoedits.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** An auto-edit row. */
export type AutoeditRow = typeof autoedits.$inferSelect;
/** Values of a new auto-edit row. */
export type NewAutoedit = typeof autoedits.$inferInsert;

/** Statuses that never change again. */
export const AUTOEDIT_TERMINAL: AutoeditStatus[] = ["succeeded", "failed", "cancelled"];
const ACTIVE: AutoeditStatus[] = ["queued", "running"];

/** Inserts a queued auto-edit. */
export async function insertAutoedit(db: Db, row: NewAutoedit): Promise<AutoeditRow> {
  const [r] = await db.insert(autoedits).values(row).returning();
  return r as AutoeditRow;
}

/** One auto-edit of `userId`, or null (also another owner's). */
export async function findAutoedit(db: Db, userId: string, id: string): Promise<AutoeditRow | null> {
  const [r] = await db
    .select()
    .from(autoedits)
    .where(and(eq(autoedits.userId, userId), eq(autoedits.id, id)))
    .limit(1);
  return r ?? null;
}

/** An auto-edit by id regardless of owner (workers). */
export async function findAutoeditById(db: Db, id: string): Promise<AutoeditRow | null> {
  const [r] = await db.select().from(autoedits).where(eq(autoedits.id, id)).limit(1);
  return r ?? null;
}

/** A page of a user's auto-edits, newest first, filtered by status and project. */
export function listAutoeditsPage(
  db: Db,
  input: {
    userId: string;
    status?: AutoeditStatus | undefined;
    projectId?: string | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: AutoeditRow[]; hasMore: boolean }> {
  const conditions = [eq(autoedits.userId, input.userId)];
  if (input.status) conditions.push(eq(autoedits.status, input.status));
  if (input.projectId) conditions.push(eq(autoedits.projectId, input.projectId));
  return newestFirstPage(db, autoedits, conditions, input);
}

/** Claims a queued or running auto-edit for a new attempt (the fence); null when terminal. */
export async function claimAutoedit(db: Db, id: string, now: Date): Promise<AutoeditRow | null> {
  const [r] = await db
    .update(autoedits)
    .set({ attempt: sql`${autoedits.attempt} + 1`, status: "running", heartbeatAt: now })
    .where(and(eq(autoedits.id, id), inArray(autoedits.status, ACTIVE)))
    .returning();
  return r ?? null;
}

/** Fenced write by attempt `attempt` of a running auto-edit; false when the attempt lost it. */
export async function updateAutoeditFenced(
  db: Db,
  input: { id: string; attempt: number; set: Partial<NewAutoedit> },
): Promise<boolean> {
  const rows = await db
    .update(autoedits)
    .set(input.set)
    .where(
      and(eq(autoedits.id, input.id), eq(autoedits.attempt, input.attempt), eq(autoedits.status, "running")),
    )
    .returning({ id: autoedits.id });
  return rows.length > 0;
}

/**
 * Cancels a queued or running auto-edit of `userId`: `{ row, changed }`, the unchanged row of a
 * terminal one, or null when it does not exist.
 */
export async function cancelAutoeditRow(
  db: Db,
  userId: string,
  id: string,
  now: Date,
): Promise<{ row: AutoeditRow; changed: boolean } | null> {
  const [changed] = await db
    .update(autoedits)
    .set({ status: "cancelled", finishedAt: now })
    .where(and(eq(autoedits.userId, userId), eq(autoedits.id, id), inArray(autoedits.status, ACTIVE)))
    .returning();
  if (changed) return { row: changed, changed: true };
  const row = await findAutoedit(db, userId, id);
  return row ? { row, changed: false } : null;
}

/** Status and attempt of an auto-edit (the worker's cancellation poll). */
export async function readAutoeditControl(
  db: Db,
  id: string,
): Promise<{ status: AutoeditStatus; attempt: number } | null> {
  const [r] = await db
    .select({ status: autoedits.status, attempt: autoedits.attempt })
    .from(autoedits)
    .where(eq(autoedits.id, id))
    .limit(1);
  return r ?? null;
}

/** Fails a queued or running auto-edit whatever attempt owns it (its worker is gone). */
export async function failAutoeditUnfenced(
  db: Db,
  input: { id: string; error: { code: string; message: string }; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(autoedits)
    .set({ status: "failed", error: input.error, finishedAt: input.now })
    .where(and(eq(autoedits.id, input.id), inArray(autoedits.status, ACTIVE)))
    .returning({ id: autoedits.id });
  return rows.length > 0;
}
