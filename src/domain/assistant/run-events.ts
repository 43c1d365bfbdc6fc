import type { Database } from "../../db/client.ts";
import { CHANNELS, type Notifications } from "../../db/notifications.ts";
import { type RunEventRow, runEventsAfter, runStatus } from "../../db/repositories/assistant.ts";

/** Terminal event types: exactly one ends every run's stream. */
export const TERMINAL_EVENTS = new Set(["done", "error"]);

/**
 * Yields the stored events of a run after `afterSeq`, then tails new ones as they are stored
 * (woken by the run's notifications, polling every `pollMs` as a fallback) until the terminal event or `signal`.
 * A run that stopped running without one more event (its session was deleted) ends the tail
 * too. Reads only the database, so any process can serve any run.
 */
export async function* tailRunEvents(
  deps: { database: Database; notifications: Notifications; pollMs: number },
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<RunEventRow> {
  let wake: (() => void) | null = null;
  let dirty = true;
  const unsubscribe = deps.notifications.subscribe(CHANNELS.runEvents, runId, () => {
    dirty = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);
  let seq = afterSeq;
  let quietPolls = 0;
  try {
    while (!signal.aborted) {
      dirty = false;
      const rows = await runEventsAfter(deps.database.db, runId, seq);
      if (rows.length > 0) quietPolls = 0;
      for (const row of rows) {
        seq = row.seq;
        yield row;
        if (TERMINAL_EVENTS.has(row.type)) return;
      }
      if (rows.length > 0 || dirty) continue;
      if (quietPolls++ > 0 && (await runStatus(deps.database.db, runId)) !== "running") {
        // Deleted with its session, or ended: one last read picks up a terminal event.
        for (const row of await runEventsAfter(deps.database.db, runId, seq)) yield row;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deps.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    // Stopped (server shutdown or the client left): what was stored meanwhile still goes out,
    // so a run the shutdown ended reaches its stream with its terminal event even when the
    // notification of that event has not arrived yet.
    for (const row of await runEventsAfter(deps.database.db, runId, seq).catch(() => [])) {
      yield row;
      if (TERMINAL_EVENTS.has(row.type)) return;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}
