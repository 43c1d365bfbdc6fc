/**
 * Cross-process wake-ups over PostgreSQL `LISTEN`/`NOTIFY` (on a server or on PGlite): a
 * process that changes something another process waits for sends a notification, ideally in
 * the transaction of the change (PostgreSQL delivers it at commit, never for a rollback), and
 * every process sharing the database hears it. Listeners must still poll: a notification is
 * lost while a listener's connection is down, so it only ever saves latency.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Logger } from "pino";
import type { Database, Db } from "./client.ts";

/** The channels Cutroom uses; a listener hears all of them. Payloads are ids or queue names. */
export const CHANNELS = {
  /** An assistant run stored an event; payload: the run id (`run_…`). */
  runEvents: "assistant_run_events",
  /** A job was queued; payload: the queue name. Wakes idle workers of that queue. */
  jobQueued: "cutroom_job_queued",
  /** A generation reached a terminal status; payload: the generation id (`gen_…`). */
  generationSettled: "cutroom_generation_settled",
} as const;

/** One of {@link CHANNELS}. */
export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

/** A process's listener on every channel of {@link CHANNELS}. */
export interface Notifications {
  /** Calls `fn` whenever `channel` carries `payload`; returns the unsubscribe. */
  subscribe(channel: Channel, payload: string, fn: () => void): () => void;
  /** Stops listening (idempotent). */
  close(): Promise<void>;
}

/**
 * Sends `payload` on `channel` (`pg_notify`). Inside a transaction it is delivered when the
 * transaction commits, and not at all when it rolls back.
 * @param db - the database or the transaction of the change.
 */
export async function notify(db: Db, channel: Channel, payload: string): Promise<void> {
  await db.execute(sql`select pg_notify(${channel}, ${payload})`);
}

/**
 * Starts listening on every channel of {@link CHANNELS}: through PGlite's own `listen`, or one
 * dedicated node-postgres connection (outside the pool) on a server. When that connection fails
 * the process goes on without wake-ups (a warning is logged; waiters poll).
 */
export async function openNotifications(database: Database, log: Logger): Promise<Notifications> {
  const listeners = new Map<string, Set<() => void>>();
  const keyOf = (channel: string, payload: string) => `${channel}\u0000${payload}`;
  const dispatch = (channel: string, payload: string) => {
    for (const fn of listeners.get(keyOf(channel, payload)) ?? []) fn();
  };
  const channels = Object.values(CHANNELS);
  const stops: (() => Promise<void>)[] = [];
  if (database.pglite) {
    const pglite = database.pglite;
    for (const channel of channels) {
      stops.push(await pglite.listen(channel, (payload) => dispatch(channel, payload)));
    }
  } else if (database.connectionString) {
    const client = new pg.Client({ connectionString: database.connectionString });
    client.on("notification", (n) => {
      if (n.payload !== undefined) dispatch(n.channel, n.payload);
    });
    client.on("error", (err) => log.warn({ err }, "notification listener lost its connection; polling only"));
    try {
      await client.connect();
      for (const channel of channels) await client.query(`LISTEN ${channel}`);
      stops.push(() => client.end());
    } catch (err) {
      log.warn({ err }, "notification listener could not LISTEN; polling only");
      await client.end().catch(() => {});
    }
  }
  let closed = false;
  return {
    subscribe(channel, payload, fn) {
      const key = keyOf(channel, payload);
      const set = listeners.get(key) ?? new Set<() => void>();
      listeners.set(key, set);
      set.add(fn);
      return () => {
        set.delete(fn);
        if (set.size === 0) listeners.delete(key);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const stop of stops) await stop().catch(() => {});
    },
  };
}
