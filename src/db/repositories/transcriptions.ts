import { and, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type TranscriptionStatus, transcriptions } from "../schema/transcriptions.ts";

/** A transcription row. */
export type TranscriptionRow = typeof transcriptions.$inferSelect;
/** Values of a new transcription row. */
export type NewTranscription = typeof transcriptions.$inferInsert;

/** Statuses that never change again. */
export const TRANSCRIPTION_TERMINAL: TranscriptionStatus[] = ["succeeded", "failed", "cancelled"];
const ACTIVE: TranscriptionStatus[] = ["queued", "running"];

/** Inserts a queued transcription. */
export async function insertTranscription(db: Db, row: NewTranscription): Promise<TranscriptionRow> {
  const [r] = await db.insert(transcriptions).values(row).returning();
  return r as TranscriptionRow;
}

/** One transcription of `userId`, or null (also another owner's). */
export async function findTranscription(
  db: Db,
  userId: string,
  id: string,
): Promise<TranscriptionRow | null> {
  const [r] = await db
    .select()
    .from(transcriptions)
    .where(and(eq(transcriptions.userId, userId), eq(transcriptions.id, id)))
    .limit(1);
  return r ?? null;
}

/** The transcriptions of `userId` among `ids` (others' and unknown ids are left out). */
export async function findTranscriptionsByIds(
  db: Db,
  userId: string,
  ids: string[],
): Promise<TranscriptionRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(transcriptions)
    .where(and(eq(transcriptions.userId, userId), inArray(transcriptions.id, ids)));
}

/** Id and status of the transcriptions of `userId` among `ids` (composition validation). */
export async function transcriptionStatuses(
  db: Db,
  userId: string,
  ids: string[],
): Promise<Map<string, TranscriptionStatus>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: transcriptions.id, status: transcriptions.status })
    .from(transcriptions)
    .where(and(eq(transcriptions.userId, userId), inArray(transcriptions.id, ids)));
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** A transcription by id regardless of owner (workers). */
export async function findTranscriptionById(db: Db, id: string): Promise<TranscriptionRow | null> {
  const [r] = await db.select().from(transcriptions).where(eq(transcriptions.id, id)).limit(1);
  return r ?? null;
}

/** A page of a user's transcriptions, newest first, filtered by upload and status. */
export async function listTranscriptionsPage(
  db: Db,
  input: {
    userId: string;
    uploadId?: string | undefined;
    status?: TranscriptionStatus | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: TranscriptionRow[]; hasMore: boolean }> {
  const conditions = [eq(transcriptions.userId, input.userId)];
  if (input.uploadId) conditions.push(eq(transcriptions.uploadId, input.uploadId));
  if (input.status) conditions.push(eq(transcriptions.status, input.status));
  if (input.afterId) conditions.push(lt(transcriptions.id, input.afterId));
  const rows = await db
    .select()
    .from(transcriptions)
    .where(and(...conditions))
    .orderBy(desc(transcriptions.id))
    .limit(input.limit + 1);
  return { rows: rows.slice(0, input.limit), hasMore: rows.length > input.limit };
}

/** Claims a queued or running transcription for a new attempt (the fence); null when terminal. */
export async function claimTranscription(db: Db, id: string, now: Date): Promise<TranscriptionRow | null> {
  const [r] = await db
    .update(transcriptions)
    .set({ attempt: sql`${transcriptions.attempt} + 1`, status: "running", heartbeatAt: now })
    .where(and(eq(transcriptions.id, id), inArray(transcriptions.status, ACTIVE)))
    .returning();
  return r ?? null;
}

const fence = (id: string, attempt: number) =>
  and(eq(transcriptions.id, id), eq(transcriptions.attempt, attempt), eq(transcriptions.status, "running"));

/** Fenced write by attempt `attempt` of a running transcription; false when the attempt lost it. */
export async function updateTranscriptionFenced(
  db: Db,
  input: { id: string; attempt: number; set: Partial<NewTranscription> },
): Promise<boolean> {
  const rows = await db
    .update(transcriptions)
    .set(input.set)
    .where(fence(input.id, input.attempt))
    .returning({ id: transcriptions.id });
  return rows.length > 0;
}

/** Records the vendor's request id once (fenced, only while none is stored). */
export async function setTranscriptionVendorRequestId(
  db: Db,
  input: { id: string; attempt: number; requestId: string },
): Promise<boolean> {
  const rows = await db
    .update(transcriptions)
    .set({ vendorRequestId: input.requestId })
    .where(and(fence(input.id, input.attempt), isNull(transcriptions.vendorRequestId)))
    .returning({ id: transcriptions.id });
  return rows.length > 0;
}

/**
 * Cancels a queued or running transcription of `userId`: `{ row, changed }`, the unchanged row
 * of a terminal one, or null when it does not exist.
 */
export async function cancelTranscriptionRow(
  db: Db,
  userId: string,
  id: string,
  now: Date,
): Promise<{ row: TranscriptionRow; changed: boolean } | null> {
  const [changed] = await db
    .update(transcriptions)
    .set({ status: "cancelled", finishedAt: now })
    .where(
      and(
        eq(transcriptions.userId, userId),
        eq(transcriptions.id, id),
        inArray(transcriptions.status, ACTIVE),
      ),
    )
    .returning();
  if (changed) return { row: changed, changed: true };
  const row = await findTranscription(db, userId, id);
  return row ? { row, changed: false } : null;
}

/** Status and attempt of a transcription (the worker's cancellation poll). */
export async function readTranscriptionControl(
  db: Db,
  id: string,
): Promise<{ status: TranscriptionStatus; attempt: number } | null> {
  const [r] = await db
    .select({ status: transcriptions.status, attempt: transcriptions.attempt })
    .from(transcriptions)
    .where(eq(transcriptions.id, id))
    .limit(1);
  return r ?? null;
}

/** Fails a queued or running transcription whatever attempt owns it (its worker is gone). */
export async function failTranscriptionUnfenced(
  db: Db,
  input: { id: string; error: { code: string; message: string }; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(transcriptions)
    .set({ status: "failed", error: input.error, finishedAt: input.now })
    .where(and(eq(transcriptions.id, input.id), inArray(transcriptions.status, ACTIVE)))
    .returning({ id: transcriptions.id });
  return rows.length > 0;
}

/** Current attempt and status of each of `ids` that exists (the work-directory sweep). */
export async function readTranscriptionAttempts(
  db: Db,
  ids: string[],
): Promise<Map<string, { attempt: number; status: TranscriptionStatus }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: transcriptions.id, attempt: transcriptions.attempt, status: transcriptions.status })
    .from(transcriptions)
    .where(inArray(transcriptions.id, ids));
  return new Map(rows.map((r) => [r.id, { attempt: r.attempt, status: r.status }]));
}
