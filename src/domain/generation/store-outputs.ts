import { inArray } from "drizzle-orm";
import { fileTypeFromFile } from "file-type";
import type { Db } from "../../db/client.ts";
import type { GenerationRow } from "../../db/repositories/generations.ts";
import { uploads } from "../../db/schema/uploads.ts";
import { AppError } from "../../errors.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { uploadPrefix } from "../../storage/keys.ts";
import { createUploads } from "../uploads/create-uploads.ts";
import { GenerationError } from "./errors.ts";
import type { ProviderOutput } from "./providers/types.ts";

/**
 * Stores a generation's output files as uploads of its owner (origin `generated`, the generation
 * id, its project), all or nothing. Resolves with the new upload ids in output order.
 */
export type StoreOutputs = (generation: GenerationRow, files: ProviderOutput[]) => Promise<string[]>;

/** Removes uploads made by {@link StoreOutputs} that nobody will see (rows and objects). */
export type DiscardOutputs = (uploadIds: string[]) => Promise<void>;

/** Characters of the prompt an output's name keeps at most (cut at a word). */
const NAME_CHARS = 60;

/**
 * The file name of output `index` (0-based) of `count` of a generation: its prompt's first words
 * ("A lighthouse at dusk.png"; "… (2).png" for the second of several), path separators and
 * control characters left out; the generation id when the prompt leaves nothing.
 */
export function outputName(
  generation: Pick<GenerationRow, "id" | "prompt">,
  index: number,
  count: number,
  ext: string | undefined,
): string {
  const words = generation.prompt
    .replace(/[\p{Cc}/\\:*?"<>|]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  let stem = words.length <= NAME_CHARS ? words : words.slice(0, NAME_CHARS).replace(/\s+\S*$/, "");
  stem = stem.replace(/[.\s]+$/, "") || generation.id;
  const n = count > 1 ? ` (${index + 1})` : "";
  return `${stem}${n}${ext ? `.${ext}` : ""}`;
}

/**
 * {@link StoreOutputs} on the one upload-creation path (`createUploads`): each file is typed from
 * its bytes, probed and given a poster like a client upload, named from the prompt ({@link outputName}),
 * and all rows are inserted in one statement with `origin: "generated"` and the generation id.
 * When any file fails, nothing stays stored.
 * @throws GenerationError `vendor_error` when an output is not media the API accepts.
 */
export function createStoreOutputs(deps: {
  db: Db;
  store: BlobStore;
  maxBytes: number;
  /** Queues the preview proxy jobs of generated videos with their rows. */
  enqueue?: Enqueue;
}): StoreOutputs {
  return async (generation, files) => {
    const sources = await Promise.all(
      files.map(async (f, i) => {
        const ext = (await fileTypeFromFile(f.path).catch(() => undefined))?.ext;
        return { path: f.path, filename: outputName(generation, i, files.length, ext) };
      }),
    );
    try {
      const rows = await createUploads(
        deps,
        {
          userId: generation.userId,
          projectId: generation.projectId,
          row: { origin: "generated", generationId: generation.id },
        },
        sources,
        { maxBytes: deps.maxBytes },
      );
      return rows.map((r) => r.id);
    } catch (err) {
      if (err instanceof AppError) {
        throw new GenerationError("vendor_error", `An output could not be stored: ${err.message}`);
      }
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
