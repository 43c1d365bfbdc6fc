/**
 * Latency of the pure analysis functions on a deterministic three-hour transcript (about
 * 28,000 words in 3,000 segments). One command:
 * `node bench/analysis/latency.ts [--runs N] [--text synthetic|prose]` (`prose`: public-domain
 * sentences, see `buildLongTranscript` in `eval-data.ts`; default: the synthetic talk).
 * Prints wall-clock p50/p95/max and this thread's CPU time p50/p95 in milliseconds after
 * ten warm-up runs (model load and JIT are excluded on purpose: a server pays them once per
 * process). On a shared machine the CPU figures show the cost without waiting for a core, and
 * the machine reference printed before and after (see `machine-reference.ts`) how fast the
 * machine was meanwhile.
 */
import { loadavg } from "node:os";
import { detectChapters, suggestBroll, summarizeClip } from "../../src/domain/analysis/index.ts";
import { buildLongTranscript, loadSources } from "./eval-data.ts";
import { machineConditionLines, machineSnapshot } from "./machine-reference.ts";
import { generateTranscript } from "./synthetic-transcript.ts";

const TARGET_MS = { chapters: 150, summary: 100, broll: 50 } as const;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

/** CPU time of this thread in ms: unlike wall time, it excludes waiting for a core. */
function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

function measure(name: keyof typeof TARGET_MS, runs: number, fn: () => unknown): void {
  for (let i = 0; i < 10; i++) fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = threadCpuMs();
    const t0 = performance.now();
    fn();
    wall.push(performance.now() - t0);
    cpu.push(threadCpuMs() - c0);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const p95 = percentile(wall, 95);
  const verdict = p95 < TARGET_MS[name] ? "ok" : "OVER";
  const f = (x: number) => x.toFixed(1);
  console.log(
    `| ${name} | ${f(percentile(wall, 50))} | ${f(p95)} | ${f(wall[wall.length - 1] as number)} | ` +
      `${f(percentile(cpu, 50))} | ${f(percentile(cpu, 95))} | < ${TARGET_MS[name]} | ${verdict} |`,
  );
}

function main(): void {
  const arg = process.argv.indexOf("--runs");
  const runs = arg > 0 ? Number(process.argv[arg + 1]) : 40;
  const textArg = process.argv.indexOf("--text");
  const text = textArg > 0 ? process.argv[textArg + 1] : "synthetic";
  if (text !== "synthetic" && text !== "prose") throw new Error("--text is synthetic or prose");
  const { segments, duration } =
    text === "prose"
      ? buildLongTranscript(loadSources())
      : generateTranscript({ seed: 42, words: 28_000, segments: 3_000 });
  const words = segments.reduce((n, s) => n + s.text.split(" ").length, 0);
  console.log(
    `transcript (${text}): ${segments.length} segments, ${words} words, ${(duration / 3600).toFixed(2)} h; ${runs} runs each`,
  );
  const before = machineSnapshot();
  console.log(
    "| function | wall p50 ms | wall p95 ms | wall max ms | CPU p50 ms | CPU p95 ms | target p95 | |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  measure("chapters", runs, () => detectChapters({ transcript: segments, duration }));
  measure("summary", runs, () => summarizeClip({ transcript: segments }));
  measure("broll", runs, () => suggestBroll({ subtitles: segments }));
  for (const line of machineConditionLines(before)) console.log(line);
  // Other processes on a small machine inflate wall-clock figures; report the load with them.
  console.log(
    `load average (1, 5, 15 min): ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
}

main();
