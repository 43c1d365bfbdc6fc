// The rig of the crash-retry tests: a test app with no worker of its own and two worker
// processes on its PostgreSQL database and data directory; one is SIGKILLed while it runs a
// job, and the other must take the job over.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { waitFor } from "../renders/helpers.ts";
import { startTestApp, type TestApp } from "./app.ts";

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Whether crash-retry tests can run: two worker processes need a database server (they cannot
 * share an embedded PGlite), so only with TEST_DATABASE_URL.
 */
export const canRunCrashTests = Boolean(process.env.TEST_DATABASE_URL);

/** A worker process of the rig, with everything it printed. */
export interface WorkerProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** Starts `node src/main/worker.ts` in its own process group (so cleanup can take its children too). */
async function startWorkerProcess(name: string, env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["src/main/worker.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  child.stdout?.on("data", (c: Buffer) => output.push(String(c)));
  child.stderr?.on("data", (c: Buffer) => output.push(String(c)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`worker ${name} exited at start: ${output.join("")}`);
    return output.join("").includes("cutroom worker ready");
  }, 30_000);
  return { name, child, output, exited };
}

/**
 * PIDs of the child processes of `pid` whose command is one of `commands` (compared as the
 * kernel keeps it: the first 15 characters).
 */
export async function childProcesses(pid: number, commands: readonly string[]): Promise<number[]> {
  const { stdout } = await run("ps", ["-o", "pid=,comm=", "--ppid", String(pid)]).catch(() => ({
    stdout: "",
  }));
  const wanted = new Set(commands.map((c) => c.slice(0, 15)));
  return stdout
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => wanted.has(comm ?? ""))
    .map(([p]) => Number(p));
}

/**
 * Whether process `pid` holds the client end of a TCP connection from 127.0.0.1:`clientPort`
 * (e.g. the one a server saw a request come from): the socket's inode, read from
 * /proc/net/tcp, is among the process's open files.
 */
export async function holdsConnection(pid: number, clientPort: number): Promise<boolean> {
  const local = `0100007F:${clientPort.toString(16).toUpperCase().padStart(4, "0")}`;
  const table = await readFile("/proc/net/tcp", "utf8").catch(() => "");
  const inodes = new Set(
    table
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter((cols) => cols[1] === local)
      .map((cols) => `socket:[${cols[9]}]`),
  );
  if (inodes.size === 0) return false;
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")));
  return links.some((l) => inodes.has(l));
}

/** Whether a process exists and is not a zombie. */
export async function isAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/^\d+ \(.*\) Z/.test(stat);
}

/** What {@link CrashRig.killWorkerMidJob} did. */
export interface WorkerKill<T> {
  /** The worker killed; the one left and the one started in its place (either may retry the job). */
  victim: WorkerProcess;
  survivors: WorkerProcess[];
  /** What `underWay` returned when the kill was decided (e.g. the resource as the API showed it). */
  running: T;
  /** `Date.now()` once the victim had exited. */
  killedAt: number;
  /** The working directories (absolute) of the victim's killed tool processes, read before the kill. */
  childDirs: string[];
}

/** A test app with no worker and two worker processes (A and B) on its database. */
export interface CrashRig {
  t: TestApp;
  /** Base URL of the listening app. */
  base: string;
  workers: WorkerProcess[];
  /**
   * Polls (every 100 ms, up to 60 s) until `underWay` returns a value and a worker process has a
   * child running one of `tools` (e.g. `ffmpeg`: the job is mid-work there), then SIGKILLs that
   * worker's Node process alone, waits for it to exit and for those children to die with it
   * (within 2 s: they are launched with a parent-death signal, not left working as orphans), and
   * starts a fresh worker process in its place.
   * @param underWay - the job's state when it is running, null while not yet; throws when the
   *   job ended before it could be killed.
   * @throws if the condition is not met in time or the children outlive their worker.
   */
  killWorkerMidJob<T>(underWay: () => Promise<T | null>, tools: readonly string[]): Promise<WorkerKill<T>>;
  /**
   * Polls (every 100 ms, up to 60 s) until `pick` names a worker process (the one doing the work
   * to interrupt, e.g. found by {@link holdsConnection}), then SIGKILLs its Node process, waits
   * for it to exit and starts a fresh worker process in its place (`childDirs` is empty).
   * @param pick - the victim and the job's state, null while not yet; throws when the job ended
   *   before it could be killed.
   * @throws if the condition is not met in time.
   */
  killWorkerWhen<T>(
    pick: (workers: readonly WorkerProcess[]) => Promise<{ victim: WorkerProcess; running: T } | null>,
  ): Promise<WorkerKill<T>>;
  /** Names of the work directories of `resourceId`'s attempts left under WORK_DIR. */
  leftoverWorkDirs(resourceId: string): Promise<string[]>;
  /** Whether the app answers its health check and both worker processes are still running. */
  healthy(): Promise<boolean>;
  /** Kills what is still running (each worker's whole process group) and closes the app. */
  close(): Promise<void>;
}

/**
 * Starts the rig: a test app (no in-process worker, listening on a free port) and two worker
 * processes with its DATABASE_URL, DATA_DIR and URL signing secret, one job at a time each, no
 * health/metrics server (both would want the same port). Needs {@link canRunCrashTests}.
 * @param env - more configuration for the app and both workers.
 */
export async function startCrashRig(env: Record<string, string> = {}): Promise<CrashRig> {
  const secret = randomBytes(32).toString("hex");
  const t = await startTestApp({ worker: false, env: { URL_SIGNING_SECRET: secret, ...env } });
  const workers: WorkerProcess[] = [];
  const close = async () => {
    for (const w of workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        try {
          process.kill(-(w.child.pid as number), "SIGKILL");
        } catch {}
      }
    }
    await Promise.all(workers.map((w) => w.exited));
    await t.close();
  };
  try {
    const base = await t.listen();
    const workerEnv = {
      DATABASE_URL: t.testDb.url ?? "",
      DATA_DIR: t.config.dataDir,
      URL_SIGNING_SECRET: secret,
      LOG_LEVEL: "info",
      WORKER_CONCURRENCY: "1",
      WORKER_PORT: "0",
      ...env,
    };
    const started = await Promise.allSettled([
      startWorkerProcess("A", workerEnv),
      startWorkerProcess("B", workerEnv),
    ]);
    for (const s of started) if (s.status === "fulfilled") workers.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    /**
     * SIGKILLs `victim`'s Node process alone, waits for it to exit and for its tool processes
     * `children` to die with it (within 2 s: they are launched with a parent-death signal, not
     * left working as orphans), and starts a fresh worker process in its place.
     */
    const killAndReplace = async (victim: WorkerProcess, children: readonly number[]) => {
      process.kill(victim.child.pid as number, "SIGKILL");
      await victim.exited;
      const killedAt = Date.now();
      await waitFor(
        async () => (await Promise.all(children.map(isAlive))).every((alive) => !alive),
        2_000,
        50,
      );
      // The rig has two workers again for the next test: a fresh process takes the victim's
      // place (started while the job waits out the missed heartbeats; either may retry it).
      const index = workers.indexOf(victim);
      workers[index] = await startWorkerProcess(`${victim.name}'`, workerEnv);
      return { victim, survivors: [...workers], killedAt };
    };
    return {
      t,
      base,
      workers,
      async killWorkerMidJob(underWay, tools) {
        const { victim, running, children } = await waitFor(
          async () => {
            const state = await underWay();
            if (state === null) return null;
            for (const w of workers) {
              const pids = await childProcesses(w.child.pid as number, tools);
              if (pids.length > 0) return { victim: w, running: state, children: pids };
            }
            return null;
          },
          60_000,
          100,
        );
        const childDirs = (
          await Promise.all(children.map((pid) => readlink(`/proc/${pid}/cwd`).catch(() => "")))
        ).filter((d) => d !== "");
        return { ...(await killAndReplace(victim, children)), running, childDirs };
      },
      async killWorkerWhen(pick) {
        const { victim, running } = await waitFor(() => pick(workers), 60_000, 100);
        return { ...(await killAndReplace(victim, [])), running, childDirs: [] };
      },
      async healthy() {
        const res = await fetch(`${base}/api/v1/health`).catch(() => null);
        return (
          res?.ok === true && workers.every((w) => w.child.exitCode === null && w.child.signalCode === null)
        );
      },
      async leftoverWorkDirs(resourceId) {
        const names = await readdir(t.config.workDir).catch(() => [] as string[]);
        return names.filter((name) => name.startsWith(`${resourceId}-`));
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
