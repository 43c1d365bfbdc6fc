import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type TranscriptionStatus, transcriptions } from "../schema/transcriptions.ts";
import { newestFirstPage } from "./newest-first-page.ts";
import { rowJobRows } from "./row-job-rows.ts";

/** A transcription row. */
export type TranscriptionRow = typeof transcriptions.$inferSelect;
/** Values of a new transcription row. */
export type NewTranscription = typeof transcriptions.$inferInsert;

/** Statuses that never change again. */
export const TRANSCRIPTION_TERMINAL: TranscriptionStatus[] = ["succeeded", "failed", "cancelled"];
const ACTIVE: TranscriptionStatus[] = ["queued", "running"];

/** The worker's statements on transcriptions: claim, fenced writes, control read, `worker_lost`, attempts. */
export const transcriptionRows = rowJobRows<TranscriptionRow, NewTranscription, TranscriptionStatus>(
  transcriptions,
);

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
  return newestFirstPage(db, transcriptions, conditions, input);
}

const fence = (id: string, attempt: number) =>
  and(eq(transcriptions.id, id), eq(transcriptions.attempt, attempt), eq(transcriptions.status, "running"));

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
