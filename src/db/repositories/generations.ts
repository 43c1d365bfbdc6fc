import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type GenerationStatus, generations } from "../schema/generations.ts";
import { uploads } from "../schema/uploads.ts";
import { newestFirstPage } from "./newest-first-page.ts";
import { rowJobRows } from "./row-job-rows.ts";
import type { UploadRow } from "./uploads.ts";

/** A generation row. */
export type GenerationRow = typeof generations.$inferSelect;
/** Values of a new generation row. */
export type NewGeneration = typeof generations.$inferInsert;

/** Statuses that never change again. */
export const GENERATION_TERMINAL: GenerationStatus[] = ["succeeded", "failed", "cancelled"];

/** The worker's statements on generations: claim, fenced writes, control read, `worker_lost`, attempts. */
export const generationRows = rowJobRows<GenerationRow, NewGeneration, GenerationStatus>(generations);

/** Inserts a queued generation. */
export async function insertGeneration(db: Db, row: NewGeneration): Promise<GenerationRow> {
  const [r] = await db.insert(generations).values(row).returning();
  return r as GenerationRow;
}

/** One generation of `userId`, or null (also another owner's). */
export async function findGeneration(db: Db, userId: string, id: string): Promise<GenerationRow | null> {
  const [r] = await db
    .select()
    .from(generations)
    .where(and(eq(generations.userId, userId), eq(generations.id, id)))
    .limit(1);
  return r ?? null;
}

/** A generation by id regardless of owner (workers). */
export async function findGenerationById(db: Db, id: string): Promise<GenerationRow | null> {
  const [r] = await db.select().from(generations).where(eq(generations.id, id)).limit(1);
  return r ?? null;
}

/** A page of a user's generations, newest first, filtered by kind, status and project. */
export async function listGenerationsPage(
  db: Db,
  input: {
    userId: string;
    kind?: "image" | "video" | undefined;
    status?: GenerationStatus | undefined;
    /** A project id, or null for generations made outside any project. */
    projectId?: string | null | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: GenerationRow[]; hasMore: boolean }> {
  const conditions = [eq(generations.userId, input.userId)];
  if (input.kind) conditions.push(eq(generations.kind, input.kind));
  if (input.status) conditions.push(eq(generations.status, input.status));
  if (input.projectId === null) conditions.push(isNull(generations.projectId));
  else if (input.projectId) conditions.push(eq(generations.projectId, input.projectId));
  return newestFirstPage(db, generations, conditions, input);
}

/** The output uploads of each generation, in creation order. */
export async function outputsOf(db: Db, generationIds: string[]): Promise<Map<string, UploadRow[]>> {
  const map = new Map<string, UploadRow[]>(generationIds.map((id) => [id, []]));
  if (generationIds.length === 0) return map;
  const rows = await db
    .select()
    .from(uploads)
    .where(inArray(uploads.generationId, generationIds))
    .orderBy(asc(uploads.id));
  for (const r of rows) map.get(r.generationId as string)?.push(r);
  return map;
}

/**
 * Records the vendor's request id, once: fenced like `generationRows.updateFenced` and only
 * while no id is stored. Returns false when the attempt lost the generation.
 */
export async function setVendorRequestId(
  db: Db,
  input: { id: string; attempt: number; requestId: string },
): Promise<boolean> {
  const rows = await db
    .update(generations)
    .set({ vendorRequestId: input.requestId })
    .where(
      and(
        eq(generations.id, input.id),
        eq(generations.attempt, input.attempt),
        eq(generations.status, "running"),
        isNull(generations.vendorRequestId),
      ),
    )
    .returning({ id: generations.id });
  return rows.length > 0;
}

/**
 * Cancels a queued or running generation of `userId`. Returns `{ row, changed }`: the row after
 * the change (`changed` true), the unchanged row of a terminal one, or null when it does not exist.
 */
export async function cancelGenerationRow(
  db: Db,
  userId: string,
  id: string,
  now: Date,
): Promise<{ row: GenerationRow; changed: boolean } | null> {
  const [changed] = await db
    .update(generations)
    .set({ status: "cancelled", finishedAt: now })
    .where(
      and(
        eq(generations.userId, userId),
        eq(generations.id, id),
        inArray(generations.status, ["queued", "running"]),
      ),
    )
    .returning();
  if (changed) return { row: changed, changed: true };
  const row = await findGeneration(db, userId, id);
  return row ? { row, changed: false } : null;
}

/** How many generations of `userId` are queued or running. */
export async function countUnfinishedGenerations(db: Db, userId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(generations)
    .where(and(eq(generations.userId, userId), inArray(generations.status, ["queued", "running"])));
  return r?.n ?? 0;
}
