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
  const name = `cutroom_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: "unused", poolSize: 20 });
  await database.migrate();
  return {
    database,
    url: url.toString(),
    async dispose() {
      await database.close();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
