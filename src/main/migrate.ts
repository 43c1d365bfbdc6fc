import { existsSync } from "node:fs";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/client.ts";
import { restrictNewFiles } from "./private-files.ts";

/** Applies the committed migrations and exits (the API and worker also migrate at start). */
if (existsSync(".env")) process.loadEnvFile(".env");
restrictNewFiles();
const config = loadConfig();
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  poolSize: 1,
  owner: "migration",
});
await database.migrate();
await database.close();
process.stdout.write(`migrations applied (${database.driver})\n`);
