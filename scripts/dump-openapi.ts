/**
 * Writes the OpenAPI document the server serves at /api/v1/openapi.json to a file, without
 * listening and without a database: the document is built from the route schemas alone, so
 * the services and the app are built over inert stand-ins for the database, store and queue,
 * which building and registration never call. Usage: node scripts/dump-openapi.ts <out.json>
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildApp } from "../src/app.ts";
import { systemClock } from "../src/clock.ts";
import { loadConfig } from "../src/config.ts";
import type { Database } from "../src/db/client.ts";
import { createLogger } from "../src/logger.ts";
import type { Queue } from "../src/queue/queue.ts";
import { buildServices } from "../src/services.ts";
import type { BlobStore } from "../src/storage/blob-store.ts";

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: node scripts/dump-openapi.ts <out.json>\n");
  process.exit(2);
}
/** A stand-in whose every property is another stand-in, except `absent` ones (undefined). */
const inert = <T>(what: string, absent: readonly string[] = []): T =>
  new Proxy(
    {},
    {
      get: (_t, prop) =>
        prop === "then" || absent.includes(String(prop)) ? undefined : inert(`${what}.${String(prop)}`),
    },
  ) as T;
const runtime = {
  config: loadConfig({ PUBLIC_URL: "http://127.0.0.1:3000" }),
  // No notification channel (neither PGlite nor a server URL): the assistant's run-event bus,
  // opened while the services are built, then listens to nothing.
  database: inert<Database>("database", ["pglite", "connectionString"]),
  store: inert<BlobStore>("store"),
  queue: inert<Queue>("queue"),
  clock: systemClock,
  log: createLogger("silent"),
};
const app = await buildApp({ runtime, services: await buildServices(runtime, { role: "api" }) });
await app.ready();
mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
writeFileSync(out, `${JSON.stringify(app.swagger(), null, 1)}\n`);
await app.close();
