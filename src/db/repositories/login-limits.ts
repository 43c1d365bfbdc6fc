import { eq, inArray, lt, sql, TransactionRollbackError } from "drizzle-orm";
import { type Db, rowsOf } from "../client.ts";
import { loginLimits } from "../schema/login-limits.ts";

/** A subject's current sign-in window. */
export interface LoginWindow {
  subject: string;
  /** When the window started; it ends `windowSec` later. */
  windowStart: Date;
  /** Attempts counted in the window. */
  count: number;
}

/**
 * Counts one sign-in attempt against every subject, all or none, in one transaction. Per
 * subject one upsert: a window that ended by `now` restarts at `now` with a count of 1; a
 * live window is incremented only while its count is below the subject's `max`. Exact under
 * concurrency: the upsert locks the subject's row until the transaction ends, and rows are
 * locked in the order given (pass subjects in one fixed order of kinds to avoid deadlocks).
 *
 * @param input.windowSec - window length, seconds.
 * @returns true when counted; false when some subject's window is full (nothing is counted).
 */
export async function countLoginAttempt(
  db: Db,
  input: { subjects: { subject: string; max: number }[]; now: Date; windowSec: number },
): Promise<boolean> {
  const now = input.now.toISOString();
  const ended = sql`login_limits.window_start <= ${now}::timestamptz - ${input.windowSec}::int * interval '1 second'`;
  try {
    await db.transaction(async (tx) => {
      for (const { subject, max } of input.subjects) {
        const result = await tx.execute(sql`
          insert into login_limits (subject, window_start, count) values (${subject}, ${now}::timestamptz, 1)
          on conflict (subject) do update set
            window_start = case when ${ended} then excluded.window_start else login_limits.window_start end,
            count = case when ${ended} then 1 else login_limits.count + 1 end
          where ${ended} or login_limits.count < ${max}::int
          returning count`);
        if (rowsOf(result).length === 0) tx.rollback();
      }
    });
    return true;
  } catch (err) {
    if (err instanceof TransactionRollbackError) return false;
    throw err;
  }
}

/** The stored windows of `subjects` (live or ended; absent subjects are left out). */
export async function findLoginWindows(db: Db, subjects: string[]): Promise<LoginWindow[]> {
  return db.select().from(loginLimits).where(inArray(loginLimits.subject, subjects));
}

/** Forgets `subject`'s window (a successful sign-in clears the account's count). Idempotent. */
export async function clearLoginWindow(db: Db, subject: string): Promise<void> {
  await db.delete(loginLimits).where(eq(loginLimits.subject, subject));
}

/**
 * Deletes the windows that started before `before`. Windows last at most a day, so with
 * `before` a day ago only ended windows go. Idempotent; safe to run from several processes.
 *
 * @returns the number of rows deleted.
 */
export async function deleteLoginWindowsBefore(db: Db, before: Date): Promise<number> {
  const gone = await db
    .delete(loginLimits)
    .where(lt(loginLimits.windowStart, before))
    .returning({ subject: loginLimits.subject });
  return gone.length;
}
