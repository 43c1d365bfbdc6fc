import { link, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Another live process holds the embedded database of a data directory. PGlite is a
 * single-process database: a second process opening the same files crashes inside PGlite with
 * a bare `Aborted()`, so the owner is detected first and named instead.
 */
export class DatabaseInUseError extends Error {
  readonly pid: number;
  readonly owner: string;
  readonly dataDir: string;

  constructor(dataDir: string, pid: number, owner: string) {
    super(
      `the database in ${dataDir} is in use by a running Cutroom ${owner} (pid ${pid}); stop it, or use the HTTP API, or set DATABASE_URL to a PostgreSQL server that several processes can share`,
    );
    this.name = "DatabaseInUseError";
    this.pid = pid;
    this.owner = owner;
    this.dataDir = dataDir;
  }
}

/** Name of the lock file inside the data directory (next to `pglite/`). */
export const PGLITE_LOCK_FILE = "pglite.lock";

interface LockContent {
  pid: number;
  owner: string;
}

/**
 * Takes the data directory's embedded-database lock for this process: creates
 * `dataDir/pglite.lock` exclusively (a hard link, so it appears with its content) holding
 * `{ pid, owner }`. A lock left by a process
 * that no longer runs (killed, crashed) is replaced. Returns the release function, which
 * removes the file if it still names this process.
 *
 * @param dataDir - the configured `DATA_DIR` (shown as given in the error message).
 * @param owner - what this process is, for the message another process prints ("server", "CLI"…).
 * @throws DatabaseInUseError when a live process other than this one holds the lock.
 */
export async function lockPgliteDataDir(dataDir: string, owner: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, PGLITE_LOCK_FILE);
  const mine: LockContent = { pid: process.pid, owner };
  for (let attempt = 0; attempt < 3; attempt++) {
    // Written aside, then hard-linked into place: the lock appears atomically with its content.
    const staged = `${file}.${process.pid}`;
    await writeFile(staged, `${JSON.stringify(mine)}\n`);
    try {
      await link(staged, file);
      return async () => {
        const held = await readLock(file);
        if (held?.pid === process.pid) await unlink(file).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      await unlink(staged).catch(() => {});
    }
    const held = await readLock(file);
    if (held && held.pid !== process.pid && isAlive(held.pid)) {
      throw new DatabaseInUseError(dataDir, held.pid, held.owner);
    }
    // Stale (its process is gone), unreadable, or our own leftover: replace it.
    await unlink(file).catch(() => {});
  }
  throw new Error(`could not take the database lock ${file}`);
}

async function readLock(file: string): Promise<LockContent | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<LockContent>;
    if (typeof parsed.pid !== "number" || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return { pid: parsed.pid, owner: typeof parsed.owner === "string" ? parsed.owner : "process" };
  } catch {
    return undefined;
  }
}

/** Whether a process with this id exists (signal 0 checks without sending anything). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
