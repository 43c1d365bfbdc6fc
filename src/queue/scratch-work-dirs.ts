import { decodeTime, isValid, ulid } from "ulid";
import { attemptWorkDirPrefix, type WorkDirOwner } from "./work-dir-sweep.ts";

/** A preflight or a preview lasts minutes (downloads and runs are time-limited); one whose directory is older was left by a process that died. */
const PREFLIGHT_MAX_AGE_MS = 60 * 60_000;

/**
 * Scratch directories made outside any resource's attempts: `pfl` a preflight's, `frm` a
 * preview frame's, `pvw` a preview video's (the API process), `prx` a preview proxy build's (a
 * worker's `preview_proxy` job, which lasts at most an hour).
 */
export type ScratchKind = "pfl" | "frm" | "pvw" | "prx";

/**
 * The name prefix of a new scratch directory of `kind` under `WORK_DIR`:
 * `<kind>_<ULID>-a1-` (`mkdtemp` adds the random part), so that the work-directory sweep can
 * tell its age.
 */
export function scratchWorkDirPrefix(kind: ScratchKind): string {
  return attemptWorkDirPrefix(`${kind}_${ulid()}`, 1);
}

/**
 * Scratch directories of one kind for the work-directory sweep: each
 * removes its own directory when it ends, so one whose ULID is over an hour old was left behind
 * by an API process that died meanwhile and is removed.
 *
 * @param now - the current time (tests pass a later one).
 */
export function scratchWorkDirs(kind: ScratchKind, now: () => Date = () => new Date()): WorkDirOwner {
  return {
    idPrefix: kind,
    async readAttempts(ids) {
      const rows = new Map<string, { attempt: number; ended: boolean }>();
      for (const id of ids) {
        const time = id.slice(kind.length + 1);
        // A name this code did not make is left alone.
        if (!isValid(time)) {
          rows.set(id, { attempt: 1, ended: false });
          continue;
        }
        rows.set(id, { attempt: 1, ended: now().getTime() - decodeTime(time) > PREFLIGHT_MAX_AGE_MS });
      }
      return rows;
    },
  };
}
