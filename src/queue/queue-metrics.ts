/**
 * Queue gauges read from pg-boss's job table at scrape time, per job kind of the catalog:
 * jobs waiting (due, not started), jobs running, and how long the oldest waiting job has been
 * due. These describe the shared queue, so every process role exports the same values.
 */
import { Gauge, type Registry } from "prom-client";
import type { SqlExecutor } from "../db/client.ts";
import type { JobDefinition } from "./registry.ts";

interface QueueReading {
  waiting: number;
  active: number;
  /** Seconds since the oldest waiting job became due; 0 when none waits. */
  oldestWaitingSeconds: number;
}

// pg-boss's job states are an enum ordered created < retry < active < …: `state < 'active'`
// is a job not yet started. `start_after` is when it becomes due (later for delayed retries).
const READ_QUEUES = `
select name,
       count(*) filter (where state < 'active' and start_after <= now()) as waiting,
       count(*) filter (where state = 'active') as active,
       coalesce(extract(epoch from now() - min(start_after)
         filter (where state < 'active' and start_after <= now())), 0) as oldest
  from pgboss.job
 where name = any($1::text[]) and state <= 'active'
 group by name`;

/** Reads every queue of `names` in one statement; kinds without jobs read as zeros. */
async function readQueues(sql: SqlExecutor, names: string[]): Promise<Map<string, QueueReading>> {
  const { rows } = await sql.executeSql(READ_QUEUES, [names]);
  const out = new Map<string, QueueReading>(
    names.map((n) => [n, { waiting: 0, active: 0, oldestWaitingSeconds: 0 }]),
  );
  for (const r of rows) {
    out.set(String(r.name), {
      waiting: Number(r.waiting),
      active: Number(r.active),
      oldestWaitingSeconds: Number(r.oldest),
    });
  }
  return out;
}

/**
 * Registers `cutroom_queue_depth`, `cutroom_queue_active` and
 * `cutroom_queue_oldest_waiting_seconds` (label `kind`: the queue name of each job kind in
 * `defs`) on `registry`. One statement per scrape serves all three; when it fails (database
 * unreachable) the gauges have no samples for that scrape rather than failing it.
 *
 * @param sql - a connection to the database pg-boss keeps its jobs in.
 */
export function registerQueueMetrics(
  registry: Registry,
  sql: SqlExecutor,
  defs: Record<string, JobDefinition<object>>,
): void {
  const names = Object.values(defs).map((d) => d.name);
  // prom-client collects a registry's gauges together (each `collect` called in one pass before
  // any settles): the gauges share the read in flight, and the next scrape starts a new one.
  let pending: Promise<Map<string, QueueReading> | null> | null = null;
  const read = () => {
    pending ??= readQueues(sql, names)
      .catch(() => null)
      .finally(() => {
        pending = null;
      });
    return pending;
  };
  const gauge = (name: string, help: string, pick: (r: QueueReading) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["kind"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const readings = await read();
        for (const [kind, r] of readings ?? []) this.set({ kind }, pick(r));
      },
    });
  gauge("cutroom_queue_depth", "Jobs waiting in the queue (due, not started), by job kind", (r) => r.waiting);
  gauge("cutroom_queue_active", "Jobs running, by job kind", (r) => r.active);
  gauge(
    "cutroom_queue_oldest_waiting_seconds",
    "Seconds since the oldest waiting job became due (0 when none waits), by job kind",
    (r) => r.oldestWaitingSeconds,
  );
}
