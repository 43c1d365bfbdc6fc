import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { KeyframeIndex } from "../../media/keyframes.ts";
import type { Db } from "../client.ts";
import { type UploadPreviewProxy, uploads } from "../schema/uploads.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** An upload row. */
export type UploadRow = typeof uploads.$inferSelect;
/** Values of a new upload row. */
export type NewUpload = typeof uploads.$inferInsert;

/** Inserts the rows of one upload request in one statement (all or nothing). */
export async function insertUploads(db: Db, rows: NewUpload[]): Promise<UploadRow[]> {
  if (rows.length === 0) return [];
  return db.insert(uploads).values(rows).returning();
}

/** One upload of `userId`, or null (also for another owner's). */
export async function findUpload(db: Db, userId: string, id: string): Promise<UploadRow | null> {
  const [row] = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.userId, userId), eq(uploads.id, id)))
    .limit(1);
  return row ?? null;
}

/** An upload of any owner by id, or null (for jobs, which act on behalf of its owner). */
export async function findUploadById(db: Db, id: string): Promise<UploadRow | null> {
  const [row] = await db.select().from(uploads).where(eq(uploads.id, id)).limit(1);
  return row ?? null;
}

/** Keeps the keyframe index of upload `id` (a deleted upload is left alone). */
export async function setUploadKeyframes(db: Db, id: string, keyframes: KeyframeIndex): Promise<void> {
  await db.update(uploads).set({ keyframes }).where(eq(uploads.id, id));
}

/**
 * Settles the preview proxy of upload `id` while it is still `pending` (a deleted upload, or
 * one settled meanwhile, is left alone).
 * @returns whether a row changed.
 */
export async function settlePreviewProxy(db: Db, id: string, value: UploadPreviewProxy): Promise<boolean> {
  const rows = await db
    .update(uploads)
    .set({ previewProxy: value })
    .where(and(eq(uploads.id, id), sql`${uploads.previewProxy}->>'status' = 'pending'`))
    .returning({ id: uploads.id });
  return rows.length > 0;
}

/** The user's uploads among `ids` (others' and unknown ids are simply absent). */
export async function findUploadsByIds(db: Db, userId: string, ids: string[]): Promise<UploadRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(uploads)
    .where(and(eq(uploads.userId, userId), inArray(uploads.id, ids)));
}

/** A page of a user's uploads, newest first, optionally filtered by project and type. */
export async function listUploadsPage(
  db: Db,
  input: {
    userId: string;
    projectId?: string | undefined;
    type?: UploadRow["type"] | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: UploadRow[]; hasMore: boolean }> {
  const conditions = [eq(uploads.userId, input.userId)];
  if (input.projectId) conditions.push(eq(uploads.projectId, input.projectId));
  if (input.type) conditions.push(eq(uploads.type, input.type));
  return newestFirstPage(db, uploads, conditions, input);
}

/**
 * A user's newest `limit` font uploads, newest first: the fonts a render loads and a
 * composition's font families are checked against (both pass `MAX_UPLOADED_FONTS`).
 */
export async function listFontUploads(db: Db, userId: string, limit: number): Promise<UploadRow[]> {
  return (await listUploadsPage(db, { userId, type: "font", limit, afterId: undefined })).rows;
}

/** Deletes a user's upload row; returns it (for object clean-up) or null. */
export async function deleteUpload(db: Db, userId: string, id: string): Promise<UploadRow | null> {
  const [row] = await db
    .delete(uploads)
    .where(and(eq(uploads.userId, userId), eq(uploads.id, id)))
    .returning();
  return row ?? null;
}

/** The user's uploads whose file `name` is one of `names` (exact, case-sensitive), newest first. */
export async function findUploadsByNames(db: Db, userId: string, names: string[]): Promise<UploadRow[]> {
  if (names.length === 0) return [];
  return db
    .select()
    .from(uploads)
    .where(and(eq(uploads.userId, userId), inArray(uploads.name, names)))
    .orderBy(desc(uploads.id));
}
