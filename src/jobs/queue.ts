import { fromPglite, PgBoss } from "pg-boss";
import type { Database } from "../db/client.ts";
import { QUEUES } from "./catalog.ts";

/** The pg-boss instance on the same PostgreSQL (or PGlite) as the application tables. */
export type Queue = PgBoss;

/**
 * Creates and starts pg-boss on the application's database: its own small pool on a
 * PostgreSQL server, or the shared PGlite instance through pg-boss's PGlite adapter.
 * Creates the queues of the catalog (idempotent).
 *
 * @param opts.databaseUrl - the server's connection string (PostgreSQL), else PGlite is used.
 */
export async function startQueue(
  database: Database,
  opts: { databaseUrl: string | undefined },
): Promise<Queue> {
  const boss =
    database.driver === "postgres" && opts.databaseUrl
      ? new PgBoss({ connectionString: opts.databaseUrl, max: 4, application_name: "cutroom-queue" })
      : new PgBoss({ db: fromPglite(database.pglite as never) });
  boss.on("error", (err: unknown) => {
    // pg-boss reports maintenance/poll errors here; they are retried by pg-boss itself.
    process.stderr.write(`pg-boss: ${(err as Error).message}\n`);
  });
  await boss.start();
  await boss.createQueue(QUEUES.renderDead.name);
  await boss.createQueue(QUEUES.render.name, {
    retryLimit: QUEUES.render.retryLimit,
    retryDelay: QUEUES.render.retryDelay,
    heartbeatSeconds: QUEUES.render.heartbeatSeconds,
    deadLetter: QUEUES.render.deadLetter,
  });
  return boss;
}
