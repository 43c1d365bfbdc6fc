import pg from "pg";
import type { Logger } from "pino";
import type { Database } from "../../db/client.ts";
import {
  RUN_EVENTS_CHANNEL,
  type RunEventRow,
  runEventsAfter,
  runStatus,
} from "../../db/repositories/assistant.ts";

/** Terminal event types: exactly one ends every run's stream. */
export const TERMINAL_EVENTS = new Set(["done", "error"]);

/**
 * Wake-ups for readers of run events: PostgreSQL `LISTEN` on {@link RUN_EVENTS_CHANNEL}
 * (every process sharing the database hears every stored event), on a server or on PGlite.
 * Readers also poll, so a lost notification or connection only adds latency.
 */
export interface RunEventBus {
  /** Calls `onEvent` whenever an event of `runId` was stored; returns the unsubscribe. */
  subscribe(runId: string, onEvent: () => void): () => void;
  close(): Promise<void>;
}

/** Opens the bus on the database's notification channel. */
export async function openRunEventBus(database: Database, log: Logger): Promise<RunEventBus> {
  const listeners = new Map<string, Set<() => void>>();
  const dispatch = (runId: string) => {
    for (const fn of listeners.get(runId) ?? []) fn();
  };
  let stop: () => Promise<void> = async () => {};
  if (database.pglite) {
    stop = await database.pglite.listen(RUN_EVENTS_CHANNEL, dispatch);
  } else if (database.connectionString) {
    const client = new pg.Client({ connectionString: database.connectionString });
    client.on("notification", (n) => {
      if (n.channel === RUN_EVENTS_CHANNEL && n.payload) dispatch(n.payload);
    });
    client.on("error", (err) =>
      log.warn({ err }, "assistant event listener lost its connection; polling only"),
    );
    try {
      await client.connect();
      await client.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
      stop = () => client.end();
    } catch (err) {
      log.warn({ err }, "assistant event listener could not LISTEN; polling only");
      await client.end().catch(() => {});
    }
  }
  return {
    subscribe(runId, onEvent) {
      const set = listeners.get(runId) ?? new Set<() => void>();
      listeners.set(runId, set);
      set.add(onEvent);
      return () => {
        set.delete(onEvent);
        if (set.size === 0) listeners.delete(runId);
      };
    },
    close: () => stop().catch(() => {}),
  };
}

/**
 * Yields the stored events of a run after `afterSeq`, then tails new ones as they are stored
 * (woken by the bus, polling every `pollMs` as a fallback) until the terminal event or `signal`.
 * A run that stopped running without one more event (its session was deleted) ends the tail
 * too. Reads only the database, so any process can serve any run.
 */
export async function* tailRunEvents(
  deps: { database: Database; bus: RunEventBus; pollMs: number },
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<RunEventRow> {
  let wake: (() => void) | null = null;
  let dirty = true;
  const unsubscribe = deps.bus.subscribe(runId, () => {
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
