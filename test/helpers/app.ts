import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { buildApp } from "../../src/app.ts";
import type { Clock } from "../../src/clock.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/client.ts";
import { insertUser } from "../../src/db/repositories/users.ts";
import { issueApiKey } from "../../src/domain/accounts/api-keys.ts";
import type { Scope } from "../../src/domain/auth/scopes.ts";
import type { Plan } from "../../src/domain/quota/daily-quota.ts";
import type { App } from "../../src/http/types.ts";
import { createLogger } from "../../src/logger.ts";
import { startWorker } from "../../src/main/job-worker.ts";
import { openRuntime, type Runtime } from "../../src/runtime.ts";
import { type ApiServices, buildServices, type ServiceOptions } from "../../src/services.ts";
import { type ContractMismatch, describeMismatches, recordContractMismatches } from "./contract.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

/** A settable clock for quota tests. */
export function fakeClock(start: string | Date): Clock & { set(t: string | Date): void } {
  let now = new Date(start);
  return { now: () => new Date(now), set: (t) => (now = new Date(t)) };
}

/** A running test app over a fresh database, with helpers to create accounts. */
export interface TestApp {
  app: App;
  database: Database;
  testDb: TestDatabase;
  config: Config;
  runtime: Runtime;
  /** The services the app (and its worker, when started) were built with. */
  services: ApiServices;
  /** Base URL once `listen()` was called. */
  listen(): Promise<string>;
  /** Every log line the app wrote, parsed. */
  logs: string[];
  /**
   * Every answer so far that the OpenAPI document does not describe (undocumented status or
   * content type, a JSON body off its schema); `close()` fails with them when any is left.
   */
  contractMismatches: ContractMismatch[];
  /** Creates a user with one key; returns the secret for `Authorization: Bearer`. */
  createAccount(opts?: {
    plan?: Plan;
    scopes?: Scope[];
    email?: string;
  }): Promise<{ userId: string; key: string; keyId: string }>;
  /** Adds another key to an existing user. */
  addKey(userId: string, scopes?: Scope[]): Promise<{ key: string; keyId: string }>;
  close(): Promise<void>;
}

let seq = 0;

/**
 * Builds the app against a fresh database (PGlite, or PostgreSQL with TEST_DATABASE_URL)
 * and captures its logs. `env` overrides configuration variables.
 */
export async function startTestApp(
  opts: {
    clock?: Clock;
    env?: Record<string, string>;
    testDb?: TestDatabase;
    worker?: boolean;
    /** Lossless H.264 renders and segments in the worker (exactness tests). */
    lossless?: boolean;
    assistant?: ServiceOptions<"api">["assistant"];
  } = {},
): Promise<TestApp> {
  const testDb = opts.testDb ?? (await createTestDatabase());
  const dataDir = await mkdtemp(path.join(tmpdir(), "cutroom-test-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    // On PostgreSQL the queue (pg-boss) opens its own pool on the same test database.
    ...(testDb.url ? { DATABASE_URL: testDb.url } : {}),
    ...opts.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger("info", sink);
  const runtime = await openRuntime(config, logger, {
    database: testDb.database,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  // As the API process does: one set of services for the app and its in-process worker.
  const wiring = { assistant: opts.assistant, lossless: opts.lossless };
  const both = opts.worker ? await buildServices(runtime, { role: "both", ...wiring }) : null;
  const services = both ?? (await buildServices(runtime, { role: "api", ...wiring }));
  const app = await buildApp({ runtime, services });
  const contractMismatches = recordContractMismatches(app);
  const stopWorker = both ? await startWorker(runtime, { services: both }) : null;
  await app.ready();
  const db = testDb.database.db;
  const addKey = async (userId: string, scopes: Scope[] = ["read", "write"]) => {
    const { key, secret } = await issueApiKey(db, { userId, name: `key ${++seq}`, scopes });
    return { key: secret, keyId: key.id };
  };
  return {
    app,
    database: testDb.database,
    testDb,
    config,
    runtime,
    services,
    logs,
    contractMismatches,
    async listen() {
      return app.listen({ port: 0, host: "127.0.0.1" });
    },
    async createAccount(o = {}) {
      const user = await insertUser(db, {
        email: o.email ?? `user${++seq}-${Date.now()}@example.test`,
        name: "Test User",
        plan: o.plan ?? "standard",
      });
      const k = await addKey(user.id, o.scopes ?? ["read", "write"]);
      return { userId: user.id, ...k };
    },
    addKey,
    async close() {
      await app.close();
      await stopWorker?.();
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
      if (!opts.testDb) await testDb.dispose();
      if (contractMismatches.length > 0) throw new Error(describeMismatches(contractMismatches));
    },
  };
}

/** `Authorization` header for a key. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
