import { createReadStream } from "node:fs";
import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { GenerationRow } from "../../db/repositories/generations.ts";
import { insertUploads } from "../../db/repositories/uploads.ts";
import { uploads } from "../../db/schema/uploads.ts";
import { AppError } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { uploadPrefix } from "../../storage/keys.ts";
import { type IngestedFile, ingestFile } from "../uploads/ingest.ts";
import { discardIngested } from "../uploads/ingest-parts.ts";
import { GenerationError } from "./errors.ts";
import type { ProviderOutput } from "./providers/types.ts";

/**
 * Stores a generation's output files as uploads of its owner (origin `generated`, the generation
 * id, its project), all or nothing. Resolves with the new upload ids in output order.
 */
export type StoreOutputs = (generation: GenerationRow, files: ProviderOutput[]) => Promise<string[]>;

/** Removes uploads made by {@link StoreOutputs} that nobody will see (rows and objects). */
export type DiscardOutputs = (uploadIds: string[]) => Promise<void>;

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov",
};

/**
 * {@link StoreOutputs} on the upload ingest: each file is typed from its bytes, probed and given a
 * poster like a client upload, then all rows are inserted in one statement. When any file fails,
 * every object stored for the call is deleted before the error is thrown.
 * @throws GenerationError `vendor_error` when an output is not media the API accepts.
 */
export function createStoreOutputs(deps: { db: Db; store: BlobStore; maxBytes: number }): StoreOutputs {
  return async (generation, files) => {
    const ingested: IngestedFile[] = [];
    try {
      for (const [i, f] of files.entries()) {
        try {
          ingested.push(
            await ingestFile({
              store: deps.store,
              file: createReadStream(f.path),
              filename: `${generation.id}-${i + 1}`,
              maxBytes: deps.maxBytes,
            }),
          );
        } catch (err) {
          if (err instanceof AppError) {
            throw new GenerationError("vendor_error", `Output ${i + 1} could not be stored: ${err.message}`);
          }
          throw err;
        }
      }
      const rows = await insertUploads(
        deps.db,
        ingested.map((f) => ({
          id: f.id,
          userId: generation.userId,
          projectId: generation.projectId,
          type: f.type,
          mimeType: f.mimeType,
          name: EXTENSIONS[f.mimeType] ? `${f.name}.${EXTENSIONS[f.mimeType]}` : f.name,
          size: f.size,
          sha256: f.sha256,
          storageKey: f.key,
          posterKey: f.posterKey,
          media: f.media,
          origin: "generated" as const,
          generationId: generation.id,
        })),
      );
      return rows.map((r) => r.id);
    } catch (err) {
      await discardIngested(deps.store, ingested);
      throw err;
    }
  };
}

/** {@link DiscardOutputs}: deletes the upload rows, then their objects. */
export function createDiscardOutputs(deps: { db: Db; store: BlobStore }): DiscardOutputs {
  return async (ids) => {
    if (ids.length === 0) return;
    await deps.db.delete(uploads).where(inArray(uploads.id, ids));
    await Promise.allSettled(ids.map((id) => deps.store.deletePrefix(uploadPrefix(id))));
  };
}
