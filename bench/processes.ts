import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
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

/**
 * Starts `node <script>` from the repository root with a minimal environment (PATH, HOME,
 * `LOG_LEVEL=warn`) plus `env`, collecting its output. With `opts.cpu`, the process (and the
 * ffmpeg it starts) runs pinned to that CPU (`taskset -c <cpu>`, which execs node: same pid).
 */
export function startProcess(script: string, env: Record<string, string>, opts: { cpu?: number } = {}): Proc {
  const [command, args] =
    opts.cpu === undefined
      ? [process.execPath, [script]]
      : ["taskset", ["-c", String(opts.cpu), process.execPath, script]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout?.on("data", (c: Buffer) => output.push(String(c)));
  child.stderr?.on("data", (c: Buffer) => output.push(String(c)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, output, exited };
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
 * Creates a fresh database named `<prefix>_<pid>_<random>` on {@link ADMIN_URL}
 * (`createScratchDatabase`). Its `drop()` never throws: a benchmark's cleanup goes on.
 */
export async function freshDatabase(prefix: string): Promise<ScratchDatabase> {
  const scratch = await createScratchDatabase(ADMIN_URL, prefix);
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
 * Waits until an API process started by a benchmark printed its owner key and answers its
 * health check on `port`. @returns its base URL, the key and a client with that key.
 * @throws after 60 s without a key or 30 s without health.
 */
export async function connectApi(api: Proc, port: number) {
  await waitUntil(() => /crk_[A-Za-z0-9]+/.test(api.output.join("")), 60_000, "the API's owner key");
  const key = (/crk_[A-Za-z0-9]+/.exec(api.output.join("")) as RegExpExecArray)[0];
  const base = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => (await fetch(`${base}/api/v1/health`).catch(() => null))?.ok === true,
    30_000,
    "the API",
  );
  return { base, key, call: apiClient(base, key) };
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
