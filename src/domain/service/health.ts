/** Readiness checks: does the database answer, and within how long. */
import type { Database } from "../../db/client.ts";

/** How long a readiness probe may take, ms. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Runs a readiness probe with a deadline.
 * @param ms - the deadline, milliseconds (2000 when not given).
 * @returns what `probe` resolves with.
 * @throws Error "timeout" when it has not settled within `ms`; else what `probe` throws.
 */
export async function probeWithin<T>(probe: () => Promise<T>, ms = PROBE_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database's health: its round trip in ms, or why it failed. */
export type DatabaseHealth = { ok: true; latencyMs: number } | { ok: false; error: string };

/** One database round trip within 2 s; never throws. */
export async function checkDatabase(database: Pick<Database, "ping">): Promise<DatabaseHealth> {
  try {
    return { ok: true, latencyMs: await probeWithin(() => database.ping()) };
  } catch (err) {
    const error =
      (err as Error).message === "timeout" ? "database did not answer within 2 s" : "database unreachable";
    return { ok: false, error };
  }
}
