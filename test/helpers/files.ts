import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";

/**
 * Every file under `dir` (recursively, dot-named temp files included), as paths relative to it;
 * `[]` when it does not exist. A recursive `readdir` fails as a whole when a subdirectory is
 * removed while it walks (the store prunes an upload's directory after deleting its files), so
 * such a walk is repeated rather than read as "no files".
 */
export async function filesUnder(dir: string): Promise<string[]> {
  let entries: Dirent[] = [];
  for (let attempt = 0; ; attempt++) {
    try {
      entries = await readdir(dir, { recursive: true, withFileTypes: true });
      break;
    } catch (err) {
      const rootGone = await stat(dir).then(
        () => false,
        () => true,
      );
      if (rootGone) return [];
      if (attempt >= 20) throw err;
    }
  }
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}
