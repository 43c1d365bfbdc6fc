/**
 * Creating uploads: the one path by which a file becomes an upload, whether a client sent it
 * (multipart request), a job produced it (a generated image, an assistant's result) or a phone
 * handed it over. Each file is ingested (stored, typed from its bytes, probed, given a poster),
 * then the rows are inserted; when anything fails, every stored object is deleted.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type { Db } from "../../db/client.ts";
import { findProject } from "../../db/repositories/projects.ts";
import { insertUploads, type NewUpload, type UploadRow } from "../../db/repositories/uploads.ts";
import { notFound } from "../../errors.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { type IncomingFile, type IngestedFile, ingestFile } from "./ingest.ts";
import { discardIngested, ingestParts, type UploadPart } from "./ingest-parts.ts";
import { queuePreviewProxies, wantsPreviewProxy } from "./preview-proxy.ts";

/** Where a new upload's bytes come from. */
export type UploadSource =
  /** A stream read once (e.g. a request's file part); `transferChunks` when nothing else reads its chunks. */
  | { stream: IncomingFile; filename: string | undefined; transferChunks?: boolean }
  /** A local file (e.g. a job's output in its work directory). */
  | { path: string; filename: string | undefined }
  /** Bytes in memory (e.g. a vendor's small result). */
  | { data: Uint8Array; filename: string | undefined };

/** Who owns the new uploads and what else their rows carry. */
export interface UploadOwner {
  userId: string;
  /** A project of the user, or null. Not checked here (see {@link createUploadsFromParts}). */
  projectId: string | null;
  /** Further columns of every row (e.g. where a generated file came from). */
  row?: Partial<Omit<NewUpload, "id" | "userId" | "projectId">>;
}

/**
 * What creating uploads needs: the database (or a transaction) and the blob store; with
 * `events`, the rows and their `upload.created` webhook events are written in one transaction;
 * with `enqueue`, so are the `preview_proxy` jobs of new videos (`preview_proxy` `pending`).
 * Without it (tools and tests without a queue) videos get no proxy and preview from their original.
 */
export interface CreateUploadsDeps {
  db: Db;
  store: BlobStore;
  events?: WebhookEvents;
  enqueue?: Enqueue;
}

/** Limits and cancellation of one creation. */
export interface CreateUploadsOptions {
  /** Largest file, bytes (default 512 MiB); one byte more → 413. */
  maxBytes?: number;
  /** Aborts storing and media work. */
  signal?: AbortSignal;
}

function sourceStream(source: UploadSource): IncomingFile {
  if ("stream" in source) return source.stream;
  if ("path" in source) return createReadStream(source.path);
  return Readable.from([Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength)]);
}

/**
 * Ingests `sources` one after the other and inserts their rows (one statement). All or nothing.
 *
 * @returns the rows, in the order of `sources`.
 * @throws AppError 415/413/400 naming the file (see `ingestFile`); database and storage errors
 *   unchanged. Nothing stays stored when it throws.
 */
export async function createUploads(
  deps: CreateUploadsDeps,
  owner: UploadOwner,
  sources: readonly UploadSource[],
  opts: CreateUploadsOptions = {},
): Promise<UploadRow[]> {
  const files: IngestedFile[] = [];
  try {
    for (const source of sources) {
      files.push(
        await ingestFile({
          store: deps.store,
          file: sourceStream(source),
          filename: source.filename,
          ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...("stream" in source && source.transferChunks ? { transferChunks: true } : {}),
        }),
      );
    }
  } catch (err) {
    await discardIngested(deps.store, files);
    throw err;
  }
  return insertIngested(deps, owner, files);
}

/**
 * The multipart upload request: consumes its parts (files streamed to storage as they arrive,
 * `projectId` field checked against the user's projects when it arrives), then inserts the rows.
 * All or nothing.
 *
 * @param input.parts - e.g. `request.parts()` of @fastify/multipart.
 * @returns the rows, in request order.
 * @throws AppError 404 for a `projectId` that is not one of the user's projects; 400/413/415 from
 *   `ingestParts`; anything else (client abort, storage, database) unchanged.
 */
export async function createUploadsFromParts(
  deps: CreateUploadsDeps,
  input: {
    userId: string;
    parts: AsyncIterable<UploadPart>;
    maxBytes: number;
    signal?: AbortSignal;
    /** The parts' chunks are read by nothing else (a request body's). */
    transferChunks?: boolean;
    /** Refuses (throws) a `projectId` field the caller may not use, before it is looked up. */
    checkProjectId?: (projectId: string) => void;
    /** Project of the uploads when the request names none (e.g. a phone capture link's). */
    defaultProjectId?: string | null;
    /**
     * Runs in the rows' transaction with the inserted rows and the request's text fields (e.g.
     * queues their transcriptions); when it throws, nothing of the request is kept.
     */
    afterInsert?: (tx: Db, rows: UploadRow[], fields: Record<string, string>) => Promise<void>;
  },
): Promise<UploadRow[]> {
  let projectId: string | null = null;
  const { files, fields } = await ingestParts(input.parts, {
    store: deps.store,
    maxBytes: input.maxBytes,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.transferChunks ? { transferChunks: true } : {}),
    onField: async (name, value) => {
      if (name !== "projectId") return;
      input.checkProjectId?.(value);
      if (!(await findProject(deps.db, input.userId, value))) throw notFound(`Project ${value}`);
      projectId = value;
    },
  });
  if (fields.projectId && projectId === null) {
    await discardIngested(deps.store, files);
    throw notFound(`Project ${fields.projectId}`);
  }
  const { afterInsert } = input;
  return insertIngested(
    deps,
    { userId: input.userId, projectId: projectId ?? input.defaultProjectId ?? null },
    files,
    afterInsert ? (tx, rows) => afterInsert(tx, rows, fields) : undefined,
  );
}

/** Inserts the rows of ingested files; deletes their objects when the insert fails. */
async function insertIngested(
  deps: CreateUploadsDeps,
  owner: UploadOwner,
  files: readonly IngestedFile[],
  afterInsert?: (tx: Db, rows: UploadRow[]) => Promise<void>,
): Promise<UploadRow[]> {
  let rows: UploadRow[];
  const values = files.map(
    (f): NewUpload => ({
      ...owner.row,
      id: f.id,
      userId: owner.userId,
      projectId: owner.projectId,
      type: f.type,
      mimeType: f.mimeType,
      name: f.name,
      size: f.size,
      sha256: f.sha256,
      storageKey: f.key,
      posterKey: f.posterKey,
      media: f.media,
      fontFamilies: f.fontFamilies,
      previewProxy: deps.enqueue && wantsPreviewProxy(f.type, f.media) ? { status: "pending" } : null,
    }),
  );
  const { events, enqueue } = deps;
  try {
    rows =
      events || afterInsert || enqueue
        ? await deps.db.transaction(async (tx) => {
            const inserted = await insertUploads(tx, values);
            if (enqueue) await queuePreviewProxies(enqueue, tx, inserted);
            await events?.uploadsCreated(tx, inserted);
            await afterInsert?.(tx, inserted);
            return inserted;
          })
        : await insertUploads(deps.db, values);
  } catch (err) {
    await discardIngested(deps.store, files);
    throw err;
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  return files.map((f) => byId.get(f.id) as UploadRow);
}
