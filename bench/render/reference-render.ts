/**
 * Reference render benchmark, end to end through the API with the worker as its own process:
 *
 *   node bench/render/reference-render.ts [--quick] [--no-scaling] [--keep] [--rounds N]
 *
 * A 60 s, 1920x1080, 30 fps composition: four video clips of different sizes and frame rates
 * (testsrc2, mandelbrot, a portrait 60 fps clip, a 29.97 fps cellular automaton; all with tone
 * audio) joined by three crossfades, a PNG overlay with motion, a title, burned captions, and a
 * voice over music ducked under it. Measured in one run:
 * - the render through the API at `standard` (queue → succeeded, from the render's own
 *   createdAt/finishedAt) and at `draft`;
 * - the encode-only floor: ffmpeg encoding 60 s of 1080p30 testsrc2 (+ a sine) with exactly the
 *   `standard` encoder arguments (`encoderArgs("mp4", "standard")`), and the ratio to it;
 * - with `--rounds N` (default 3), the floor and the `standard` render alternate N times and the
 *   ratio is the median render over the median floor, with each figure's spread (min–max);
 * - the peak RSS of the worker process tree (Node + ffmpeg/ffprobe children), sampled every 100 ms;
 * - CPU seconds (user + system) of the floor's ffmpeg and of the worker tree during each render
 *   (Node plus the ffmpeg/ffprobe it ran, from /proc), and their ratio: steadier than wall time
 *   on a shared machine;
 * - where the worker's wall time goes in each `standard` render (its "render steps timed" log
 *   line: prepare, phase writes, ffmpeg, damage check, store (probe ∥ hash, move) in ms) and how much of it is around ffmpeg;
 * - two renders at once with one worker process, then with two (throughput scaling).
 *
 * Needs PostgreSQL (API and worker are separate processes): BENCH_DATABASE_URL or
 * TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a fresh database is
 * created and dropped. `--quick` renders 12 s instead of 60 s (a smoke run).
 * BENCH_WORKER_NODE_OPTIONS is passed to the worker processes as NODE_OPTIONS (e.g.
 * `--max-semi-space-size=4`, which roughly halves the worker's own RSS on Node 24).
 * Prints a JSON summary; RESULTS.md in this directory records the figures.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { encoderArgs } from "../../src/domain/render/outputs.ts";
import { probe, tempDir } from "../../test/fixtures/render/media.ts";
import {
  apiClient,
  freshDatabase,
  type Proc,
  ROOT,
  startApi,
  startWorker,
  stopProcess,
  waitForPreviewProxies,
} from "../processes.ts";
import { makeReferenceInputs, referenceComposition } from "./reference-composition.ts";

const run = promisify(execFile);
const args = new Set(process.argv.slice(2));
const QUICK = args.has("--quick");
const SCALING = !args.has("--no-scaling");
const SECONDS = QUICK ? 12 : 60;
const roundsAt = process.argv.indexOf("--rounds");
const ROUNDS = roundsAt >= 0 ? Math.max(1, Number(process.argv[roundsAt + 1])) : 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const range = (xs: number[]) => [Math.min(...xs), Math.max(...xs)];
/** How often a render's status is polled: the `Retry-After` (seconds) the API sends while it runs. */
const POLL_MS = 1000;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------- processes

/**
 * RSS (bytes) of a process and all its descendants, from /proc, read synchronously: a sample is
 * a handful of small reads (the process's status and its children's), not a walk over every
 * thread's `children` file with a promise per read. The sampler runs beside what it measures on
 * the same two cores, so its own CPU time is part of the measurement: this way it costs a few
 * hundredths of a CPU second per render instead of more than one CPU second.
 * Children are read from the process's main thread only (`task/<pid>/children`): Node and
 * ffmpeg start their child processes from it.
 */
function treeRss(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    total += ownRss(p);
    let kids = "";
    try {
      kids = readFileSync(`/proc/${p}/task/${p}/children`, "utf8");
    } catch {
      // the process has exited
    }
    for (const k of kids.trim().split(/\s+/).filter(Boolean)) stack.push(Number(k));
  }
  return total;
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`). */
const CLK_TCK = Number((await run("getconf", ["CLK_TCK"])).stdout.trim()) || 100;

/**
 * CPU seconds (user + system) from /proc/<pid>/stat: the process's own, and its children's that
 * it has waited for (an ffmpeg counts once it has exited).
 */
async function cpuSeconds(pid: number): Promise<{ own: number; children: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const f = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  return { own: ((f[11] ?? 0) + (f[12] ?? 0)) / CLK_TCK, children: ((f[13] ?? 0) + (f[14] ?? 0)) / CLK_TCK };
}

/** RSS (bytes) of one process (0 once it has exited). */
function ownRss(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Samples every 100 ms until stopped: the peak RSS of the given process trees (summed, Node +
 * ffmpeg/ffprobe children) and, separately, the peak of the Node processes alone. It runs during
 * the floor as well as during the renders, so that both carry the same measuring overhead.
 */
function rssSampler(pids: () => number[]) {
  let peak = 0;
  let peakNode = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      peak = Math.max(
        peak,
        pids().reduce((sum, pid) => sum + treeRss(pid), 0),
      );
      peakNode = Math.max(
        peakNode,
        pids().reduce((sum, pid) => sum + ownRss(pid), 0),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { peak, peakNode };
    },
  };
}

// ---------------------------------------------------------------- API

interface RenderBody {
  id: string;
  status: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  output: { url: string; duration: number; size: number } | null;
  error: unknown;
  warnings: unknown[];
}

async function renderOnce(
  call: ReturnType<typeof apiClient>,
  compositionId: string,
  quality: string,
): Promise<{ queueToDoneSec: number; startToDoneSec: number; render: RenderBody }> {
  const r = await call<RenderBody>("POST", "/api/render", {
    compositionId,
    output: { format: "mp4", quality },
  });
  let got = r;
  while (!["succeeded", "failed", "cancelled"].includes(got.status)) {
    // The interval the API asks for (`Retry-After: 1` while a render is not terminal), as a
    // client would poll; the times come from the render's own timestamps, not from the polls.
    await new Promise((res) => setTimeout(res, POLL_MS));
    got = await call<RenderBody>("GET", `/api/render/${r.id}`);
  }
  if (got.status !== "succeeded") throw new Error(`render ${got.status}: ${JSON.stringify(got.error)}`);
  const t = (s: string | null) => new Date(s ?? 0).getTime();
  return {
    queueToDoneSec: (t(got.finishedAt) - t(got.createdAt)) / 1000,
    startToDoneSec: (t(got.finishedAt) - t(got.startedAt)) / 1000,
    render: got,
  };
}

/**
 * The worker's "render steps timed" log line of a render: wall milliseconds of the attempt
 * (`totalMs`) and of each step (`stepsMs`: prepare, phaseWrites, ffmpeg, damage, store), or null.
 */
function stepsOf(proc: Proc, renderId: string): { totalMs: number; stepsMs: Record<string, number> } | null {
  for (const line of proc.output.join("").split("\n")) {
    if (!line.includes('"render steps timed"') || !line.includes(renderId)) continue;
    const entry = JSON.parse(line) as { totalMs: number; stepsMs: Record<string, number> };
    return { totalMs: entry.totalMs, stepsMs: entry.stepsMs };
  }
  return null;
}

// ---------------------------------------------------------------- main

/**
 * Runs the encode-only floor; returns its wall seconds and the peak RSS (bytes) of its ffmpeg,
 * sampled as the renders' worker tree is (so both carry the same sampling overhead).
 */
async function floorEncode(dir: string): Promise<{ sec: number; peakRss: number }> {
  const started = Date.now();
  const encode = run(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", `testsrc2=s=1920x1080:r=30:d=${SECONDS}`],
      ...["-f", "lavfi", "-i", `sine=f=440:r=48000:d=${SECONDS}`],
      ...encoderArgs("mp4", "standard"),
      ...["-r", "30"],
      path.join(dir, "floor.mp4"),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const sampler = rssSampler(() => (encode.child.pid ? [encode.child.pid] : []));
  await encode;
  const sec = (Date.now() - started) / 1000;
  return { sec, peakRss: (await sampler.stop()).peak };
}

async function main(): Promise<void> {
  const { dir, cleanup } = await tempDir("cutroom-reference-");
  const database = await freshDatabase("cutroom_bench");
  const procs: Proc[] = [];
  try {
    log(`generating inputs (${SECONDS} s composition)…`);
    const inputs = await makeReferenceInputs(dir, SECONDS);

    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dir, "data"),
      URL_SIGNING_SECRET: randomBytes(32).toString("hex"),
      WORKER_CONCURRENCY: "1",
      // The render in one piece against the encode floor (split renders: split-scaling.ts).
      RENDER_SEGMENT_SEC: "0",
    };
    const api = await startApi(env, { ownerKey: true });
    procs.push(api.proc);
    const { base } = api;
    const call = apiClient(base, api.key as string);

    const ids: Record<string, string> = {};
    for (const [k, file] of Object.entries(inputs)) {
      const started = Date.now();
      const form = new FormData();
      const bytes = await readFile(file);
      form.append("file", new Blob([bytes]), path.basename(file));
      ids[k] = (await call<{ data: { id: string }[] }>("POST", "/api/v1/uploads", form)).data[0]?.id ?? "";
      log(
        `uploaded ${path.basename(file)} (${(bytes.length / 2 ** 20).toFixed(1)} MiB) in ${Date.now() - started} ms`,
      );
    }
    const comp = await call<{ id: string }>("POST", "/api/compositions", referenceComposition(ids, SECONDS));

    // BENCH_WORKER_NODE_OPTIONS (e.g. --max-semi-space-size=4) is passed to the worker processes as NODE_OPTIONS.
    const workerEnv = {
      ...api.env,
      ...(process.env.BENCH_WORKER_NODE_OPTIONS
        ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS }
        : {}),
    };
    const worker1 = await startWorker(workerEnv, "worker 1");
    procs.push(worker1);
    // The uploads queued their preview proxies: made before timing, so the worker does not
    // build them during the floor or a render.
    log(`preview proxies made in ${JSON.stringify(await waitForPreviewProxies(call, ids))} ms`);

    const floors: number[] = [];
    const renders: number[] = [];
    const floorCpu: number[] = [];
    const renderCpu: number[] = [];
    let peakRss = 0;
    let floorPeakRss = 0;
    const benchCpu: { floor: number; render: number }[] = [];
    /** The worker's own (Node) share of each render's worker-tree CPU seconds. */
    const workerNodeCpu: number[] = [];
    let peakNode = 0;
    let standard: Awaited<ReturnType<typeof renderOnce>> | undefined;
    const steps: ReturnType<typeof stepsOf>[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      log(`round ${round}/${ROUNDS}: floor (testsrc2 with the standard encoder settings)…`);
      const beforeFloor = await cpuSeconds(process.pid);
      const floor = await floorEncode(dir);
      floors.push(floor.sec);
      floorPeakRss = Math.max(floorPeakRss, floor.peakRss);
      const afterFloor = await cpuSeconds(process.pid);
      floorCpu.push(afterFloor.children - beforeFloor.children);
      log(`floor ${floors.at(-1)?.toFixed(1)} s; standard render through the API…`);
      const sampler = rssSampler(() => [worker1.child.pid as number]);
      const beforeRender = await cpuSeconds(worker1.child.pid as number);
      const benchBefore = await cpuSeconds(process.pid);
      standard = await renderOnce(call, comp.id, "standard");
      const afterRender = await cpuSeconds(worker1.child.pid as number);
      // The bench's own CPU (sampling and polling) on the shared cores, in the floor and in the render.
      benchCpu.push({
        floor: afterFloor.own - beforeFloor.own,
        render: (await cpuSeconds(process.pid)).own - benchBefore.own,
      });
      const peaks = await sampler.stop();
      // The worker tree's CPU: Node (with its idle queue polling) plus the ffmpeg and ffprobe it ran.
      renderCpu.push(afterRender.own + afterRender.children - beforeRender.own - beforeRender.children);
      workerNodeCpu.push(afterRender.own - beforeRender.own);
      peakRss = Math.max(peakRss, peaks.peak);
      peakNode = Math.max(peakNode, peaks.peakNode);
      renders.push(standard.queueToDoneSec);
      log(
        `standard ${standard.queueToDoneSec.toFixed(1)} s = ${(standard.queueToDoneSec / (floors.at(-1) ?? 1)).toFixed(2)}x (peak worker RSS ${(peaks.peak / 2 ** 20).toFixed(0)} MiB, Node alone ${(peaks.peakNode / 2 ** 20).toFixed(0)} MiB)`,
      );
      log(
        `CPU: floor ${floorCpu.at(-1)?.toFixed(1)} s, render (worker tree) ${renderCpu.at(-1)?.toFixed(1)} s, of which Node ${workerNodeCpu.at(-1)?.toFixed(2)} s = ${((renderCpu.at(-1) ?? 0) / (floorCpu.at(-1) ?? 1)).toFixed(2)}x`,
      );
      const timed = stepsOf(worker1, standard.render.id);
      steps.push(timed);
      if (timed) {
        const outside = timed.totalMs - (timed.stepsMs.ffmpeg ?? 0);
        log(
          `worker steps (ms): ${JSON.stringify(timed.stepsMs)}; around ffmpeg ${outside} ms of ${timed.totalMs}`,
        );
      }
    }
    if (!standard) throw new Error("no round ran");
    const floorSec = median(floors);

    const outFile = path.join(dir, "standard.mp4");
    const signed = new URL(standard.render.output?.url ?? "");
    const dl = await fetch(`${base}${signed.pathname}${signed.search}`);
    await writeFile(outFile, Buffer.from(await dl.arrayBuffer()));
    const outProbe = await probe(outFile, true);
    if (args.has("--keep")) {
      const kept = path.join(ROOT, "tmp", "reference-render.mp4");
      await mkdir(path.dirname(kept), { recursive: true });
      await copyFile(outFile, kept);
      log(`kept the output at ${kept}`);
    }

    log("draft render through the API…");
    const draft = await renderOnce(call, comp.id, "draft");
    log(`draft ${draft.queueToDoneSec.toFixed(1)} s`);

    let scaling: Record<string, number> | undefined;
    if (SCALING) {
      log("two standard renders at once, one worker process…");
      let started = Date.now();
      await Promise.all([renderOnce(call, comp.id, "standard"), renderOnce(call, comp.id, "standard")]);
      const oneWorker = (Date.now() - started) / 1000;
      const worker2 = await startWorker(workerEnv, "worker 2");
      procs.push(worker2);
      log("two standard renders at once, two worker processes…");
      const sampler2 = rssSampler(() => [worker1.child.pid as number, worker2.child.pid as number]);
      started = Date.now();
      await Promise.all([renderOnce(call, comp.id, "standard"), renderOnce(call, comp.id, "standard")]);
      const twoWorkers = (Date.now() - started) / 1000;
      const peakTwo = (await sampler2.stop()).peak;
      scaling = {
        twoRendersOneWorkerSec: oneWorker,
        twoRendersTwoWorkersSec: twoWorkers,
        speedup: oneWorker / twoWorkers,
        peakRssTwoWorkersMiB: peakTwo / 2 ** 20,
      };
      log(`scaling: one worker ${oneWorker.toFixed(1)} s, two workers ${twoWorkers.toFixed(1)} s`);
    }

    const summary = {
      composition: { seconds: SECONDS, width: 1920, height: 1080, fps: 30 },
      workerNodeOptions: process.env.BENCH_WORKER_NODE_OPTIONS ?? null,
      cpus: availableParallelism(),
      rounds: ROUNDS,
      floorEncodeSec: floorSec,
      floorRangeSec: range(floors),
      standard: {
        queueToDoneSec: median(renders),
        rangeSec: range(renders),
        startToDoneSec: standard.startToDoneSec,
      },
      ratioToFloor: median(renders) / floorSec,
      ratioPerRound: renders.map((r, i) => r / (floors[i] ?? 1)),
      cpuSec: { floor: floorCpu, render: renderCpu },
      cpuRatioPerRound: renderCpu.map((r, i) => r / (floorCpu[i] ?? 1)),
      benchOwnCpuSec: benchCpu,
      workerNodeCpuSec: workerNodeCpu,
      draft: { queueToDoneSec: draft.queueToDoneSec },
      peakWorkerRssMiB: peakRss / 2 ** 20,
      peakFloorRssMiB: floorPeakRss / 2 ** 20,
      peakWorkerNodeRssMiB: peakNode / 2 ** 20,
      workerStepsMs: steps,
      output: { probe: outProbe, size: standard.render.output?.size, warnings: standard.render.warnings },
      scaling,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await Promise.all(procs.map(stopProcess));
    await database.drop();
    await cleanup();
  }
}

await main();
