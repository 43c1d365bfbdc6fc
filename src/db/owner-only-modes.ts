import { chmod, lstat, readdir } from "node:fs/promises";
import path from "node:path";

/**
 * Takes the group and other permission bits off `dir` and everything under it (symlinks left
 * alone): PGlite writes the files of a new data directory with the modes its bundled image
 * carries (0666), whatever the process's umask.
 * @returns how many entries were changed.
 * @throws the file system's error when `dir` cannot be read.
 */
export async function ownerOnlyModes(dir: string): Promise<number> {
  let changed = 0;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const file of [dir, ...entries.map((e) => path.join(e.parentPath, e.name))]) {
    const s = await lstat(file).catch(() => null);
    if (!s || s.isSymbolicLink() || (s.mode & 0o077) === 0) continue;
    await chmod(file, s.mode & 0o700);
    changed++;
  }
  return changed;
}
