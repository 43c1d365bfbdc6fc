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

interface KeyQueue {
  waiting: Waiter[];
  inFlight: number;
  /** A launch is scheduled for the end of this event-loop turn. */
  scheduled: boolean;
}

/** Most calls counted by one statement. */
const MAX_BATCH = 512;

function settle(batch: Waiter[], found: AuthenticatedKey | null): void {
  if (!found) {
    for (const w of batch) w.resolve({ found: null, granted: false, used: null });
    return;
  }
  if (found.usedAfter === null || found.usedBefore === null) {
    for (const w of batch) w.resolve({ found, granted: true, used: null });
    return;
  }
  const granted = found.usedAfter - found.usedBefore;
  const before = found.usedBefore;
  batch.forEach((w, i) => {
    w.resolve({ found, granted: i < granted, used: i < granted ? before + i + 1 : null });
  });
}

/**
 * Request coalescing for the auth + quota statement: concurrent requests carrying the same
 * key share one database round trip that counts them all at once. Up to `depth` statements
 * per key are in flight at a time; a request that arrives while all of them are busy waits
 * for the next one, which starts after it arrived — so a revocation committed before a
 * request arrives is always seen by it. Within a batch, calls are granted in arrival order:
 * the first `granted` waiters get quota. Batches in flight together are serialised by the
 * database's row lock on the counter, so the total granted stays exact.
 *
 * A depth above 1 keeps the event loop busy while a statement is on the wire (with depth 1
 * every request of a key waits for the same round trip and the process idles meanwhile).
 *
 * @param run - executes the statement for `calls` calls of key `hash`.
 * @param depth - statements per key in flight at once (≥ 1; default 2).
 * @returns `check(hash)`, resolving with that request's outcome.
 */
export function createAuthBatcher(
  run: (hash: string, calls: number) => Promise<AuthenticatedKey | null>,
  depth = 2,
) {
  const queues = new Map<string, KeyQueue>();

  function launch(hash: string, queue: KeyQueue): void {
    const batch = queue.waiting.splice(0, MAX_BATCH);
    queue.inFlight++;
    run(hash, batch.length)
      .then(
        (found) => settle(batch, found),
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      )
      .finally(() => {
        queue.inFlight--;
        if (queue.waiting.length > 0) launch(hash, queue);
        else if (queue.inFlight === 0) queues.delete(hash);
      });
  }

  return function check(hash: string): Promise<KeyCheck> {
    return new Promise<KeyCheck>((resolve, reject) => {
      let queue = queues.get(hash);
      if (!queue) {
        queue = { waiting: [], inFlight: 0, scheduled: false };
        queues.set(hash, queue);
      }
      const q = queue;
      q.waiting.push({ resolve, reject });
      // A free slot starts a statement once this turn's I/O callbacks have run, so requests
      // parsed together share it; otherwise the next statement to finish picks them up.
      if (q.inFlight < depth && !q.scheduled) {
        q.scheduled = true;
        setImmediate(() => {
          q.scheduled = false;
          if (q.waiting.length > 0 && q.inFlight < depth) launch(hash, q);
        });
      }
    });
  };
}
