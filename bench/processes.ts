import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
 * `LOG_LEVEL=warn`) plus `env`, collecting its output.
 */
export function startProcess(script: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [script], {
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
