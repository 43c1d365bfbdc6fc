import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createScratchDatabase, type ScratchDatabase } from "../test/helpers/database.ts";

/** The repository root (benchmarks start `src/main/*.ts` from here). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A Cutroom process started by a benchmark, with everything it printed. */
export interface Proc {
  child: ChildProcess;
  /** stdout and stderr chunks, in arrival order. */
  output: string[];
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

/** How {@link startProcess} starts a script. */
export interface StartOptions {
  /** Node flags before the script, e.g. `["--cpu-prof"]`. */
  nodeArgs?: string[];
  /**
   * Start from this process's whole environment (e.g. a DATABASE_URL or vendor settings the
   * benchmark's own CLI calls also see) instead of the minimal one.
   */
  inheritEnv?: boolean;
  /** Also copy everything the process prints to this process's stderr. */
  echo?: boolean;
  /** Pin the process (and the ffmpeg it starts) to this CPU with `taskset -c`. */
  cpu?: number;
}

/**
 * Starts `node [nodeArgs] <script>` from the repository root with a minimal environment (PATH,
 * HOME; or this process's whole environment with `inheritEnv`), `LOG_LEVEL=warn` and
 * `RENDER_CACHE_BYTES=0` (a bench's later rounds render, never copy an earlier round's segments;
 * the incremental bench turns the cache on in `env`), then `env`, collecting its output. With `cpu`, the process (and the ffmpeg it starts) runs pinned to that
 * CPU (`taskset -c <cpu>`, which execs node: same pid).
 */
export function startProcess(script: string, env: Record<string, string>, options: StartOptions = {}): Proc {
  const base = options.inheritEnv
    ? { ...process.env, LOG_LEVEL: "warn", RENDER_CACHE_BYTES: "0" }
    : {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        LOG_LEVEL: "warn",
        RENDER_CACHE_BYTES: "0",
      };
  const nodeArgs = [...(options.nodeArgs ?? []), script];
  const [command, args] =
    options.cpu === undefined
      ? [process.execPath, nodeArgs]
      : ["taskset", ["-c", String(options.cpu), process.execPath, ...nodeArgs]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const collect = (c: Buffer) => {
    output.push(String(c));
    if (options.echo) process.stderr.write(c);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, output, exited };
}

/** A free TCP port on loopback (closed again before the caller's server takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Awaits `wait`; if it throws, stops `proc` (so a failed start leaves nothing running) and rethrows. */
async function ready(proc: Proc, wait: () => Promise<void>): Promise<void> {
  try {
    await wait();
  } catch (err) {
    await stopProcess(proc);
    throw err;
  }
}

/** An API process started by {@link startApi}. */
export interface Api {
  proc: Proc;
  /** e.g. `http://127.0.0.1:41234`. */
  base: string;
  port: number;
  /** The owner key the first start printed (`crk_…`); null unless `ownerKey` was asked for. */
  key: string | null;
  /** The environment it was given (with PORT and HOST): workers started with it sign the same URLs. */
  env: Record<string, string>;
}

/** How {@link startApi} starts the API, on top of {@link StartOptions}. */
export interface ApiOptions extends StartOptions {
  /** Run the worker inside the API process (WORKER_IN_PROCESS); default false (see {@link startWorker}). */
  workerInProcess?: boolean;
  /**
   * Wait for the owner key a first start on a fresh database prints, and return it (default
   * false: the benchmark makes its keys with the CLI).
   */
  ownerKey?: boolean;
  /** How long start-up may take; default 60 s. */
  timeoutMs?: number;
}

/**
 * Starts `src/main/api.ts` on a free loopback port (HOST=127.0.0.1, PORT chosen here) with
 * `env` (DATA_DIR, DATABASE_URL, …) and waits until `GET /api/v1/health` answers 2xx (and, with
 * `ownerKey`, the owner key has been printed).
 * @throws if the process exits first (with what it printed) or after `timeoutMs`; the process is
 *   stopped then.
 */
export async function startApi(env: Record<string, string>, options: ApiOptions = {}): Promise<Api> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const apiEnv = {
    HOST: "127.0.0.1",
    WORKER_IN_PROCESS: String(options.workerInProcess ?? false),
    ...env,
    PORT: String(port),
  };
  const proc = startProcess("src/main/api.ts", apiEnv, options);
  const ownerKey = () => /crk_[A-Za-z0-9]+/.exec(proc.output.join(""))?.[0] ?? null;
  await ready(proc, () =>
    waitUntil(
      async () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null)
          throw new Error(`the API exited at start: ${proc.output.join("")}`);
        if (options.ownerKey && !ownerKey()) return false;
        return (await fetch(`${base}/api/v1/health`).catch(() => null))?.ok === true;
      },
      options.timeoutMs ?? 60_000,
      options.ownerKey ? "the API and its owner key" : "the API",
    ),
  );
  return { proc, base, port, key: options.ownerKey ? ownerKey() : null, env: apiEnv };
}

/**
 * Starts a worker process (`src/main/worker.ts`, WORKER_PORT=0 so several fit on one machine,
 * LOG_LEVEL=info for its ready line; `env` may override both) with `env` and waits for "worker ready".
 * @throws if the process exits first (with what it printed) or after 60 s (naming `name`); the
 *   process is stopped then.
 */
export async function startWorker(
  env: Record<string, string>,
  name = "the worker",
  options: StartOptions = {},
): Promise<Proc> {
  const proc = startProcess("src/main/worker.ts", { WORKER_PORT: "0", LOG_LEVEL: "info", ...env }, options);
  await ready(proc, () =>
    waitUntil(
      () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null)
          throw new Error(`${name} exited at start: ${proc.output.join("")}`);
        return proc.output.join("").includes("worker ready");
      },
      60_000,
      name,
    ),
  );
  return proc;
}

/** Polls `check` every 100 ms. @throws after `timeoutMs` (naming `what`). */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGTERM, then SIGKILL after 15 s; resolves once the process has exited. */
export async function stopProcess(p: Proc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => p.child.kill("SIGKILL"), 15_000);
  await p.exited;
  clearTimeout(timer);
}

/**
 * The PostgreSQL server benchmarks use: BENCH_DATABASE_URL or TEST_DATABASE_URL (default
 * `postgres://postgres@127.0.0.1:5432/postgres`).
 */
export const ADMIN_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Creates a fresh database named `<prefix>_<pid>_<random>` on `adminUrl` (default
 * {@link ADMIN_URL}; `createScratchDatabase`). Its `drop()` never throws: a benchmark's cleanup
 * goes on.
 */
export async function freshDatabase(prefix: string, adminUrl = ADMIN_URL): Promise<ScratchDatabase> {
  const scratch = await createScratchDatabase(adminUrl, prefix);
  return { ...scratch, drop: () => scratch.drop().catch(() => {}) };
}

/** A JSON (or multipart, for FormData bodies) client of the API with an API key. @throws on any status ≥ 400. */
export function apiClient(base: string, key: string) {
  const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${key}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const res = await fetch(`${base}${url}`, init);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  return call;
}

/**
 * Creates a user (a fresh email per call: a PostgreSQL database may outlive the run) and an API
 * key for it with the CLI (`src/main/cli.ts --json --init`, so a fresh data directory or
 * database is migrated first), in this process's environment plus `env` (DATA_DIR,
 * DATABASE_URL: the API's). Returns the key's secret (`crk_…`).
 * @param plan - `admin`, `upgraded`, …; `scopes` e.g. `"read,write"`.
 * @throws if the CLI fails.
 */
export function cliApiKey(env: Record<string, string>, plan: string, scopes: string): string {
  const cli = (args: string[]) =>
    execFileSync(process.execPath, ["src/main/cli.ts", "--json", "--init", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    }).toString();
  const email = `bench-${Date.now().toString(36)}-${process.pid}-${randomBytes(2).toString("hex")}@example.test`;
  cli(["users", "create", "--email", email, "--plan", plan]);
  const [key] = JSON.parse(cli(["keys", "create", "--user", email, "--scopes", scopes])) as {
    secret: string;
  }[];
  if (!key) throw new Error("the CLI printed no key");
  return key.secret;
}

/** Uploads each file in a request of its own. @returns the upload id of each name of `files`. */
export async function uploadAll(
  call: ReturnType<typeof apiClient>,
  files: Record<string, string>,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [name, file] of Object.entries(files)) {
    const form = new FormData();
    form.append("file", new Blob([await readFile(file)]), path.basename(file));
    ids[name] = (await call<{ data: { id: string }[] }>("POST", "/api/v1/uploads", form)).data[0]?.id ?? "";
  }
  return ids;
}

/**
 * Waits until the preview proxy of every upload in `ids` (name → upload id) is made: the API
 * queues a `preview_proxy` job for each video upload, and a worker building proxies while a
 * bench times a render or a frame would skew it. Uploads without a proxy (`none`: audio, images)
 * are skipped.
 *
 * @returns milliseconds from the call until each video upload's proxy was `ready`, by name.
 * @throws Error when a proxy `failed`, or after `timeoutMs` (default 10 minutes).
 */
export async function waitForPreviewProxies(
  call: ReturnType<typeof apiClient>,
  ids: Record<string, string>,
  timeoutMs = 600_000,
): Promise<Record<string, number>> {
  const started = performance.now();
  const readyMs: Record<string, number> = {};
  const waiting = new Set(Object.keys(ids));
  for (;;) {
    for (const name of [...waiting]) {
      const u = await call<{ previewProxy: string }>("GET", `/api/v1/uploads/${ids[name]}`);
      if (u.previewProxy === "pending") continue;
      if (u.previewProxy === "failed") throw new Error(`the preview proxy of ${name} failed`);
      if (u.previewProxy === "ready") readyMs[name] = Math.round(performance.now() - started);
      waiting.delete(name);
    }
    if (waiting.size === 0) return readyMs;
    if (performance.now() - started > timeoutMs)
      throw new Error(`preview proxies not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
