/**
 * Removes the scratch directories of job attempts that can no longer be running. Each
 * attempt of a job kind with a work directory works in
 * `WORK_DIR/<resourceId>-a<attempt>-<random>/` (see {@link attemptWorkDirPrefix}) and removes
 * it when it ends; a worker that is killed leaves it behind, possibly gigabytes.
 */
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { repeatInBackground } from "../repeat.ts";

/** How often a worker sweeps, milliseconds (10 minutes). */
export const SWEEP_INTERVAL_MS = 10 * 60_000;

/** A job kind whose attempts use work directories: its id prefix and how to read attempts. */
export interface WorkDirOwner {
  /** The resource ids' prefix without the underscore, e.g. `rnd` for `rnd_…`. */
  idPrefix: string;
  /** Current attempt of each of `ids` that exists, and whether it has ended (terminal). */
  readAttempts(ids: string[]): Promise<Map<string, { attempt: number; ended: boolean }>>;
}

/**
 * The name prefix of an attempt's work directory (`mkdtemp` adds the random part), e.g.
 * `rnd_abc-a2-`.
 */
export function attemptWorkDirPrefix(resourceId: string, attempt: number): string {
  return `${resourceId}-a${attempt}-`;
}

/**
 * Deletes the directories under `workRoot` whose attempt is over: the resource is gone or
 * terminal, or a later attempt has claimed it (the row's `attempt` is the fence). The
 * directory of the current attempt of an active resource is kept: another worker sharing
 * `WORK_DIR` may be running it. Names of no owner are left alone.
 *
 * @returns the names of the directories removed.
 */
export async function sweepWorkDirs(workRoot: string, owners: readonly WorkDirOwner[]): Promise<string[]> {
  const names = await readdir(workRoot).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [] as string[];
    throw err;
  });
  const removed: string[] = [];
  for (const owner of owners) {
    const pattern = new RegExp(`^(${owner.idPrefix}_[0-9A-Za-z]+)-a(\\d+)-`);
    const candidates = names.flatMap((name) => {
      const m = pattern.exec(name);
      return m ? [{ name, id: m[1] as string, attempt: Number(m[2]) }] : [];
    });
    if (candidates.length === 0) continue;
    const rows = await owner.readAttempts([...new Set(candidates.map((c) => c.id))]);
    for (const c of candidates) {
      const row = rows.get(c.id);
      const over = !row || row.ended || row.attempt > c.attempt;
      if (!over) continue;
      const dir = path.join(workRoot, c.name);
      if (!(await stat(dir).catch(() => null))?.isDirectory()) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(c.name);
    }
  }
  return removed;
}

/**
 * Sweeps now and every {@link SWEEP_INTERVAL_MS} in the background (see
 * `repeatInBackground`); failures are logged and retried at the next interval.
 *
 * @returns a function that stops the timer.
 */
export function startWorkDirSweeps(opts: {
  workRoot: string;
  owners: readonly WorkDirOwner[];
  log: Logger;
}): () => void {
  return repeatInBackground(
    SWEEP_INTERVAL_MS,
    async () => {
      const removed = await sweepWorkDirs(opts.workRoot, opts.owners);
      if (removed.length > 0) opts.log.info({ removed }, "removed work directories of ended job attempts");
    },
    (err) => opts.log.warn({ err }, "work directory sweep failed; will retry"),
  );
}
