/**
 * Removes the scratch directories of job attempts that can no longer be running. Each
 * attempt of a job kind with a work directory works in
 * `WORK_DIR/<resourceId>-a<attempt>-<random>/` (see {@link attemptWorkDirPrefix}) and removes
 * it when it ends; a worker that is killed leaves it behind, possibly gigabytes.
 */
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
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
 * Makes the scratch directory of one attempt, `<workRoot>/<resourceId>-a<attempt>-<random>/`
 * (the caller removes it when the attempt ends). On a retry (`attempt` > 1) the attempt before
 * was lost with its worker and left its directory: the ended attempts of `owner` are swept first
 * (this attempt's claim is the fence), freeing that space at once instead of at the next
 * periodic sweep; a failed sweep is left to that one.
 * @returns the directory's absolute path.
 * @throws when the directory cannot be made.
 */
export async function makeAttemptWorkDir(opts: {
  workRoot: string;
  resourceId: string;
  attempt: number;
  owner: WorkDirOwner;
  log: Pick<Logger, "info">;
}): Promise<string> {
  await mkdir(opts.workRoot, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(opts.workRoot, attemptWorkDirPrefix(opts.resourceId, opts.attempt)));
  if (opts.attempt > 1) {
    const removed = await sweepWorkDirs(opts.workRoot, [opts.owner]).catch(() => []);
    if (removed.length > 0) opts.log.info({ removed }, "removed ended attempts' work directories");
  }
  return dir;
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
