import type { AuthenticatedKey } from "../../db/repositories/api-keys.ts";

/** The outcome of one request's key check. */
export interface KeyCheck {
  /** The live key and its owner, or null for an unknown or revoked key. */
  found: AuthenticatedKey | null;
  /** Whether this call is within the quota (always true for unlimited plans). */
  granted: boolean;
  /** The account's counter including this call (null when refused or unlimited). */
  used: number | null;
}

interface Waiter {
  resolve(check: KeyCheck): void;
  reject(err: unknown): void;
}

/** Most calls counted by one statement. */
const MAX_BATCH = 512;

/**
 * Request coalescing for the auth + quota statement: concurrent requests carrying the same
 * key share one database round trip that counts them all at once. A request that arrives
 * while a statement for its key is in flight waits for the next one, which starts after
 * it arrived — so a revocation committed before a request arrives is always seen by it.
 * Calls are granted in arrival order: the first `granted` waiters of a batch get quota.
 *
 * @param run - executes the statement for `calls` calls of key `hash`.
 * @returns `check(hash)`, resolving with that request's outcome.
 */
export function createAuthBatcher(run: (hash: string, calls: number) => Promise<AuthenticatedKey | null>) {
  const queues = new Map<string, Waiter[]>();

  async function drain(hash: string, waiting: Waiter[]): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const found = await run(hash, batch.length);
        batch.forEach((w, i) => {
          if (!found) {
            w.resolve({ found: null, granted: false, used: null });
          } else if (found.usedAfter === null || found.usedBefore === null) {
            w.resolve({ found, granted: true, used: null });
          } else {
            const granted = found.usedAfter - found.usedBefore;
            w.resolve({ found, granted: i < granted, used: i < granted ? found.usedBefore + i + 1 : null });
          }
        });
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    queues.delete(hash);
  }

  return function check(hash: string): Promise<KeyCheck> {
    return new Promise<KeyCheck>((resolve, reject) => {
      const waiting = queues.get(hash);
      if (waiting) {
        waiting.push({ resolve, reject });
        return;
      }
      const fresh: Waiter[] = [{ resolve, reject }];
      queues.set(hash, fresh);
      void drain(hash, fresh);
    });
  };
}
