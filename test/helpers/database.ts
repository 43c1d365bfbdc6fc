import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "../../src/db/client.ts";

/** A fresh, migrated database for one test file, and how to throw it away. */
export interface TestDatabase {
  database: Database;
  /** Connection string of the fresh PostgreSQL database, or undefined on PGlite. */
  url: string | undefined;
  dispose(): Promise<void>;
}

/**
 * Creates a fresh database: a new PostgreSQL database on the server named by
 * `TEST_DATABASE_URL` when set (dropped on dispose), else an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const database = await openDatabase({ databaseUrl: undefined, dataDir: "memory://" });
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
