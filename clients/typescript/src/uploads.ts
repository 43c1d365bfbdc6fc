import { createWriteStream, openAsBlob } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Client } from "openapi-fetch";
import { CutroomError } from "./errors.ts";
import type { paths } from "./schema.js";
import type { Upload } from "./types.ts";

/**
 * One file to upload: a path on disk (read as it is sent), or a name with a Blob or a
 * stream (a Node Readable or a web ReadableStream; spooled to a temporary file first, so
 * memory stays flat, and removed afterwards).
 */
export type UploadSource =
  | string
  | { name: string; blob: Blob }
  | { name: string; stream: Readable | ReadableStream<Uint8Array> };

/** Input of {@link uploadFiles}. */
export interface UploadFilesInput {
  /** A project of the caller; omitted, the uploads belong to no project. */
  projectId?: string;
  /** 1–20 files, each ≤ 512 MB (the server's default limit). */
  files: UploadSource[];
  signal?: AbortSignal;
}

/**
 * Uploads files in one multipart request (`POST /api/v1/uploads`): all are stored or none.
 * @returns the uploads, in the order of `files`.
 * @throws {CutroomError} with the server's code (e.g. 413 naming the file over the limit,
 *   415 for a type the server does not accept).
 */
export async function uploadFiles(api: Client<paths>, input: UploadFilesInput): Promise<Upload[]> {
  const spool = await mkdtemp(path.join(tmpdir(), "cutroom-upload-"));
  try {
    const parts = await Promise.all(input.files.map((f, i) => toPart(f, path.join(spool, String(i)))));
    const { data, error, response } = await api.POST("/api/v1/uploads", {
      body: { ...(input.projectId ? { projectId: input.projectId } : {}), file: parts.map((p) => p.blob) },
      bodySerializer: (body) => {
        const form = new FormData();
        // The server reads `projectId` before the files, so it goes first.
        if (body.projectId) form.append("projectId", body.projectId);
        body.file.forEach((blob, i) => {
          form.append("file", blob, parts[i]?.name ?? `file-${i}`);
        });
        return form;
      },
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (!data) throw CutroomError.from(response, error);
    return data.data;
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
}

async function toPart(source: UploadSource, spoolPath: string): Promise<{ name: string; blob: Blob }> {
  if (typeof source === "string") return { name: path.basename(source), blob: await openAsBlob(source) };
  if ("blob" in source) return source;
  const stream = source.stream instanceof Readable ? source.stream : Readable.fromWeb(source.stream);
  await pipeline(stream, createWriteStream(spoolPath));
  return { name: source.name, blob: await openAsBlob(spoolPath) };
}
