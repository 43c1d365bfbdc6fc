import type { Client } from "openapi-fetch";
import { prepareParts } from "#platform";
import { CutroomError } from "./errors.js";
import type { paths } from "./schema.js";
import type { Upload } from "./types.js";
import type { UploadSource } from "./upload-source.js";

export type { UploadSource } from "./upload-source.js";

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
 * @throws an Error for a file path outside Node.js.
 */
export async function uploadFiles(api: Client<paths>, input: UploadFilesInput): Promise<Upload[]> {
  const { parts, release } = await prepareParts(input.files);
  try {
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
    await release();
  }
}
