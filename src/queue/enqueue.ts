/**
 * Sending jobs from the domain: an injected {@link Enqueue} function, so that domain code
 * neither imports the queue nor undoes its own insert when the send fails.
 */
import { sql } from "drizzle-orm";
import { fromDrizzle, type PgBoss } from "pg-boss";
import type { Db } from "../db/client.ts";
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
