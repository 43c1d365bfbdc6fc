/**
 * Split-render scaling, end to end through the API with pinned worker processes:
 *
 *   node bench/render/split-scaling.ts [--quick | --seconds 60] [--segment-sec 10] [--rounds 1]
 *     [--split-workers 2] [--segment-all]
 *
 * One x264 encode already keeps both cores of a 2-core machine busy, so the scaling of a split
 * render is measured with workers pinned to cores (`taskset -c`): the 60 s 1920x1080 reference
 * composition (`reference-composition.ts`) rendered at `standard`
 * - unsplit (`RENDER_SEGMENT_SEC=0`) by one worker pinned to CPU 0, and
 * - split (`RENDER_SEGMENT_SEC=--segment-sec`) by two workers pinned to CPU 0 and CPU 1 (with
 *   `--split-workers 1`, by one worker pinned to CPU 0: the cost of segments on one worker, the
 *   "speed-up" then below 1), with the render cache on (its parts kept as a real render keeps
 *   them; earlier rounds' entries forgotten first, so nothing is copied),
 * in that order in odd rounds and the other way round in even ones.
 * Printed: wall time of each (the render's createdAt → finishedAt), the speed-up, the CPU time
 * of each (user + system of the worker processes and the ffmpeg/ffprobe they ran and reaped,
 * from /proc), their ratio, the join (last part finished → render finished: the join job's
 * fetch, stream-copy join and store), of which the wait for the join job to start (last part
 * finished → join job started) and the join's own step times (from its log line), the time of
 * every part and of the render job
 * (from pg-boss's job rows), and the load average before and after.
 * Targets: speed-up ≥ 1.8×, CPU ratio ≤ 1.10, join ≤ 1 s.
 *
 * Needs PostgreSQL (separate processes): BENCH_DATABASE_URL or TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres); a fresh database is created and dropped.
 * `--quick` renders 12 s instead of 60 s (a smoke run), `--seconds N` N seconds; `--segment-all`
 * makes the split workers render every render as segments (`RENDER_SEGMENT_ALL=1`): with
 * `--seconds` at most `--segment-sec`, one segment and the audio, joined. Linux only (taskset, /proc).
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import pg from "pg";
import { tempDir } from "../../test/fixtures/render/media.ts";
import {
  apiClient,
  freshDatabase,
  type Proc,
  startApi,
  startWorker,
  stopProcess,
  uploadAll,
  waitForPreviewProxies,
} from "../processes.ts";
import { makeReferenceInputs, referenceComposition } from "./reference-composition.ts";

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : def;
};
const SECONDS = args.includes("--quick") ? 12 : flag("--seconds", 60);
// `--segment-all`: the split workers make every render as segments (`RENDER_SEGMENT_ALL=1`), also
// one no longer than a segment (one segment and the audio, joined).
const SEGMENT_ALL = args.includes("--segment-all");
const SEGMENT_SEC = flag("--segment-sec", 10);
const ROUNDS = Math.max(1, flag("--rounds", 1));
// `--split-workers 1`: the split render by one worker on CPU 0 too (the cost of making a render
// as segments, against the render in one piece, on the same core).
const SPLIT_CPUS = flag("--split-workers", 2) === 1 ? [0] : [0, 1];
/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ). */
const CLK_TCK = 100;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

/**
 * CPU seconds of a process and of its children it has waited for (utime, stime, cutime, cstime
 * of /proc/<pid>/stat): a worker's own work plus every ffmpeg/ffprobe it ran to the end.
 */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which is in parentheses and may hold spaces).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime, stime, cutime, cstime are fields 14–17 of the line, 12–15 after the name.
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return ticks / CLK_TCK;
}

interface RenderBody {
  id: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  error: unknown;
  segments: { total: number; done: number } | null;
}

/** Starts a standard mp4 render and polls it to the end. */
async function render(call: ReturnType<typeof apiClient>, compositionId: string): Promise<RenderBody> {
  const r = await call<RenderBody>("POST", "/api/render", {
    compositionId,
    output: { format: "mp4", quality: "standard" },
  });
  let got = r;
  while (!["succeeded", "failed", "cancelled"].includes(got.status)) {
    await new Promise((res) => setTimeout(res, 200));
    got = await call<RenderBody>("GET", `/api/render/${r.id}`);
  }
  if (got.status !== "succeeded") throw new Error(`render ${got.status}: ${JSON.stringify(got.error)}`);
  return got;
}

/** Each job of a render (its render job, parts, join): queue, wall seconds. */
async function jobTimes(db: pg.Client, renderId: string) {
  const { rows } = await db.query<{ name: string; started_on: Date; completed_on: Date }>(
    `select name, started_on, completed_on from pgboss.job
      where data->>'renderId' = $1 and state = 'completed' order by started_on`,
    [renderId],
  );
  return rows.map((r) => ({
    name: r.name,
    sec: (r.completed_on.getTime() - r.started_on.getTime()) / 1000,
    startedAt: r.started_on.getTime(),
    completedAt: r.completed_on.getTime(),
  }));
}

/**
 * The step times the workers logged under `message` ("render join steps timed", "render steps
 * timed", "split render start steps timed", "render part steps timed": summed over the parts),
 * or null when none logged them.
 */
function loggedSteps(workers: Proc[], message: string): Record<string, number> | null {
  // Summed over every line logged under `message` (one per part for "render part").
  let sum: Record<string, number> | null = null;
  for (const line of workers.flatMap((w) => w.output.join("").split("\n"))) {
    if (!line.includes(message)) continue;
    try {
      const steps = (JSON.parse(line) as { stepsMs: Record<string, number> }).stepsMs;
      sum ??= {};
      for (const [k, v] of Object.entries(steps)) sum[k] = (sum[k] ?? 0) + v;
    } catch {
      // Not a JSON log line.
    }
  }
  return sum;
}

/** Runs `work` with the given pinned workers (one per CPU) and returns its result and their CPU seconds. */
async function withWorkers<T>(
  env: Record<string, string>,
  cpus: number[],
  work: () => Promise<T>,
): Promise<{ result: T; cpu: number; steps: Record<string, Record<string, number> | null> }> {
  const workers: Proc[] = [];
  try {
    for (const [i, cpu] of cpus.entries()) workers.push(await startWorker(env, `worker ${i + 1}`, { cpu }));
    const before = await Promise.all(workers.map((w) => cpuSeconds(w.child.pid as number)));
    const result = await work();
    const after = await Promise.all(workers.map((w) => cpuSeconds(w.child.pid as number)));
    return {
      result,
      cpu: after.reduce((a, b, i) => a + b - (before[i] ?? 0), 0),
      steps: Object.fromEntries(
        ["render join", "render", "split render start", "render part"].map((m) => [
          m,
          loggedSteps(workers, `${m} steps timed`),
        ]),
      ),
    };
  } finally {
    await Promise.all(workers.map(stopProcess));
  }
}

async function main(): Promise<void> {
  if (availableParallelism() < 2) throw new Error("needs two CPUs (workers pinned to CPU 0 and CPU 1)");
  const { dir, cleanup } = await tempDir("cutroom-split-bench-");
  const database = await freshDatabase("cutroom_bench");
  const procs: Proc[] = [];
  const db = new pg.Client({ connectionString: database.url });
  try {
    log(`generating inputs (${SECONDS} s composition)…`);
    const inputs = await makeReferenceInputs(dir, SECONDS);
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dir, "data"),
      URL_SIGNING_SECRET: randomBytes(32).toString("hex"),
      WORKER_CONCURRENCY: "1",
      WORKER_PORT: "0",
      NODE_OPTIONS: "--max-semi-space-size=4",
    };
    const api = await startApi(env, { ownerKey: true });
    procs.push(api.proc);
    const call = apiClient(api.base, api.key as string);
    await db.connect();
    const ids = await uploadAll(call, inputs);
    // The uploads queued their preview proxies: made before timing, so no worker builds them
    // while it renders.
    const proxies = await withWorkers(env, [0, 1], () => waitForPreviewProxies(call, ids));
    log(`preview proxies made in ${JSON.stringify(proxies.result)} ms`);
    const comp = await call<{ id: string }>("POST", "/api/compositions", referenceComposition(ids, SECONDS));
    const wall = (r: RenderBody) =>
      (new Date(r.finishedAt ?? 0).getTime() - new Date(r.createdAt).getTime()) / 1000;

    const loadBefore = load();
    const rounds: Record<string, number>[] = [];
    let lastJobs: Awaited<ReturnType<typeof jobTimes>> = [];
    const splitLabel = SPLIT_CPUS.length === 1 ? "one worker on CPU 0" : "two workers on CPU 0 and 1";
    const renderUnsplit = () =>
      withWorkers({ ...env, RENDER_SEGMENT_SEC: "0" }, [0], () => render(call, comp.id));
    // The split render fills the render cache as any render does (the cost of keeping its parts
    // is part of the cost of segments); the entries of earlier rounds are forgotten first so
    // that it renders every part.
    const renderSplit = async () => {
      await db.query("delete from render_cache_entries");
      return withWorkers(
        {
          ...env,
          RENDER_SEGMENT_SEC: String(SEGMENT_SEC),
          RENDER_CACHE_BYTES: String(10 * 1024 ** 3),
          ...(SEGMENT_ALL ? { RENDER_SEGMENT_ALL: "1" } : {}),
        },
        SPLIT_CPUS,
        () => render(call, comp.id),
      );
    };
    for (let round = 1; round <= ROUNDS; round++) {
      // Odd rounds render in one piece first, even rounds split first: a drift of the machine's
      // speed over a round then favours neither.
      const splitFirst = round % 2 === 0;
      log(
        `round ${round}/${ROUNDS}: ${splitFirst ? `split, ${splitLabel}` : "unsplit, one worker on CPU 0"} first (load ${load()})…`,
      );
      const first = splitFirst ? await renderSplit() : undefined;
      const one = await renderUnsplit();
      log(`unsplit ${wall(one.result).toFixed(1)} s, ${one.cpu.toFixed(1)} CPU s (load ${load()})`);
      const two = first ?? (await renderSplit());
      const jobs = await jobTimes(db, two.result.id);
      lastJobs = jobs;
      const partsDone = Math.max(...jobs.filter((j) => j.name === "render_part").map((j) => j.completedAt));
      const join = (new Date(two.result.finishedAt ?? 0).getTime() - partsDone) / 1000;
      const joinJob = jobs.find((j) => j.name === "render_join");
      const joinStartSec = joinJob ? (joinJob.startedAt - partsDone) / 1000 : Number.NaN;
      rounds.push({
        unsplitSec: wall(one.result),
        splitSec: wall(two.result),
        speedup: wall(one.result) / wall(two.result),
        wallRatio: wall(two.result) / wall(one.result),
        unsplitCpuSec: one.cpu,
        splitCpuSec: two.cpu,
        cpuRatio: two.cpu / one.cpu,
        joinSec: join,
        joinStartSec,
        ...Object.fromEntries(
          Object.entries(two.steps["render join"] ?? {}).map(([k, v]) => [`joinStep_${k}_ms`, v]),
        ),
        ...Object.fromEntries(
          Object.entries(two.steps["split render start"] ?? {}).map(([k, v]) => [
            `splitStartStep_${k}_ms`,
            v,
          ]),
        ),
        ...Object.fromEntries(
          Object.entries(two.steps["render part"] ?? {}).map(([k, v]) => [`partsStep_${k}_ms`, v]),
        ),
        ...Object.fromEntries(
          Object.entries(one.steps.render ?? {}).map(([k, v]) => [`unsplitStep_${k}_ms`, v]),
        ),
      });
      log(
        `split ${wall(two.result).toFixed(1)} s (${two.result.segments?.total} segments), ${two.cpu.toFixed(1)} CPU s; speed-up ${(wall(one.result) / wall(two.result)).toFixed(2)}x, CPU ${(two.cpu / one.cpu).toFixed(2)}x, join ${join.toFixed(2)} s`,
      );
    }
    const pick = (k: string) => median(rounds.map((r) => r[k] as number));
    const spread = (k: string) => [
      Math.min(...rounds.map((r) => r[k] as number)),
      Math.max(...rounds.map((r) => r[k] as number)),
    ];
    const summary = {
      composition: { seconds: SECONDS, width: 1920, height: 1080, fps: 30 },
      segmentSec: SEGMENT_SEC,
      rounds: ROUNDS,
      loadAverage: { before: loadBefore, after: load() },
      unsplitOneCoreSec: pick("unsplitSec"),
      splitTwoCoresSec: pick("splitSec"),
      speedup: { median: pick("speedup"), range: spread("speedup"), target: 1.8 },
      // One worker: the split render's wall time over the render in one piece's (the cost of
      // segments), with the mean of the rounds beside the median.
      ...(SPLIT_CPUS.length === 1
        ? {
            segmentsWallRatio: {
              median: pick("wallRatio"),
              mean: rounds.reduce((sum, r) => sum + (r.wallRatio as number), 0) / rounds.length,
              range: spread("wallRatio"),
              target: 1.03,
            },
          }
        : {}),
      cpuRatio: { median: pick("cpuRatio"), range: spread("cpuRatio"), target: 1.1 },
      unsplitCpuSec: pick("unsplitCpuSec"),
      splitCpuSec: pick("splitCpuSec"),
      joinSec: { median: pick("joinSec"), range: spread("joinSec"), target: 1 },
      joinStartSec: { median: pick("joinStartSec"), range: spread("joinStartSec") },
      lastSplitJobs: lastJobs.map((j) => ({ name: j.name, sec: j.sec })),
      perRound: rounds,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await db.end().catch(() => {});
    await Promise.all(procs.map(stopProcess));
    await database.drop();
    await cleanup();
  }
}

await main();
