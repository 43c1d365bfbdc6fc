import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";

/** Where test files share what is costly to make: `<repo>/tmp/test-cache`. */
export const TEST_CACHE_DIR = path.resolve(import.meta.dirname, "../../tmp/test-cache");

/**
 * A file made once and shared by every test file and run: its name is a hash of `key` (which
 * must name everything the content depends on: the full command, versions, inputs), so a
 * changed recipe makes a new file. When it is missing, `make(out)` writes it to a private path
 * that is then renamed into place (concurrent makers: the last rename wins, each is whole).
 *
 * @param key - the recipe: every input the content depends on.
 * @param name - a readable file name suffix, with its extension (e.g. `clip.mp4`).
 * @param make - writes the file at `out`; a rejection leaves nothing in the cache.
 * @returns the absolute path of the cached file.
 */
export async function cachedFile(
  key: string,
  name: string,
  make: (out: string) => Promise<void>,
): Promise<string> {
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 20);
  const file = path.join(TEST_CACHE_DIR, `${hash}-${name}`);
  if (existsSync(file)) return file;
  await mkdir(TEST_CACHE_DIR, { recursive: true });
  const out = path.join(TEST_CACHE_DIR, `.${process.pid}-${randomBytes(4).toString("hex")}-${name}`);
  try {
    await make(out);
    await rename(out, file);
  } finally {
    await rm(out, { force: true });
  }
  return file;
}
