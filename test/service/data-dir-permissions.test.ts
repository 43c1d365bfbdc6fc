import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
let dataDir = "";
let server: ChildProcess | null = null;
let output = "";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts the real API on `dataDir` (embedded PGlite, umask 022 like a login shell) and waits for health. */
async function startApi(): Promise<string> {
  const port = await freePort();
  output = "";
  const previous = process.umask(0o022);
  try {
    server = spawn(process.execPath, ["src/main/api.ts"], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        DATA_DIR: dataDir,
        HOST: "127.0.0.1",
        PORT: String(port),
        WORKER_IN_PROCESS: "false",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
  } finally {
    process.umask(previous);
  }
  server.stdout?.on("data", (c) => (output += String(c)));
  server.stderr?.on("data", (c) => (output += String(c)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error(`the API exited: ${output}`);
    if (
      await fetch(`${base}/api/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return base;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the API did not start: ${output}`);
}

async function stopApi(): Promise<void> {
  const s = server;
  server = null;
  if (!s || s.exitCode !== null) return;
  const exited = new Promise((r) => s.once("exit", r));
  s.kill("SIGTERM");
  await exited;
}

/** Every entry under `dir` whose mode lets group or others in, as `path mode`. */
async function openToOthers(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const open: string[] = [];
  for (const e of entries) {
    const file = path.join(e.parentPath, e.name);
    const s = await stat(file);
    if ((s.mode & 0o077) !== 0) open.push(`${path.relative(dir, file)} ${(s.mode & 0o777).toString(8)}`);
  }
  return open;
}

afterAll(async () => {
  await stopApi();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("DATA_DIR permissions", () => {
  it("the server creates its data directory 0700 and the database files and uploads 0600", async () => {
    dataDir = path.join(await mkdtemp(path.join(tmpdir(), "cutroom-perm-")), "data");
    const base = await startApi();
    const key = /crk_[A-Za-z0-9]+/.exec(output)?.[0];
    expect(key).toBeDefined();
    const form = new FormData();
    form.append("file", new Blob(["1\n00:00:00,000 --> 00:00:01,000\nprivate words\n"]), "subs.srt");
    const upload = await fetch(`${base}/api/v1/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(upload.status).toBe(201);
    await stopApi();

    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const pglite = await readdir(path.join(dataDir, "pglite"), { recursive: true });
    expect(pglite.length).toBeGreaterThan(10);
    const blobs = (
      await readdir(path.join(dataDir, "blobs"), { recursive: true, withFileTypes: true })
    ).filter((e) => e.isFile());
    expect(blobs.length).toBeGreaterThan(0);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect(output).not.toContain("other local users");
  }, 120_000);

  it("warns once at start when an existing data directory is open to other users", async () => {
    await chmod(dataDir, 0o755);
    await startApi();
    await stopApi();
    const warnings = output.split("\n").filter((l) => l.includes("other local users"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${dataDir} (0755)`);
    expect(warnings[0]).toContain('"level":40');
  }, 120_000);
});
