import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { ownerOnlyModes } from "./owner-only-modes.ts";
import { lockPgliteDataDir } from "./pglite-lock.ts";
import * as schema from "./schema/index.ts";

/** The Drizzle database type shared by the PGlite and node-postgres drivers. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A minimal SQL executor (`pg`-style result) used by pg-boss and raw statements. */
export interface SqlExecutor {
  /**
   * Runs one parameterised statement (`$1`, `$2`, … in `text`).
   *
   * @param name - makes it a named prepared statement on PostgreSQL: each pooled connection
   *   parses and plans `text` once and then only binds and executes it (the same name must
   *   always carry the same text). PGlite runs the text as an unnamed statement.
   */
  executeSql(text: string, values?: unknown[], name?: string): Promise<{ rows: Record<string, unknown>[] }>;
}

/** An open database: the Drizzle handle plus lifecycle helpers. */
export interface Database {
  db: Db;
  /**
   * Handle for the per-request auth + quota statement. On PostgreSQL it uses its own pool
   * with `synchronous_commit = off`: every call writes the account's counter row, and
   * waiting for a WAL flush while holding that row's lock would cap one account at one
   * fsync per call. A crash can lose the last few hundred milliseconds of counts (in the
   * caller's favour); locking — and so exact counting — is unchanged.
   */
  hotDb: Db;
  /** Raw statements on the `hotDb` connection(s), with named prepared statements on PostgreSQL. */
  hotSql: SqlExecutor;
  driver: "pglite" | "postgres";
  /** Raw parameterised SQL on the same connection(s), for pg-boss's `db` option. */
  sql: SqlExecutor;
  /** Applies the committed migrations in `drizzle/` (safe to call from several processes at once). */
  migrate(): Promise<void>;
  /** One round trip (`select 1`); resolves with the latency in milliseconds. */
  ping(): Promise<number>;
  close(): Promise<void>;
  /** The PGlite instance when `driver` is "pglite" (pg-boss's adapter needs it). */
  pglite?: PGlite;
  /** The node-postgres pool when `driver` is "postgres". */
  pool?: pg.Pool;
  /** The server's connection string when `driver` is "postgres" (pg-boss opens its own pool). */
  connectionString?: string;
}

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../drizzle");
/** Where the embedded database of a data directory keeps its files: `dataDir/pglite`. */
export function embeddedDatabaseDir(dataDir: string): string {
  return path.join(dataDir, "pglite");
}

/** Arbitrary constant key for the advisory lock that serialises concurrent migrators. */
const MIGRATION_LOCK_KEY = 727_001;

/**
 * Opens the database the configuration names: a PostgreSQL server through a
 * node-postgres pool when `databaseUrl` is set, else embedded PGlite persisted in
 * `dataDir/pglite` (or in memory when `dataDir` is `"memory://"`).
 *
 * @param opts.databaseUrl - `postgres://…` connection string, or undefined for PGlite.
 * @param opts.dataDir - directory for PGlite's files, or `"memory://"`.
 * @param opts.poolSize - max pooled connections (PostgreSQL only).
 * @param opts.owner - what this process is ("server", "worker", "CLI"…), named to another
 *   process that finds the PGlite data directory in use (default "process").
 * @param opts.loadDataDir - PGlite only, with `dataDir` `"memory://"`: start from this dump of a
 *   data directory (PGlite's `dumpDataDir`, an uncompressed tarball) instead of an empty
 *   cluster — a copy of an already migrated database, without initdb's cost (about 2 CPU s).
 * @throws Error when `loadDataDir` is given with another `dataDir` than `"memory://"`.
 * @throws DatabaseInUseError when another live process has the PGlite data directory open
 *   (PGlite serves one process; see `lockPgliteDataDir`).
 */
export async function openDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  owner?: string;
  loadDataDir?: Blob;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // Fail fast rather than queueing forever when the server is gone.
      connectionTimeoutMillis: 5_000,
    });
    const hotPool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      options: "-c synchronous_commit=off",
    });
    for (const p of [pool, hotPool]) {
      p.on("error", () => {
        // An idle client lost its connection; the pool replaces it on next use.
      });
    }
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    return {
      db,
      hotDb: drizzlePg(hotPool, { schema }) as unknown as Db,
      hotSql: poolExecutor(hotPool),
      driver: "postgres",
      pool,
      connectionString: opts.databaseUrl,
      sql: poolExecutor(pool),
      async migrate() {
        const client = await pool.connect();
        try {
          await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
          await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
        } finally {
          await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
          client.release();
        }
      },
      ping: () => timed(() => pool.query("select 1")),
      close: async () => {
        await Promise.all([pool.end(), hotPool.end()]);
      },
    };
  }

  let dir = opts.dataDir;
  if (opts.loadDataDir && dir !== "memory://")
    throw new Error(`openDatabase: loadDataDir starts an in-memory database; dataDir is ${dir}`);
  let unlock = async () => {};
  if (dir !== "memory://") {
    dir = embeddedDatabaseDir(opts.dataDir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    unlock = await lockPgliteDataDir(opts.dataDir, opts.owner ?? "process");
  }
  let pglite: PGlite;
  try {
    pglite =
      dir === "memory://"
        ? await PGlite.create(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {})
        : await PGlite.create(dir);
    if (dir !== "memory://") await ownerOnlyModes(dir);
  } catch (err) {
    await unlock();
    throw err;
  }
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  const executor: SqlExecutor = {
    executeSql: async (text, values) => {
      const r = await pglite.query<Record<string, unknown>>(text, values as unknown[]);
      return { rows: r.rows };
    },
  };
  return {
    db,
    hotDb: db,
    hotSql: executor,
    driver: "pglite",
    pglite,
    sql: executor,
    migrate: async () => {
      await migratePglite(drizzlePglite(pglite, { schema }), { migrationsFolder: MIGRATIONS_DIR });
    },
    ping: () => timed(() => db.execute(sql`select 1`)),
    close: async () => {
      try {
        await pglite.close();
      } finally {
        await unlock();
      }
    },
  };
}

function poolExecutor(pool: pg.Pool): SqlExecutor {
  return {
    executeSql: async (text, values, name) => {
      const r = await pool.query(
        name ? { name, text, values: values ?? [] } : { text, values: values ?? [] },
      );
      return { rows: r.rows };
    },
  };
}

/** The rows of a raw `db.execute(sql…)` result (both drivers return `{ rows }`). */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return Math.round((performance.now() - t0) * 100) / 100;
}
