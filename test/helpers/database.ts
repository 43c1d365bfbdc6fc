import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { cachedFile } from "./cache.ts";

/** A fresh, migrated database for one test file, and how to throw it away. */
export interface TestDatabase {
  database: Database;
  /** Connection string of the fresh PostgreSQL database, or undefined on PGlite. */
  url: string | undefined;
  dispose(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, "../..");
let template: Promise<Blob> | undefined;

/**
 * The data directory of a freshly migrated PGlite database, dumped once per machine for every
 * migration set and PGlite version (tmp/test-cache): loading it skips initdb, which costs a
 * fresh in-memory PGlite about 2 CPU seconds, and the migrations.
 */
function migratedPgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const migrations = path.join(ROOT, "drizzle");
    const key = [
      "pglite-migrated-template v1",
      readFileSync(path.join(ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8"),
      ...readdirSync(migrations, { recursive: true, encoding: "utf8" })
        .sort()
        .filter((f) => /\.(sql|json)$/.test(f))
        .map((f) => `${f}\n${readFileSync(path.join(migrations, f), "utf8")}`),
    ].join("\n");
    const file = await cachedFile(key, "pglite-migrated.tar", async (out) => {
      const database = await openDatabase({ databaseUrl: undefined, dataDir: "memory://" });
      try {
        await database.migrate();
        const dump = await database.pglite?.dumpDataDir("none");
        if (!dump) throw new Error("PGlite gave no data directory dump");
        await writeFile(out, new Uint8Array(await dump.arrayBuffer()));
      } finally {
        await database.close();
      }
    });
    return new Blob([await readFile(file)]);
  })();
  return template;
}

/**
 * Creates a fresh database: a new PostgreSQL database on the server named by
 * `TEST_DATABASE_URL` when set (dropped on dispose), else an in-memory PGlite started from a
 * migrated template (the migrations then find nothing to do).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const loadDataDir = await migratedPgliteTemplate();
    const database = await openDatabase({ databaseUrl: undefined, dataDir: "memory://", loadDataDir });
    await database.migrate();
    return { database, url: undefined, dispose: () => database.close() };
  }
  const scratch = await createScratchDatabase(adminUrl, "cutroom_test");
  const database = await openDatabase({ databaseUrl: scratch.url, dataDir: "unused", poolSize: 20 });
  await database.migrate();
  return {
    database,
    url: scratch.url,
    async dispose() {
      await database.close();
      await scratch.drop();
    },
  };
}

/** An empty PostgreSQL database made for one test file or benchmark run. */
export interface ScratchDatabase {
  /** Its connection string (the admin URL with the database name as path). */
  url: string;
  name: string;
  /** Drops it, forcing any connections off. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database `<prefix>_<pid>_<8 hex digits>` on the PostgreSQL server of
 * `adminUrl`, connecting as that URL's user for the create and again for the drop.
 */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => admin(`drop database if exists ${name} with (force)`) };
}
