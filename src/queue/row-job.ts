/**
 * The parts every job kind whose state lives in a row (generations, transcriptions) shares
 * around the fenced-attempt runner: the control read of a resource that `DELETE` cancels at
 * once, the pg-boss handler (one attempt per job, `worker_lost` when retries ran out) and the
 * work-directory owner for the sweep.
 */
import type { Logger } from "pino";
import type { AttemptControl, AttemptOutcome } from "./attempt-runner.ts";
import type { JobHandler } from "./registry.ts";
import type { WorkDirOwner } from "./work-dir-sweep.ts";

/** Statuses of a resource cancelled at once by `DELETE` (no `cancelling` state). */
type ImmediateCancelStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

/**
 * The control read of a resource that `DELETE` makes `cancelled` at once: a running attempt
 * reads `cancelled` as "being cancelled" (its final `cancelled` write is already done).
 * @param read - status and attempt of the row, or null when it is gone.
 */
export function immediateCancelControl(
  read: (id: string) => Promise<{ status: ImmediateCancelStatus; attempt: number } | null>,
): (id: string, attempt: number) => Promise<AttemptControl> {
  return async (id, attempt) => {
    const row = await read(id);
    if (!row || row.attempt !== attempt) return "superseded";
    if (row.status === "cancelled") return "cancelling";
    return row.status === "running" ? "ok" : "superseded";
  };
}

/**
 * A pg-boss handler running one fenced attempt per job; a job whose retries ran out (its worker
 * kept dying) fails its resource through `failLost`.
 * @param opts.kind - the resource's name in logs (`generation`, `transcription`).
 * @param opts.idOf - the resource id a job's payload points at.
 */
export function rowJobHandler<P extends object>(opts: {
  kind: string;
  idOf(data: P): string;
  runAttempt(id: string): Promise<AttemptOutcome>;
  failLost(id: string): Promise<unknown>;
  log: Logger;
  concurrency: number;
  pollingIntervalSeconds?: number | undefined;
}): JobHandler<P> {
  return {
    concurrency: opts.concurrency,
    ...(opts.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: opts.pollingIntervalSeconds }
      : {}),
    async run(data) {
      const id = opts.idOf(data);
      const outcome = await opts.runAttempt(id);
      opts.log.info({ [`${opts.kind}Id`]: id, outcome }, `${opts.kind} attempt ended`);
      return outcome;
    },
    async deadLetter(data) {
      await opts.failLost(opts.idOf(data));
    },
  };
}

/** The `worker_lost` error of a resource whose worker stopped responding on every attempt. */
export function workerLostError(kind: string): { code: string; message: string } {
  return {
    code: "worker_lost",
    message: `The worker running this ${kind} stopped responding on every attempt`,
  };
}

/**
 * The work-directory owner of a job kind (`<idPrefix>_…-a<attempt>-…` directories).
 * @param readAttempts - attempt and status of each id that exists.
 * @param terminal - statuses that never change again.
 */
export function rowWorkDirs<S extends string>(
  idPrefix: string,
  readAttempts: (ids: string[]) => Promise<Map<string, { attempt: number; status: S }>>,
  terminal: readonly S[],
): WorkDirOwner {
  return {
    idPrefix,
    async readAttempts(ids) {
      const rows = await readAttempts(ids);
      return new Map(
        [...rows].map(([id, r]) => [id, { attempt: r.attempt, ended: terminal.includes(r.status) }]),
      );
    },
  };
}
