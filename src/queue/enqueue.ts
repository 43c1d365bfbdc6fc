/**
 * Sending jobs from the domain: an injected {@link Enqueue} function, so that domain code
 * neither imports the queue nor undoes its own insert when the send fails.
 */
import { sql } from "drizzle-orm";
import { fromDrizzle, type PgBoss } from "pg-boss";
import type { Db } from "../db/client.ts";
import { AppError } from "../errors.ts";
import type { JobDefinition } from "./registry.ts";

/** One job to send. */
export interface JobToSend<P extends object> {
  job: JobDefinition<P>;
  data: P;
  /** Expiry of one attempt, seconds (default: the kind's policy, else pg-boss's). */
  expireInSeconds?: number;
  /**
   * Higher runs first (pg-boss orders by priority, then age); default 0. Integer. Used for
   * fairness across accounts: an account's n-th waiting job gets `-n`.
   */
  priority?: number;
  /** The job is not taken before this many seconds from now (default: at once). */
  startAfterSeconds?: number;
}

/**
 * Sends a job. With `tx` (a Drizzle transaction), the job row is written inside that
 * transaction: it exists exactly when the transaction commits, so a rolled-back insert
 * leaves no job and a failed send rolls the insert back.
 *
 * @throws whatever the queue's database throws (the caller's transaction then rolls back).
 */
export type Enqueue = <P extends object>(job: JobToSend<P>, tx?: Db) => Promise<void>;

/** The {@link Enqueue} of a pg-boss instance (sends inside `tx` through pg-boss's Drizzle adapter). */
export function createEnqueue(boss: PgBoss): Enqueue {
  return async (j, tx) => {
    await boss.send(j.job.name, j.data, {
      ...(j.expireInSeconds !== undefined ? { expireInSeconds: j.expireInSeconds } : {}),
      ...(j.priority ? { priority: j.priority } : {}),
      ...(j.startAfterSeconds ? { startAfter: j.startAfterSeconds } : {}),
      ...(tx ? { db: fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql) } : {}),
    });
  };
}

/** Sends one job inside the transaction that {@link insertWithJob} opened. */
export type SendInTransaction = <P extends object>(job: JobToSend<P>) => Promise<void>;

/**
 * 503 `unavailable` (`Retry-After: 5`): the queue refused a new resource's job, so its insert was
 * rolled back and nothing was started. `cause` is the queue's error.
 */
export class JobNotQueuedError extends AppError {
  constructor(resource: string, cause: unknown) {
    super("unavailable", `The ${resource} could not be queued; try again shortly`, {
      headers: { "Retry-After": "5" },
      extra: { cause: cause instanceof Error ? cause.name : "Error" },
    });
    this.cause = cause;
  }
}

/**
 * Writes a new resource and sends its job in one transaction, so the row and its job commit
 * together: a refused send rolls the insert back, a failed insert sends nothing.
 * @param write - inserts the row (and what goes with it, e.g. its callback) in `tx` and sends
 *   the job with `send`; what it returns is returned.
 * @param opts.resource - the resource's name in the 503 message (`render`, `auto-edit`).
 * @param opts.tx - an open transaction to write in instead of a new one of `deps.db`.
 * @throws JobNotQueuedError (503) when the queue refuses the job; whatever `write` throws.
 */
export async function insertWithJob<T>(
  deps: { db: Db; enqueue: Enqueue },
  opts: { resource: string; tx?: Db | undefined },
  write: (tx: Db, send: SendInTransaction) => Promise<T>,
): Promise<T> {
  const inTransaction = (tx: Db) =>
    write(tx, (job) =>
      deps.enqueue(job, tx).catch((err: unknown) => {
        throw new JobNotQueuedError(opts.resource, err);
      }),
    );
  return opts.tx ? inTransaction(opts.tx) : deps.db.transaction(inTransaction);
}
