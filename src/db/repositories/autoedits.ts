import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type AutoeditStatus, autoedits } from "../schema/autoedits.ts";
import { newestFirstPage } from "./newest-first-page.ts";
import { rowJobRows } from "./row-job-rows.ts";

/** An auto-edit row. */
export type AutoeditRow = typeof autoedits.$inferSelect;
/** Values of a new auto-edit row. */
export type NewAutoedit = typeof autoedits.$inferInsert;

/** Statuses that never change again. */
export const AUTOEDIT_TERMINAL: AutoeditStatus[] = ["succeeded", "failed", "cancelled"];
const ACTIVE: AutoeditStatus[] = ["queued", "running"];

/** The worker's statements on auto-edits: claim, fenced writes, control read, `worker_lost`. */
export const autoeditRows = rowJobRows<AutoeditRow, NewAutoedit, AutoeditStatus>(autoedits);

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
