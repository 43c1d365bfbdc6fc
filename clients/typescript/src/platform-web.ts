import { chunks } from "./streams.js";
import type { PreparedParts, UploadSource } from "./upload-source.js";

/**
 * Turns upload sources into multipart parts with web APIs only (browsers, Deno, workers): a
 * stream is collected into a Blob. A path cannot be read here.
 * @throws an Error naming the path when a source is a string.
 */
export async function prepareParts(files: UploadSource[]): Promise<PreparedParts> {
  const parts = await Promise.all(
    files.map(async (source) => {
      if (typeof source === "string") {
        throw new Error(
          `Cannot read the file path "${source}" outside Node.js; pass { name, blob } or { name, stream }`,
        );
      }
      if ("blob" in source) return source;
      const collected: BlobPart[] = [];
      // A copy: a view over a SharedArrayBuffer is not a BlobPart.
      for await (const chunk of chunks(source.stream)) collected.push(chunk.slice());
      return { name: source.name, blob: new Blob(collected) };
    }),
  );
  return { parts, release: async () => {} };
}
