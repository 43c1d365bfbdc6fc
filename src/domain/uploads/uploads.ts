/**
 * The upload use cases of the API: the upload request (files, project, and which of them get
 * transcribed), list, fetch and delete, each scoped to the caller.
 */
import type { Db } from "../../db/client.ts";
import { deleteCacheEntriesOfUpload } from "../../db/repositories/render-cache.ts";
import type { TranscriptionRow } from "../../db/repositories/transcriptions.ts";
import {
  deleteUpload as deleteUploadRow,
  findUpload,
  listUploadsPage,
  type UploadRow,
} from "../../db/repositories/uploads.ts";
import { invalidRequest, notFound, rewriteInvalidRequest } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderCacheKey, uploadPrefix } from "../../storage/keys.ts";
import { type CreateTranscriptionDeps, createTranscription } from "../transcription/create.ts";
import { type CreateUploadsDeps, createUploadsFromParts } from "./create-uploads.ts";
import type { UploadPart } from "./ingest-parts.ts";
import type { UploadType } from "./upload-type.ts";

/** What the upload request needs beside {@link CreateUploadsDeps}. */
export interface UploadRequestDeps extends CreateUploadsDeps {
  /** Queues transcriptions asked for with the `transcribe` field (absent: the field is refused). */
  transcription?: Omit<CreateTranscriptionDeps, "db"> | undefined;
}

/**
 * Queues a transcription of each upload with sound, inside the uploads' transaction `tx`.
 * @param value - the `transcribe` field: `true`, or an ISO 639-1 language code.
 * @throws AppError 400 naming `/transcribe` for another value, a language the engine cannot do,
 *   or when this server does not transcribe.
 */
async function transcribeAtIngest(
  deps: UploadRequestDeps,
  userId: string,
  rows: UploadRow[],
  value: string,
  tx: Db,
): Promise<TranscriptionRow[]> {
  const transcription = deps.transcription;
  if (!transcription || !(value === "true" || /^[A-Za-z]{2}$/.test(value))) {
    throw invalidRequest("transcribe must be true or an ISO 639-1 language code", [
      { path: "/transcribe", message: "must be true, false or a language code such as en" },
    ]);
  }
  const out: TranscriptionRow[] = [];
  for (const row of rows.filter((r) => r.media?.hasAudio)) {
    const language = value === "true" ? undefined : value;
    out.push(
      await rewriteInvalidRequest(
        () => createTranscription({ ...transcription, db: tx }, userId, { uploadId: row.id, language }, tx),
        { detail: (d) => (d.path === "/language" ? { ...d, path: "/transcribe" } : d) },
      ),
    );
  }
  return out;
}

/**
 * The upload request: stores the multipart `parts` as uploads of the caller (all or nothing) and,
 * when the `transcribe` field is `true` or a language code, queues a transcription of every
 * upload with sound in the same transaction.
 * @param input.parts - e.g. `request.parts()` of @fastify/multipart.
 * @param input.checkProjectId - refuses (throws) a `projectId` field the caller may not use.
 * @param input.defaultProjectId - the uploads' project when the request names none.
 * @returns the uploads in request order, and the transcriptions queued (none without `transcribe`).
 * @throws AppError 404 for a foreign project; 400/413/415 naming the file or field; a client
 *   abort (`signal`), storage and database errors unchanged. Nothing is kept when it throws.
 */
export async function receiveUploads(
  deps: UploadRequestDeps,
  input: {
    userId: string;
    parts: AsyncIterable<UploadPart>;
    maxBytes: number;
    signal: AbortSignal;
    transferChunks: boolean;
    checkProjectId: (projectId: string) => void;
    defaultProjectId: string | null;
  },
): Promise<{ uploads: UploadRow[]; transcriptions: TranscriptionRow[] }> {
  const transcriptions: TranscriptionRow[] = [];
  const uploads = await createUploadsFromParts(deps, {
    ...input,
    afterInsert: async (tx, inserted, fields) => {
      if (fields.transcribe === undefined || fields.transcribe === "false") return;
      transcriptions.push(...(await transcribeAtIngest(deps, input.userId, inserted, fields.transcribe, tx)));
    },
  });
  return { uploads, transcriptions };
}

/** One page of the caller's uploads, newest first, optionally of one project and type. */
export function listUploads(
  db: Db,
  input: {
    userId: string;
    projectId?: string | undefined;
    type?: UploadType | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: UploadRow[]; hasMore: boolean }> {
  return listUploadsPage(db, input);
}

/**
 * The caller's upload `id`.
 * @throws AppError 404 when it is absent or another owner's.
 */
export async function getUpload(db: Db, userId: string, id: string): Promise<UploadRow> {
  const upload = await findUpload(db, userId, id);
  if (!upload) throw notFound(`Upload ${id}`);
  return upload;
}

/**
 * Deletes the caller's upload, its stored files and the render-cache entries of parts that read
 * it; nothing happens when it is absent or
 * another owner's (idempotent).
 * @throws storage errors when the files cannot be removed (the row is gone already).
 */
export async function deleteUpload(
  deps: { db: Db; store: BlobStore },
  userId: string,
  id: string,
): Promise<void> {
  const removed = await deleteUploadRow(deps.db, userId, id);
  if (!removed) return;
  await deps.store.deletePrefix(uploadPrefix(removed.id));
  // Rendered parts that read it go too (a part whose upload is gone is never reused anyway).
  const cached = await deleteCacheEntriesOfUpload(deps.db, userId, removed.id);
  await Promise.all(cached.map((key) => deps.store.delete(renderCacheKey(userId, key))));
}
