/**
 * Analysis latency through HTTP: the three analysis endpoints on a 3-hour transcript (about
 * 28,000 words in 3,000 segments), against a real API process. Prints p50/p95 per endpoint,
 * the target, and the API process's CPU time per request (all its threads, from
 * /proc/<pid>/stat: unlike wall-clock time, it does not grow when other processes compete
 * for the cores), then the CPU steal during the runs (from /proc/stat: the share of time the
 * hypervisor ran other guests), the machine reference before and after the runs
 * (`machine-reference.ts`: how fast the machine was) and the load average.
 *
 *   node bench/analysis/http-latency.ts [--runs 40] [--rounds 1] [--text synthetic|prose] [--only chapters|summary|broll|floor]
 *
 * `--rounds R` repeats the endpoints in turn R times (`runs` requests each per round; the
 * warm-up only before the first) and prints percentiles over all R × `runs` requests plus each
 * round's p95 and machine reference: on a VM whose speed drifts within minutes, interleaving
 * spreads every endpoint's samples over the same machine phases, and a p95 over hundreds of
 * requests is not set by two slow ones as it is with 40.
 * With `DATABASE_URL` set, the API process uses that PostgreSQL server instead of PGlite (the
 * bench creates its own user there, with a fresh email each run).
 *
 * `--text synthetic` (default) is the generated talk of `synthetic-transcript.ts` (seed 42);
 * `--text prose` joins public-domain sentences (Moby-Dick, State of the Union; see
 * `eval-data.ts`, fetched on first use), whose much larger vocabulary costs more.
 * The `floor` row sends the B-roll body with an invalid option: the cost of moving, parsing and
 * validating 350 KB of JSON with no analysis.
 * `API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` passes flags to the API process,
 * `API_STDOUT=1` shows its output (e.g. with `--trace-gc`), `BENCH_TRACE=1` prints every request's time.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cliApiKey, startApi, stopProcess } from "../processes.ts";
import { buildLongTranscript, loadSources } from "./eval-data.ts";
import * as machine from "./machine-reference.ts";
import { generateTranscript } from "./synthetic-transcript.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "40" },
    rounds: { type: "string", default: "1" },
    text: { type: "string", default: "synthetic" },
    only: { type: "string" },
  },
});
const runs = Number(values.runs);
const rounds = Number(values.rounds);
if (!(Number.isInteger(runs) && runs > 0 && Number.isInteger(rounds) && rounds > 0))
  throw new Error("--runs and --rounds are positive integers");
if (values.text !== "synthetic" && values.text !== "prose") throw new Error("--text is synthetic or prose");
const dataDir = mkdtempSync(path.join(tmpdir(), "cutroom-analysis-bench-"));
const key = cliApiKey({ DATA_DIR: dataDir }, "admin", "read");
const api = await startApi(
  { DATA_DIR: dataDir },
  {
    inheritEnv: true,
    nodeArgs: process.env.API_NODE_ARGS?.split(" ").filter(Boolean) ?? [],
    echo: Boolean(process.env.API_STDOUT),
  },
);
const { base } = api;
const server = api.proc.child;

/** CPU time (user + system, all threads) of the API process in ms; NaN where /proc is missing. */
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;
  } catch {
    return 100;
  }
})();
function serverCpuMs(): number {
  try {
    // Fields after the command name (which may contain spaces) start at the last ")".
    const stat = readFileSync(`/proc/${server.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return Number.NaN;
  }
}

const { segments, duration } =
  values.text === "prose" ? buildLongTranscript(loadSources()) : generateTranscript();
const words = segments.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
interface Target {
  key: string;
  name: string;
  url: string;
  body: unknown;
  /** p95 target in ms; none for the floor row. */
  targetMs?: number;
  /** Status every answer must have. */
  status: number;
}
const allTargets: Target[] = [
  {
    key: "chapters",
    name: "chapters",
    url: "/api/v1/chapters/detect",
    body: { transcript: segments, duration },
    targetMs: 150,
    status: 200,
  },
  {
    key: "summary",
    name: "summary",
    url: "/api/v1/clips/summarize",
    body: { transcript: segments },
    targetMs: 100,
    status: 200,
  },
  {
    key: "broll",
    name: "B-roll",
    url: "/api/v1/broll/suggest",
    body: { subtitles: segments },
    targetMs: 50,
    status: 200,
  },
  // The same body, refused by the first option check after parsing and schema validation:
  // what moving, parsing and validating the transcript costs without any analysis.
  {
    key: "floor",
    name: "floor (same body, 400)",
    url: "/api/v1/broll/suggest",
    body: { subtitles: segments, windowSec: 61 },
    status: 400,
  },
];
const targets = allTargets.filter((t) => values.only === undefined || t.key === values.only);
if (targets.length === 0) throw new Error("--only is chapters, summary, broll or floor");
/** Requests per endpoint before measuring: they load the NLP model and let V8 optimise the hot code. */
const WARMUP = 10;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

process.stdout.write(
  `transcript (${values.text}): ${segments.length} segments, ${words} words, ${(duration / 3600).toFixed(2)} h; ${runs} runs each${rounds > 1 ? ` × ${rounds} rounds` : ""}\n`,
);

/** Sends `t.body` `count` times; returns each request's time in ms. */
async function measure(t: Target, payload: string, count: number, warmup: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count + warmup; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${t.url}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: payload,
    });
    await res.arrayBuffer();
    if (res.status !== t.status) throw new Error(`${t.url}: ${res.status}`);
    if (i >= warmup) times.push(performance.now() - t0);
    if (process.env.BENCH_TRACE)
      process.stderr.write(`${t.key} ${i} ${(performance.now() - t0).toFixed(1)}\n`);
  }
  return times;
}

const before = machine.machineSnapshot();
try {
  const payloads = targets.map((t) => JSON.stringify(t.body));
  const times = targets.map((): number[] => []);
  const cpuMs = targets.map(() => 0);
  const roundLines: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const p95s: string[] = [];
    const roundCpu = machine.readCpuTimes();
    for (const [k, t] of targets.entries()) {
      const warmup = r === 0 ? WARMUP : 0;
      if (warmup > 0) await measure(t, payloads[k] as string, 0, warmup);
      const cpu0 = serverCpuMs();
      const got = await measure(t, payloads[k] as string, runs, 0);
      cpuMs[k] = (cpuMs[k] as number) + serverCpuMs() - cpu0;
      (times[k] as number[]).push(...got);
      p95s.push(`${t.key} ${pct(got, 0.95).toFixed(1)}`);
    }
    if (rounds > 1)
      roundLines.push(
        `round ${r + 1}: p95 ${p95s.join(", ")}; CPU steal ${machine.formatSteal(machine.stealPercentSince(roundCpu))}; machine reference ${machine.machineReferenceMs().toFixed(1)} ms`,
      );
  }
  process.stdout.write(
    "| endpoint | p50 ms | p95 ms | target p95 ms | API CPU ms/request | body KB |\n|---|---:|---:|---:|---:|---:|\n",
  );
  for (const [k, t] of targets.entries()) {
    const all = times[k] as number[];
    const cpu = (cpuMs[k] as number) / all.length;
    process.stdout.write(
      `| ${t.name} | ${pct(all, 0.5).toFixed(1)} | ${pct(all, 0.95).toFixed(1)} | ${t.targetMs ?? "—"} | ${Number.isNaN(cpu) ? "n/a" : cpu.toFixed(1)} | ${((payloads[k] as string).length / 1024).toFixed(0)} |\n`,
    );
  }
  for (const line of roundLines) process.stdout.write(`${line}\n`);
  for (const line of machine.machineConditionLines(before)) process.stdout.write(`${line}\n`);
  process.stdout.write(
    `load average (1, 5, 15 min): ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}\n`,
  );
} finally {
  await stopProcess(api.proc);
  rmSync(dataDir, { recursive: true, force: true });
}
