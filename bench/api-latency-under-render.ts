/**
 * `GET /api/v1/me` latency while a 1080p render runs beside the API, with and without the lower
 * priority of media tools (MEDIA_NICE), in one run:
 *
 *   node bench/api-latency-under-render.ts            (BENCH_SECONDS=30: the composition's length)
 *
 * The embedded default: one API process on PGlite with the worker in process
 * (WORKER_IN_PROCESS=true, WORKER_CONCURRENCY=1), on a fresh DATA_DIR. The reference composition
 * (bench/render/reference-composition.ts: 1080p30, four clips with transitions, logo, title,
 * captions, voice and music) is uploaded once and its preview proxies made before anything is timed.
 * Phases, each with one client calling `/me` in a loop (one connection, 20 ms apart):
 *   1. idle, 10 s, on an API started with MEDIA_NICE=0;
 *   2. during a render of the composition on that API (media tools at the API's priority);
 *   3. during the same render on the API restarted on the same data with MEDIA_NICE=10 (default).
 * Prints p50/p90/p99/max of `/me` and the API's event-loop delay p99 (its `/metrics`, which
 * resets the figure at each scrape) per phase, and the render's wall time.
 */
import { loadavg } from "node:os";
import path from "node:path";
import { tempDir } from "../test/fixtures/render/media.ts";
import { type Api, apiClient, startApi, stopProcess, uploadAll, waitForPreviewProxies } from "./processes.ts";
import { makeReferenceInputs, referenceComposition } from "./render/reference-composition.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const IDLE_MS = 10_000;
const GAP_MS = 20;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const loads = () => loadavg().map((l) => Math.round(l * 10) / 10);

/** The `q` quantile of `xs` (nearest rank), ms rounded to 0.1. */
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return Math.round(v * 10) / 10;
}

/** Calls `/me` every {@link GAP_MS} until `stop` resolves; returns each call's milliseconds. */
async function sampleMe(base: string, key: string, stop: Promise<unknown>): Promise<number[]> {
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  const times: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`/me answered ${res.status}`);
    times.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  return times;
}

/** The API's event-loop delay p99 since the previous scrape, ms (prom-client resets it per scrape). */
async function eventLoopP99(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
  return m ? Math.round(Number(m[1]) * 10_000) / 10 : Number.NaN;
}

/** Renders composition `id` and waits until it has ended. @throws unless it succeeded. */
async function render(call: ReturnType<typeof apiClient>, id: string): Promise<number> {
  const started = performance.now();
  // reuse: false — every phase renders the whole composition, never the render cache's copy.
  let r = await call<{ id: string; status: string }>("POST", "/api/render", {
    compositionId: id,
    output: { reuse: false },
  });
  while (!["succeeded", "failed", "cancelled"].includes(r.status)) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    r = await call<{ id: string; status: string }>("GET", `/api/render/${r.id}`);
  }
  if (r.status !== "succeeded") throw new Error(`the render ${r.status}`);
  return Math.round((performance.now() - started) / 100) / 10;
}

interface Phase {
  phase: string;
  calls: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  eventLoopP99Ms: number;
  renderSec?: number;
  load: number[];
}

/** Samples `/me` while `work` runs (or for {@link IDLE_MS} without work). */
async function phase(name: string, api: Api, key: string, work?: () => Promise<number>): Promise<Phase> {
  await eventLoopP99(api.base); // resets the API's event-loop figure
  log(`${name}…`);
  const running = work ? work() : new Promise<undefined>((r) => setTimeout(() => r(undefined), IDLE_MS));
  const [times, renderSec] = await Promise.all([sampleMe(api.base, key, running), running]);
  return {
    phase: name,
    calls: times.length,
    p50: quantile(times, 0.5),
    p90: quantile(times, 0.9),
    p99: quantile(times, 0.99),
    max: quantile(times, 1),
    eventLoopP99Ms: await eventLoopP99(api.base),
    ...(renderSec !== undefined ? { renderSec } : {}),
    load: loads(),
  };
}

async function main(): Promise<void> {
  const loadBefore = loads();
  const { dir, cleanup } = await tempDir("cutroom-latency-");
  const env = { DATA_DIR: path.join(dir, "data"), WORKER_CONCURRENCY: "1", METRICS_ENABLED: "true" };
  const options = { workerInProcess: true, timeoutMs: 180_000 };
  let api: Api | undefined;
  try {
    api = await startApi({ ...env, MEDIA_NICE: "0" }, { ...options, ownerKey: true });
    const key = api.key as string;
    log("generating inputs…");
    const inputs = await makeReferenceInputs(dir, SECONDS);
    let call = apiClient(api.base, key);
    const ids = await uploadAll(call, inputs);
    const comp = await call<{ id: string }>("POST", "/api/compositions", referenceComposition(ids, SECONDS));
    await waitForPreviewProxies(call, ids);

    const phases: Phase[] = [];
    phases.push(await phase("idle", api, key));
    phases.push(await phase("render, MEDIA_NICE=0", api, key, () => render(call, comp.id)));
    await stopProcess(api.proc);
    api = await startApi({ ...env, MEDIA_NICE: "10" }, options);
    call = apiClient(api.base, key);
    phases.push(await phase("render, MEDIA_NICE=10", api, key, () => render(call, comp.id)));

    console.log(`\n/api/v1/me during a ${SECONDS} s 1080p30 render (embedded PGlite, worker in process)\n`);
    console.log("| phase | calls | p50 ms | p90 ms | p99 ms | max ms | event loop p99 ms | render s |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const p of phases)
      console.log(
        `| ${p.phase} | ${p.calls} | ${p.p50} | ${p.p90} | ${p.p99} | ${p.max} | ${p.eventLoopP99Ms} | ${p.renderSec ?? "—"} |`,
      );
    console.log(`\n${JSON.stringify({ seconds: SECONDS, loadBefore, phases })}`);
  } finally {
    if (api) await stopProcess(api.proc);
    await cleanup();
  }
}

await main();
