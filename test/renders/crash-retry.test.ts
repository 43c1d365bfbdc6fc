import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import { probe } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, type RenderBody, waitFor } from "./helpers.ts";

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
/**
 * Half the composition's length (seconds). A 320×180 colour render encodes at ~60× real time on
 * an idle 2-core machine, so 10 minutes keep ffmpeg busy for ~10 s: a window the poll below
 * cannot miss even when other test files load the machine (2 minutes, ~2 s, once did).
 */
const HALF = 300;
const TERMINAL = ["succeeded", "failed", "cancelled"];

/** `2 * HALF` seconds of two colours joined by a wipe, under a text. */
const CRASH_TIMELINE = {
  name: "crash",
  canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start: 0, duration: HALF, asset: { type: "color", color: "#204080" } },
        {
          start: HALF,
          duration: HALF,
          asset: { type: "color", color: "#802040" },
          transition: { type: "wipeleft", duration: 1 },
        },
      ],
    },
    {
      kind: "video",
      clips: [
        {
          start: 0,
          duration: 2 * HALF,
          asset: { type: "text", text: "crash test", style: { family: "DejaVu Sans", size: 30 } },
        },
      ],
    },
  ],
};

interface WorkerProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** Starts `node src/main/worker.ts` in its own process group (so a kill takes its ffmpeg too). */
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
  await waitFor(async () => output.join("").includes("cutroom worker ready"), 30_000);
  return { name, child, output, exited };
}

/** PIDs of ffmpeg processes started by `pid`. */
async function ffmpegChildren(pid: number): Promise<number[]> {
  const { stdout } = await run("ps", ["-o", "pid=,comm=", "--ppid", String(pid)]).catch(() => ({
    stdout: "",
  }));
  return stdout
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm === "ffmpeg")
    .map(([p]) => Number(p));
}

/** Whether a process exists and is not a zombie. */
async function isAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/^\d+ \(.*\) Z/.test(stat);
}

describe.skipIf(!onPostgres)(
  "crash-retry (PostgreSQL only: two worker processes cannot share an embedded PGlite; set TEST_DATABASE_URL)",
  () => {
    let t: TestApp;
    let base: string;
    let dir: string;
    let env: Record<string, string> = {};
    const workers: WorkerProcess[] = [];

    /** Starts workers A and B (WORKER_CONCURRENCY 1) splitting renders longer than `segmentSec` (0: never). */
    async function startWorkers(segmentSec: number): Promise<void> {
      const withSplit = { ...env, RENDER_SEGMENT_SEC: String(segmentSec) };
      workers.push(
        ...(await Promise.all([startWorkerProcess("A", withSplit), startWorkerProcess("B", withSplit)])),
      );
    }

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "cutroom-crash-"));
      const secret = randomBytes(32).toString("hex");
      t = await startTestApp({ worker: false, env: { URL_SIGNING_SECRET: secret } });
      base = await t.listen();
      env = {
        DATABASE_URL: t.testDb.url ?? "",
        DATA_DIR: t.config.dataDir,
        URL_SIGNING_SECRET: secret,
        LOG_LEVEL: "info",
        WORKER_CONCURRENCY: "1",
        // Two workers on one machine: no health/metrics server (both would want port 9464).
        WORKER_PORT: "0",
      };
    }, 60_000);

    afterEach(async () => {
      for (const w of workers.splice(0)) {
        if (w.child.exitCode === null && w.child.signalCode === null) {
          try {
            process.kill(-(w.child.pid as number), "SIGKILL");
          } catch {}
        }
        await w.exited;
      }
    });

    afterAll(async () => {
      await t?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("a worker SIGKILLed mid-render: another worker process takes it over and it succeeds", async () => {
      // Rendered in one piece: the retry is of the whole render.
      await startWorkers(0);
      const api = client(base, (await t.createAccount()).key);
      const comp = await api.createComposition(CRASH_TIMELINE);
      const r = await api.startRender({ compositionId: comp.id, output: { quality: "standard" } });

      // Wait until one worker's ffmpeg is encoding, then SIGKILL that worker (only the Node process).
      const { victim, running, encoders } = await waitFor(
        async () => {
          const got = (await api.getRender(r.id)).body as RenderBody;
          if (TERMINAL.includes(got.status)) {
            throw new Error(`the render ended (${got.status}) before a worker could be killed mid-render`);
          }
          if (got.status !== "rendering" || got.progress.ratio < 0.1) return null;
          for (const w of workers) {
            const pids = await ffmpegChildren(w.child.pid as number);
            if (pids.length > 0) return { victim: w, running: got, encoders: pids };
          }
          return null;
        },
        60_000,
        100,
      );
      expect(running.attempt).toBe(1);
      process.kill(victim.child.pid as number, "SIGKILL");
      await victim.exited;
      const killedAt = Date.now();
      // Its ffmpeg dies with it (parent-death signal) instead of encoding on as an orphan.
      await waitFor(
        async () => (await Promise.all(encoders.map(isAlive))).every((alive) => !alive),
        2_000,
        50,
      );

      const history: RenderBody[] = [];
      let takenOverInMs = 0;
      const end = (
        await api.pollUntilTerminal(r.id, {
          timeoutMs: 120_000,
          onPoll: (b) => {
            history.push(b);
            if (b.attempt === 2 && !takenOverInMs) takenOverInMs = Date.now() - killedAt;
          },
        })
      ).at(-1);
      const recoveredInMs = Date.now() - killedAt;
      // Heartbeat timeout (10 s) + pg-boss monitor interval (5 s) + retry delay (2 s) + polling.
      expect(takenOverInMs).toBeGreaterThan(0);
      expect(takenOverInMs).toBeLessThan(25_000);
      expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
      expect(end?.attempt).toBe(2);
      expect(end?.error).toBeNull();
      // Progress never went backwards across the two attempts; statuses only moved forward within one.
      let ratio = 0;
      for (const h of history) {
        expect(h.progress.ratio).toBeGreaterThanOrEqual(ratio);
        ratio = h.progress.ratio;
        expect(["rendering", "preparing", "finalizing", "succeeded"]).toContain(h.status);
      }
      expect(history.some((h) => h.attempt === 2)).toBe(true);
      const survivor = workers.find((w) => w !== victim);
      expect(survivor?.output.join("")).toContain('"outcome":"succeeded"');
      // The killed attempt's scratch directory went when attempt 2 started; attempt 2 removed its own.
      const left = (await readdir(path.join(t.config.dataDir, "work")).catch(() => [] as string[])).filter(
        (name) => name.startsWith(`${r.id}-`),
      );
      expect(left).toEqual([]);

      const file = path.join(dir, "out.mp4");
      const got = await download(onServer(base, end?.output?.url ?? ""), file);
      expect(got.sha256).toBe(end?.output?.sha256);
      const p = await probe(file);
      expect(Math.abs(p.duration - 2 * HALF)).toBeLessThanOrEqual(0.05);
      process.stdout.write(
        `crash-retry: attempt 2 started ${takenOverInMs} ms and finished ${recoveredInMs} ms after the kill\n`,
      );
    }, 180_000);

    it("a worker SIGKILLed mid-segment of a split render costs only that segment", async () => {
      // 600 s in segments of 200 s: three video segments (each several seconds of encoding)
      // and the audio, two workers taking one part at a time.
      await startWorkers(200);
      const api = client(base, (await t.createAccount()).key);
      const comp = await api.createComposition(CRASH_TIMELINE);
      const r = await api.startRender({ compositionId: comp.id, output: { quality: "standard" } });

      // Wait until a worker's ffmpeg is encoding a segment, find which part from its work
      // directory (`rsg_…-a1-…`), then SIGKILL that worker.
      const { victim, partId } = await waitFor(
        async () => {
          const got = (await api.getRender(r.id)).body as RenderBody;
          if (TERMINAL.includes(got.status)) throw new Error(`the render ended (${got.status}) too soon`);
          if (got.status !== "rendering" || got.progress.ratio < 0.15) return null;
          for (const w of workers) {
            for (const pid of await ffmpegChildren(w.child.pid as number)) {
              const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => "");
              const part = /^(rsg_[0-9A-Z]+)-a1-/.exec(path.basename(cwd))?.[1];
              if (part) return { victim: w, partId: part };
            }
          }
          return null;
        },
        60_000,
        100,
      );
      process.kill(victim.child.pid as number, "SIGKILL");
      await victim.exited;

      const end = (await api.pollUntilTerminal(r.id, { timeoutMs: 150_000 })).at(-1);
      expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
      expect(end?.segments).toEqual({ total: 3, done: 3 });
      // Only the killed part ran twice; every other part, and the render's own job, once
      // (attempt 2 of the render is its join).
      const parts = await listRenderParts(t.database.db, r.id);
      expect(parts).toHaveLength(4);
      expect(parts.map((p) => [p.id, p.status, p.attempt])).toEqual(
        parts.map((p) => [p.id, "succeeded", p.id === partId ? 2 : 1]),
      );
      expect(end?.attempt).toBe(2);
      // The killed attempt's work directory went with its retry; nothing of the render is left.
      const left = (await readdir(path.join(t.config.dataDir, "work")).catch(() => [] as string[])).filter(
        (name) => name.startsWith(`${r.id}-`) || parts.some((p) => name.startsWith(`${p.id}-`)),
      );
      expect(left).toEqual([]);

      const file = path.join(dir, "split-out.mp4");
      const got = await download(onServer(base, end?.output?.url ?? ""), file);
      expect(got.sha256).toBe(end?.output?.sha256);
      const p = await probe(file, true);
      expect(p.video?.frames).toBe(2 * HALF * 25);
      expect(Math.abs(p.duration - 2 * HALF)).toBeLessThanOrEqual(0.05);
    }, 240_000);
  },
);
