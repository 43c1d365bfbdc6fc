import { stat } from "node:fs/promises";
import type { Logger } from "pino";
import type { Config } from "../config.ts";

/**
 * Makes every file and directory this process creates from now on private to its user:
 * umask 077, so PGlite's files, uploads, renders and scratch files are 0600 and their
 * directories 0700 (whatever mode the code that creates them asks for).
 */
export function restrictNewFiles(): void {
  process.umask(0o077);
}

/** The directories holding the instance's data: DATA_DIR, WORK_DIR and the local blob store's. */
export function privateDirs(config: Config): string[] {
  const dirs = [config.dataDir, config.workDir];
  if (config.storage.driver === "local") dirs.push(config.storage.dir);
  return [...new Set(dirs)];
}

/**
 * The directories of `dirs` that exist and that users other than their owner may read, write
 * or enter (any group or other permission bit), with their mode (`0755`).
 */
export async function looseDirs(dirs: readonly string[]): Promise<{ dir: string; mode: string }[]> {
  const loose: { dir: string; mode: string }[] = [];
  for (const dir of dirs) {
    const s = await stat(dir).catch(() => null);
    if (s?.isDirectory() && (s.mode & 0o077) !== 0)
      loose.push({ dir, mode: `0${(s.mode & 0o777).toString(8)}` });
  }
  return loose;
}

/**
 * Sets {@link restrictNewFiles} and logs one warning when a data directory of `config` that
 * already exists is open to other local users (they could read uploads or webhook secrets, or
 * write the database). Call first thing in a process entry point, before anything is created.
 */
export async function protectDataDirs(config: Config, log: Logger): Promise<void> {
  restrictNewFiles();
  const loose = await looseDirs(privateDirs(config));
  if (loose.length === 0) return;
  log.warn(
    { dirs: loose },
    `data directories other local users can open: ${loose.map((l) => `${l.dir} (${l.mode})`).join(", ")}; ` +
      `run: chmod -R go-rwx ${loose.map((l) => l.dir).join(" ")}`,
  );
}
