import { existsSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { ConfigError, loadConfig } from "../config.ts";
import { type Database, embeddedDatabaseDir, openDatabase } from "../db/client.ts";
import { describeConstraintError, findPgError } from "../db/errors.ts";
import { listApiKeys, revokeApiKey } from "../db/repositories/api-keys.ts";
import { insertProject, listProjectsPage } from "../db/repositories/projects.ts";
import { findUser, insertUser, listUsers, updateUserPlan } from "../db/repositories/users.ts";
import { issueApiKey } from "../domain/accounts/api-keys.ts";
import { parseScopes } from "../domain/auth/scopes.ts";
import { issuePasswordLink } from "../domain/console/password-link.ts";
import { effectiveImageModelId, IMAGE_MODEL_IDS } from "../domain/generation/models.ts";
import { setImageModelPreference } from "../domain/generation/preference.ts";
import { PLANS, type Plan } from "../domain/quota/daily-quota.ts";

/** CLI for operators: users, keys and projects, on the same database the server uses. */

function parsePlan(value: string): Plan {
  if (!(PLANS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PLANS.join(", ")}`);
  }
  return value as Plan;
}

function parseScopeList(value: string) {
  try {
    return parseScopes(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function print(rows: Record<string, unknown>[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const cols = Object.keys(rows[0] as object);
  const cell = (v: unknown) =>
    v instanceof Date ? v.toISOString() : v === null || v === undefined ? "-" : String(v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${line(cols)}\n${rows.map((r) => line(cols.map((c) => cell(r[c])))).join("\n")}\n`);
}

/**
 * Opens the server's database. Without DATABASE_URL that is the embedded one in DATA_DIR, which
 * the server creates on its first start: when DATA_DIR holds none, the CLI is most likely
 * pointed elsewhere than the server, so it refuses (naming where it looked) instead of creating
 * an empty database, unless `--init` asks for one.
 * @throws Error naming the directory when there is no database there and `--init` is not given.
 */
async function withDb<T>(fn: (database: Database, publicUrl: string) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const embedded = config.databaseUrl === undefined && config.dataDir !== "memory://";
  if (embedded && !program.opts().init && !existsSync(embeddedDatabaseDir(config.dataDir))) {
    throw new Error(
      `no Cutroom database in ${embeddedDatabaseDir(config.dataDir)} (${process.env.DATA_DIR ? `DATA_DIR=${process.env.DATA_DIR}` : "DATA_DIR is not set: ./data"}, in ${process.cwd()}). Give the CLI the server's DATA_DIR (or its DATABASE_URL), or run it where the server runs; --init creates a new, empty database here instead`,
    );
  }
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    owner: "CLI",
  });
  try {
    await database.migrate();
    return await fn(database, config.publicUrl);
  } finally {
    await database.close();
  }
}

async function requireUser(database: Database, idOrEmail: string) {
  const user = await findUser(database.db, idOrEmail);
  if (!user) throw new Error(`No user ${JSON.stringify(idOrEmail)} (give a usr_ id or an email)`);
  return user;
}

function printPasswordLink(row: Record<string, unknown>, link: { url: string; expiresAt: Date }): void {
  if (json()) {
    print([{ ...row, setupUrl: link.url, setupUrlExpiresAt: link.expiresAt }], true);
    return;
  }
  print([row], false);
  process.stdout.write(
    `\nSet the console password with this one-time link (valid until ${link.expiresAt.toISOString()}):\n\n  ${link.url}\n\n`,
  );
}

const program = new Command("cutroom")
  .description("Manage Cutroom users, API keys and projects (uses DATABASE_URL or DATA_DIR like the server)")
  .option("--json", "print JSON instead of a table", false)
  .option(
    "--init",
    "create the embedded database when DATA_DIR holds none (the server does on first start)",
    false,
  );
const json = () => Boolean(program.opts().json);

const users = program.command("users").description("accounts");
users
  .command("create")
  .requiredOption("--email <email>", "unique email")
  .option("--name <name>", "display name")
  .option("--plan <plan>", `one of ${PLANS.join(", ")}`, parsePlan, "standard" as Plan)
  .action(async (o: { email: string; name?: string; plan: Plan }) => {
    await withDb(async ({ db }, publicUrl) => {
      const u = await insertUser(db, {
        email: o.email,
        name: o.name ?? o.email.split("@")[0] ?? o.email,
        plan: o.plan,
      });
      const link = await issuePasswordLink(db, { userId: u.id, publicUrl });
      printPasswordLink({ id: u.id, email: u.email, name: u.name, plan: u.plan }, link);
    });
  });
users
  .command("reset-password")
  .description("print a one-time link (valid 24 h) that sets the user's console password")
  .argument("<user>", "usr_ id or email")
  .action(async (who: string) => {
    await withDb(async (database, publicUrl) => {
      const user = await requireUser(database, who);
      const link = await issuePasswordLink(database.db, { userId: user.id, publicUrl });
      printPasswordLink({ id: user.id, email: user.email }, link);
    });
  });
users.command("list").action(async () => {
  await withDb(async ({ db }) => {
    const rows = await listUsers(db);
    print(
      rows.map((u) => ({ id: u.id, email: u.email, name: u.name, plan: u.plan, createdAt: u.createdAt })),
      json(),
    );
  });
});
users
  .command("set-plan")
  .argument("<user>", "usr_ id or email")
  .argument("<plan>", `one of ${PLANS.join(", ")}`, parsePlan)
  .action(async (who: string, plan: Plan) => {
    await withDb(async (database) => {
      const user = await requireUser(database, who);
      const u = await updateUserPlan(database.db, user.id, plan);
      print([{ id: u?.id, email: u?.email, plan: u?.plan }], json());
    });
  });

users
  .command("set-image-model")
  .description('set the user\'s preferred image model ("default" clears the preference)')
  .argument("<user>", "usr_ id or email")
  .argument("<model>", `one of ${IMAGE_MODEL_IDS.join(", ")}, or default`)
  .action(async (who: string, model: string) => {
    await withDb(async (database) => {
      const user = await requireUser(database, who);
      let stored: string | null;
      try {
        stored = await setImageModelPreference(database.db, user.id, model === "default" ? null : model);
      } catch (err) {
        const detail = (err as { details?: { message: string }[] }).details?.[0]?.message;
        throw new Error(detail ? `model ${detail}` : (err as Error).message);
      }
      print([{ id: user.id, email: user.email, imageModel: effectiveImageModelId(stored) }], json());
    });
  });

const keys = program.command("keys").description("API keys (secrets are printed once, at creation)");
keys
  .command("create")
  .requiredOption("--user <user>", "usr_ id or email of the owner")
  .option("--name <name>", "label for the key", "cli key")
  .option("--scopes <list>", 'scopes: "read" or "read,write"', parseScopeList, parseScopes("read,write"))
  .action(async (o: { user: string; name: string; scopes: ReturnType<typeof parseScopes> }) => {
    await withDb(async (database) => {
      const user = await requireUser(database, o.user);
      const { key, secret } = await issueApiKey(database.db, {
        userId: user.id,
        name: o.name,
        scopes: o.scopes,
      });
      if (json()) {
        print([{ id: key.id, name: key.name, scopes: key.scopes.join(","), secret }], true);
      } else {
        process.stdout.write(
          `Created ${key.id} (${key.scopes.join(",")}) for ${user.email}. The key, shown only once:\n\n  ${secret}\n\n`,
        );
      }
    });
  });
keys
  .command("list")
  .option("--user <user>", "only this user's keys (usr_ id or email)")
  .action(async (o: { user?: string }) => {
    await withDb(async (database) => {
      const userId = o.user ? (await requireUser(database, o.user)).id : undefined;
      const rows = await listApiKeys(database.db, userId);
      print(
        rows.map((k) => ({
          id: k.id,
          user: k.userId,
          name: k.name,
          prefix: k.prefix,
          scopes: k.scopes.join(","),
          lastUsedAt: k.lastUsedAt,
          revokedAt: k.revokedAt,
        })),
        json(),
      );
    });
  });
keys
  .command("revoke")
  .argument("<keyId>", "key_ id")
  .action(async (keyId: string) => {
    await withDb(async ({ db }) => {
      const k = await revokeApiKey(db, keyId, new Date());
      if (!k) throw new Error(`No key ${keyId}`);
      print([{ id: k.id, revokedAt: k.revokedAt }], json());
    });
  });

const projects = program.command("projects").description("projects");
projects
  .command("create")
  .requiredOption("--user <user>", "usr_ id or email of the owner")
  .requiredOption("--name <name>", "project name")
  .option("--description <text>", "description", "")
  .action(async (o: { user: string; name: string; description: string }) => {
    await withDb(async (database) => {
      const user = await requireUser(database, o.user);
      const p = await insertProject(database.db, {
        userId: user.id,
        name: o.name,
        description: o.description,
      });
      print([{ id: p.id, name: p.name, owner: user.email }], json());
    });
  });
projects
  .command("list")
  .requiredOption("--user <user>", "usr_ id or email of the owner")
  .option("--limit <n>", "how many", (v) => Number.parseInt(v, 10), 100)
  .action(async (o: { user: string; limit: number }) => {
    await withDb(async (database) => {
      const user = await requireUser(database, o.user);
      const page = await listProjectsPage(database.db, {
        userId: user.id,
        limit: o.limit,
        afterId: undefined,
      });
      print(
        page.rows.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt })),
        json(),
      );
    });
  });

if (existsSync(".env")) process.loadEnvFile(".env");
program.parseAsync(process.argv).catch((err: unknown) => {
  // One plain line: a database in use names its owner (DatabaseInUseError), a broken constraint
  // says what clashed, and a database error never prints the SQL and parameters Drizzle wraps it in.
  const message =
    err instanceof ConfigError
      ? err.message
      : (describeConstraintError(err) ?? findPgError(err)?.message ?? (err as Error).message);
  process.stderr.write(`cutroom: ${message}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
