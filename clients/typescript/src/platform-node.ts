import { createWriteStream, openAsBlob } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { chunks } from "./streams.js";
import type { PreparedParts, UploadPart, UploadSource } from "./upload-source.js";

/**
 * Turns upload sources into multipart parts on Node: a path becomes a Blob read from disk as
 * it is sent (`fs.openAsBlob`); a stream is spooled to a temporary file first, so memory
 * stays flat. `release()` removes the temporary files.
 * @throws the file system's error for a path that cannot be opened.
 */
export async function prepareParts(files: UploadSource[]): Promise<PreparedParts> {
  const spool = await mkdtemp(path.join(tmpdir(), "cutroom-upload-"));
  const release = () => rm(spool, { recursive: true, force: true });
  try {
    const parts = await Promise.all(
      files.map(async (source, i): Promise<UploadPart> => {
        if (typeof source === "string")
          return { name: path.basename(source), blob: await openAsBlob(source) };
        if ("blob" in source) return source;
        const file = path.join(spool, String(i));
        await pipeline(chunks(source.stream), createWriteStream(file));
        return { name: source.name, blob: await openAsBlob(file) };
      }),
    );
    return { parts, release };
  } catch (err) {
    await release();
    throw err;
  }
}
