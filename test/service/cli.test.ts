import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

/** Runs the CLI with JSON output against the given environment. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<Record<string, unknown>[]> {
  const { stdout } = await run(process.execPath, ["src/main/cli.ts", "--json", ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>[];
}

describe("cutroom CLI on a PGlite data directory", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "cutroom-cli-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("creates and lists users, sets plans, creates, lists and revokes keys, creates and lists projects", async () => {
    const env = { DATA_DIR: dataDir };
    // A new data directory: --init creates its database (the server does so on its first start).
    const [user] = await cli(
      env,
      "--init",
      "users",
      "create",
      "--email",
      "ana@example.test",
      "--name",
      "Ana",
      "--plan",
      "upgraded",
    );
    expect(user).toMatchObject({ email: "ana@example.test", plan: "upgraded" });
    expect(String(user?.id)).toMatch(/^usr_/);
    expect(await cli(env, "users", "set-plan", "ana@example.test", "admin")).toMatchObject([
      { plan: "admin" },
    ]);
    expect(
      await cli(env, "users", "set-image-model", "ana@example.test", "fal-ai/flux/schnell"),
    ).toMatchObject([{ imageModel: "fal-ai/flux/schnell" }]);
    await expect(cli(env, "users", "set-image-model", "ana@example.test", "dall-e")).rejects.toThrow(
      /fal-ai\/flux-pro\/v1\.1, fal-ai\/flux\/schnell/,
    );
    const [key] = await cli(
      env,
      "keys",
      "create",
      "--user",
      "ana@example.test",
      "--name",
      "laptop",
      "--scopes",
      "read",
    );
    expect(String(key?.secret)).toMatch(/^crk_[0-9A-Za-z]{40}$/);
    expect(key?.scopes).toBe("read");
    const listed = await cli(env, "keys", "list", "--user", "ana@example.test");
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(String(key?.secret));
    const [revoked] = await cli(env, "keys", "revoke", String(key?.id));
    expect(revoked?.revokedAt).toBeTruthy();
    await cli(env, "projects", "create", "--user", "ana@example.test", "--name", "Launch");
    expect(await cli(env, "projects", "list", "--user", "ana@example.test")).toMatchObject([
      { name: "Launch" },
    ]);
    await expect(cli(env, "users", "create", "--email", "x@example.test", "--plan", "gold")).rejects.toThrow(
      /plan/,
    );
    await expect(cli(env, "keys", "create", "--user", "nobody@example.test")).rejects.toThrow(/No user/);
  }, 480_000); // 13 CLI runs, each opening PGlite afresh (a few seconds each, far more on a busy machine)
});

/** Runs the CLI expecting it to fail; returns its exit code and stderr. */
async function cliFails(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stderr: string }> {
  try {
    await cli(env, ...args);
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? "" };
  }
  throw new Error(`cutroom ${args.join(" ")} succeeded`);
}

describe("cutroom CLI errors in one plain line", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "cutroom-cli-errors-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("refuses to create an empty database where DATA_DIR has none, and says where it looked", async () => {
    const elsewhere = path.join(dataDir, "not-the-servers");
    const { code, stderr } = await cliFails({ DATA_DIR: elsewhere }, "users", "list");
    expect(code).toBe(1);
    expect(stderr).toContain(`cutroom: no Cutroom database in ${path.join(elsewhere, "pglite")} `);
    expect(stderr).toContain(`DATA_DIR=${elsewhere}`);
    expect(stderr).toContain("--init");
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("says a user with that email already exists instead of printing the SQL", async () => {
    const env = { DATA_DIR: dataDir };
    await cli(env, "--init", "users", "create", "--email", "dup@example.test");
    const { code, stderr } = await cliFails(env, "users", "create", "--email", "dup@example.test");
    expect(code).toBe(1);
    expect(stderr).toBe("cutroom: a user with that email already exists\n");
  }, 240_000);

  it("names the running process that has the PGlite database open, and proceeds once it is gone", async () => {
    const env = { DATA_DIR: dataDir };
    // This test process plays the running server: it holds the data directory open.
    const held = await openDatabase({ databaseUrl: undefined, dataDir, owner: "server" });
    try {
      const { code, stderr } = await cliFails(env, "users", "list");
      expect(code).toBe(1);
      expect(stderr).toBe(
        `cutroom: the database in ${dataDir} is in use by a running Cutroom server (pid ${process.pid}); stop it, or use the HTTP API, or set DATABASE_URL to a PostgreSQL server that several processes can share\n`,
      );
    } finally {
      await held.close();
    }
    // A lock left behind by a process that no longer runs (killed, crashed) does not block.
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.on("exit", resolve));
    await writeFile(path.join(dataDir, "pglite.lock"), JSON.stringify({ pid: gone.pid, owner: "server" }));
    expect(await cli(env, "users", "list")).toMatchObject([{ email: "dup@example.test" }]);
  }, 240_000);
});

describe("cutroom CLI constraint errors on PostgreSQL", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("says a user with that email already exists", async (ctx) => {
    if (!t.testDb.url) return ctx.skip();
    await t.createAccount({ email: "taken@example.test" });
    const { stderr } = await cliFails(
      { DATABASE_URL: t.testDb.url, DATA_DIR: t.config.dataDir },
      "users",
      "create",
      "--email",
      "taken@example.test",
    );
    expect(stderr).toBe("cutroom: a user with that email already exists\n");
  });
});

describe("revocation through the CLI, seen by a second server process (PostgreSQL)", () => {
  let t: TestApp;
  let server: ChildProcess | undefined;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    server?.kill("SIGTERM");
    await t.close();
  });

  it("takes effect on the next request in this process and in another API process", async (ctx) => {
    if (!t.testDb.url) return ctx.skip(); // PGlite cannot be shared between processes.
    const env = { DATABASE_URL: t.testDb.url, DATA_DIR: t.config.dataDir, WORKER_IN_PROCESS: "false" };
    const acct = await t.createAccount();
    const port = 20000 + Math.floor(Math.random() * 20000);
    server = spawn(process.execPath, ["src/main/api.ts"], {
      cwd: root,
      env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: "warn" },
      stdio: "ignore",
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 200; i++) {
      if (
        await fetch(`${base}/api/v1/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await fetch(`${base}/api/v1/me`, { headers: bearer(acct.key) })).status).toBe(200);
    expect((await t.app.inject({ url: "/api/v1/me", headers: bearer(acct.key) })).statusCode).toBe(200);

    await cli(env, "keys", "revoke", acct.keyId);

    const other = await fetch(`${base}/api/v1/me`, { headers: bearer(acct.key) });
    expect(other.status).toBe(401);
    expect(((await other.json()) as { error: { message: string } }).error.message).toBe(
      "Invalid or revoked API key",
    );
    expect((await t.app.inject({ url: "/api/v1/me", headers: bearer(acct.key) })).statusCode).toBe(401);
  });
});
