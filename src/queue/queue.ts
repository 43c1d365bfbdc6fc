import { fromPglite, PgBoss } from "pg-boss";
import type { Database } from "../db/client.ts";
import { JOBS } from "./catalog.ts";
import { createJobQueues } from "./registry.ts";

/** The pg-boss instance on the same PostgreSQL (or PGlite) as the application tables. */
export type Queue = PgBoss;

/**
 * Creates and starts pg-boss on the application's database: its own small pool on a
 * PostgreSQL server, or the shared PGlite instance through pg-boss's PGlite adapter.
 * Creates the queues of the job catalog and their dead-letter queues (idempotent).
 */
export async function startQueue(database: Database): Promise<Queue> {
  // pg-boss fails jobs whose worker stopped heartbeating (and expired ones) in its monitor
  // pass, which by default runs every 60 s: a render whose worker died would show `rendering`
  // for up to ~70 s before its retry. Every 5 s bounds that to heartbeat (10 s) + 5 s + the
  // retry delay; the pass is a few indexed statements plus a stats aggregate of the small
  // job table, and one instance at a time runs it (pg-boss's own per-queue gate).
  // `useListenNotify`: one listening connection per process (PGlite: in-process), so a job
  // sent by any process wakes idle workers at once (each queue has `notify` on).
  // `flowIntervalSeconds`: pg-boss unblocks a flow's dependent job (a split render's join, once
  // its last part completed) in a background pass, 5 s apart by default. A part's worker
  // completes its job and resolves flows itself (`JobHandler.unblocks`), so the pass is the
  // backstop; 1 s (its minimum) bounds it. One instance at a time runs the pass.
  const supervision = {
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    flowIntervalSeconds: 1,
    useListenNotify: true,
  };
  let boss: PgBoss;
  if (database.driver === "postgres" && database.connectionString) {
    boss = new PgBoss({
      connectionString: database.connectionString,
      max: 4,
      application_name: "cutroom-queue",
      ...supervision,
    });
  } else if (database.pglite) {
    boss = new PgBoss({ db: fromPglite(database.pglite as never), ...supervision });
  } else {
    throw new Error("startQueue: the database has neither a connection string nor a PGlite instance");
  }
  boss.on("error", (err: unknown) => {
    // pg-boss reports maintenance/poll errors here; they are retried by pg-boss itself.
    process.stderr.write(`pg-boss: ${(err as Error).message}\n`);
  });
  await boss.start();
  await createJobQueues(boss, JOBS);
  return boss;
}
