import { and, eq, sql } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { Db } from "../client.ts";
import { type CompositionDocument, compositions } from "../schema/compositions.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** A composition row. */
export type CompositionRow = typeof compositions.$inferSelect;

/** Fields a write sets. */
export interface CompositionFields {
  name: string;
  projectId: string | null;
  document: CompositionDocument;
}

/** Inserts a new composition at version 1, created at `now` (the database's clock when omitted). */
export async function insertComposition(
  db: Db,
  userId: string,
  fields: CompositionFields,
  now?: Date,
): Promise<CompositionRow> {
  const [row] = await db
    .insert(compositions)
    .values({ id: newId("cmp"), userId, ...fields, ...(now ? { createdAt: now, updatedAt: now } : {}) })
    .returning();
  return row as CompositionRow;
}

/** One composition of `userId`, or null (also for another owner's). */
export async function findComposition(db: Db, userId: string, id: string): Promise<CompositionRow | null> {
  const [row] = await db
    .select()
    .from(compositions)
    .where(and(eq(compositions.userId, userId), eq(compositions.id, id)))
    .limit(1);
  return row ?? null;
}

/** A page of a user's compositions, newest first, optionally of one project. */
export async function listCompositionsPage(
  db: Db,
  input: { userId: string; projectId?: string | undefined; limit: number; afterId: string | undefined },
): Promise<{ rows: CompositionRow[]; hasMore: boolean }> {
  const conditions = [eq(compositions.userId, input.userId)];
  if (input.projectId) conditions.push(eq(compositions.projectId, input.projectId));
  return newestFirstPage(db, compositions, conditions, input);
}

/**
 * Compare-and-set update: writes only when the stored version is still `expectedVersion`,
 * and increments it. Returns null when the row is missing or the version moved on
 * (the caller re-reads to tell which).
 */
export async function updateCompositionIfVersion(
  db: Db,
  input: { userId: string; id: string; expectedVersion: number; now: Date } & CompositionFields,
): Promise<CompositionRow | null> {
  const [row] = await db
    .update(compositions)
    .set({
      name: input.name,
      projectId: input.projectId,
      document: input.document,
      version: sql`${compositions.version} + 1`,
      updatedAt: input.now,
    })
    .where(
      and(
        eq(compositions.userId, input.userId),
        eq(compositions.id, input.id),
        eq(compositions.version, input.expectedVersion),
      ),
    )
    .returning();
  return row ?? null;
}

/** Deletes a user's composition; true when a row was removed. */
export async function deleteComposition(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(compositions)
    .where(and(eq(compositions.userId, userId), eq(compositions.id, id)))
    .returning({ id: compositions.id });
  return rows.length > 0;
}

/** Locks a composition row until the end of the caller's transaction (writes to it wait). */
export async function lockComposition(db: Db, id: string): Promise<void> {
  await db.select({ id: compositions.id }).from(compositions).where(eq(compositions.id, id)).for("update");
}
