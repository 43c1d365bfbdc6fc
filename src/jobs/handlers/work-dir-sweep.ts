/**
 * Removes the scratch directories of render attempts that can no longer be running. Each
 * attempt works in `WORK_DIR/<renderId>-a<attempt>-<random>/` (downloaded sources, text and
 * subtitle files, the partial output) and removes it when it ends; a worker that is killed
 * leaves it behind, possibly gigabytes.
 */
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import { readRenderAttempts, TERMINAL_STATUSES } from "../../db/repositories/renders.ts";
import { repeatInBackground } from "../../repeat.ts";

/** How often a worker sweeps, milliseconds (10 minutes). */
export const SWEEP_INTERVAL_MS = 10 * 60_000;

const WORK_DIR_NAME = /^(rnd_[0-9A-Za-z]+)-a(\d+)-/;

/**
 * Deletes the directories under `workRoot` whose attempt is over: the render is gone or
 * terminal, or a later attempt has claimed it (the row's `attempt` is the fence). The
 * directory of the current attempt of an active render is kept: another worker sharing
 * `WORK_DIR` may be running it. Other names are left alone.
 *
 * @returns the names of the directories removed.
 */
export async function sweepRenderWorkDirs(db: Db, workRoot: string): Promise<string[]> {
  const names = await readdir(workRoot).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [] as string[];
    throw err;
  });
  const candidates = names.flatMap((name) => {
    const m = WORK_DIR_NAME.exec(name);
    return m ? [{ name, renderId: m[1] as string, attempt: Number(m[2]) }] : [];
  });
  const rows = await readRenderAttempts(db, [...new Set(candidates.map((c) => c.renderId))]);
  const removed: string[] = [];
  for (const c of candidates) {
    const row = rows.get(c.renderId);
    const over = !row || TERMINAL_STATUSES.includes(row.status) || row.attempt > c.attempt;
    if (!over) continue;
    const dir = path.join(workRoot, c.name);
    if (!(await stat(dir).catch(() => null))?.isDirectory()) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(c.name);
  }
  return removed;
}

/**
 * Sweeps now and every {@link SWEEP_INTERVAL_MS} in the background (see
 * `repeatInBackground`); failures are logged and retried at the next interval.
 *
 * @returns a function that stops the timer.
 */
export function startWorkDirSweeps(opts: { db: Db; workRoot: string; log: Logger }): () => void {
  return repeatInBackground(
    SWEEP_INTERVAL_MS,
    async () => {
      const removed = await sweepRenderWorkDirs(opts.db, opts.workRoot);
      if (removed.length > 0) opts.log.info({ removed }, "removed work directories of ended render attempts");
    },
    (err) => opts.log.warn({ err }, "work directory sweep failed; will retry"),
  );
}
