import { invalidRequest, payloadTooLarge, unsupportedMediaType } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { uploadPrefix } from "../../storage/keys.ts";
import { stringProblem } from "../../text-guard.ts";
import {
  analyseReceived,
  type IncomingFile,
  type IngestedFile,
  isParseError,
  type ReceivedFile,
  receiveFile,
} from "./ingest.ts";

/** Most files in one upload request: bounds the work and the storage one request can start. */
export const MAX_FILES_PER_UPLOAD = 20;

/** A file part, shaped like @fastify/multipart's `MultipartFile` (only what we read). */
export interface UploadFilePart {
  type: "file";
  fieldname: string;
  filename: string;
  file: IncomingFile;
}

/** A text field part, shaped like @fastify/multipart's `MultipartValue`. */
export interface UploadFieldPart {
  type: "field";
  fieldname: string;
  value: unknown;
}

/** One part of a multipart/form-data upload request. */
export type UploadPart = UploadFilePart | UploadFieldPart;

/** Options of {@link ingestParts}. */
export interface IngestPartsOptions {
  store: BlobStore;
  /** Most files accepted (default {@link MAX_FILES_PER_UPLOAD}); one more → 400. */
  maxFiles?: number;
  /** Largest file, bytes (default 512 MiB). */
  maxBytes?: number;
  signal?: AbortSignal;
  /** The parts' file chunks are read by nothing else: see `IngestFileOptions.transferChunks`. */
  transferChunks?: boolean;
  /**
   * Called for each text field as it arrives (e.g. to check `projectId` before any file is
   * stored, when the client sends it first). Throwing fails the whole request.
   */
  onField?: (name: string, value: string) => void | Promise<void>;
}

/** Everything one upload request carried. */
export interface IngestPartsResult {
  /** The stored files, in request order. */
  files: IngestedFile[];
  /** Text fields (first value of each name), e.g. `{ projectId: "prj_…" }`. */
  fields: Record<string, string>;
}

/**
 * Consumes a multipart upload's parts in two phases — all or nothing:
 * 1. while the body streams in, each file is sniffed and streamed to storage
 *    ({@link receiveFile}); the count is checked as parts arrive, so the (`maxFiles` + 1)-th
 *    file ends the request before any of them is probed;
 * 2. once the whole body is read (the count is known to be within the limit), each file is
 *    probed and gets its poster ({@link analyseReceived}), one after the other.
 * If any part fails (415, 413, 400, client abort, storage error, `onField` throwing) every
 * object already stored for this request is deleted before the error is rethrown. The caller
 * must do the same with {@link discardIngested} if what it does afterwards (DB insert) fails.
 *
 * @param parts - e.g. `request.parts()` of @fastify/multipart.
 * @throws AppError 400 `invalid_request` when no file was sent or more than `maxFiles`, a
 *   multipart limit (parts, fields) was hit or the body is malformed multipart (a parse error
 *   without a `code`); 413/415/400 from {@link receiveFile} and {@link analyseReceived};
 *   anything else (aborted request, storage failure) unchanged.
 */
export async function ingestParts(
  parts: AsyncIterable<UploadPart>,
  opts: IngestPartsOptions,
): Promise<IngestPartsResult> {
  const maxFiles = opts.maxFiles ?? MAX_FILES_PER_UPLOAD;
  const received: ReceivedFile[] = [];
  const fields: Record<string, string> = {};
  let current: string | undefined;
  try {
    for await (const part of clientParts(parts)) {
      if (part.type === "field") {
        const value = typeof part.value === "string" ? part.value : String(part.value);
        refuseBadString(`/${part.fieldname}`, value);
        if (!(part.fieldname in fields)) fields[part.fieldname] = value;
        await opts.onField?.(part.fieldname, value);
        continue;
      }
      current = part.filename;
      refuseBadString(`/${part.fieldname}/filename`, part.filename);
      if (received.length >= maxFiles) {
        part.file.destroy();
        throw tooManyFiles(maxFiles);
      }
      received.push(
        await receiveFile({
          store: opts.store,
          file: part.file,
          filename: part.filename,
          ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(opts.transferChunks ? { transferChunks: true } : {}),
        }),
      );
    }
    if (received.length === 0)
      throw invalidRequest("The request carries no file (multipart/form-data part with a filename)");
    const files: IngestedFile[] = [];
    for (const file of received) {
      current = file.name;
      files.push(await analyseReceived(opts.store, file, opts.signal));
    }
    return { files, fields };
  } catch (err) {
    await discardIngested(opts.store, received);
    throw mapMultipartError(err, current, maxFiles);
  }
}

/**
 * Deletes every stored object of the given uploads (original and poster). Best effort and
 * idempotent: failures are swallowed (an orphan costs disk, a thrown cleanup error would hide
 * the real one).
 */
export async function discardIngested(
  store: BlobStore,
  files: readonly Pick<IngestedFile, "id">[],
): Promise<void> {
  await Promise.allSettled(files.map((f) => store.deletePrefix(uploadPrefix(f.id))));
}

/**
 * Iterates the request's parts, turning the parser's own errors for a malformed or truncated
 * body (busboy's carry no `code`, e.g. "Unexpected end of multipart data", "Boundary not found")
 * into 400s instead of letting them become 500s. Coded errors (limits, aborts) pass through.
 */
async function* clientParts(parts: AsyncIterable<UploadPart>): AsyncGenerator<UploadPart> {
  const it = parts[Symbol.asyncIterator]();
  let done = false;
  try {
    while (true) {
      let next: IteratorResult<UploadPart>;
      try {
        next = await it.next();
      } catch (err) {
        done = true;
        throw isParseError(err)
          ? invalidRequest(`The multipart/form-data body is malformed: ${(err as Error).message}`)
          : err;
      }
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await it.return?.();
  }
}

const tooManyFiles = (max: number) => invalidRequest(`Too many files: at most ${max} per request`);

/** Turns @fastify/multipart / busboy limit errors into our error catalogue; others pass through. */
function mapMultipartError(err: unknown, filename: string | undefined, maxFiles: number): unknown {
  switch ((err as { code?: unknown } | null)?.code) {
    case "FST_REQ_FILE_TOO_LARGE":
      return payloadTooLarge(`File "${filename ?? "file"}" is larger than the upload limit`);
    case "FST_FILES_LIMIT":
      return tooManyFiles(maxFiles);
    case "FST_PARTS_LIMIT":
    case "FST_FIELDS_LIMIT":
      return invalidRequest("Too many form fields");
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return unsupportedMediaType("Uploads must be sent as multipart/form-data");
    default:
      return err;
  }
}

/**
 * Refuses a multipart field value or file name that cannot be stored (a NUL character or an
 * unpaired surrogate): 400 naming the field, as JSON bodies get.
 * @throws AppError 400 `invalid_request` with a detail at `path`.
 */
function refuseBadString(path: string, value: string): void {
  const problem = stringProblem(value);
  if (problem) throw invalidRequest(`Invalid multipart field ${path.slice(1)}`, [{ path, message: problem }]);
}
