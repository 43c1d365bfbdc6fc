/**
 * A fixed JavaScript workload that does not depend on Cutroom's code, timed to tell how fast
 * the machine is at the moment: on the shared 2-core VM the same code's latency moves by ±40 %
 * from one hour to the next (and more between sessions), so the analysis benchmarks print this
 * figure before and after their runs, and results from different times can be compared by it.
 *
 * The work resembles text analysis: split a generated 28,000-word talk into words, lower-case
 * and count them in a `Map`, look 60,000 fresh strings up in a 100,000-key dictionary-mode
 * object (like wink-nlp's lexicon), sort the counts, and round-trip the transcript through JSON.
 *
 * The benches also print the CPU steal during their runs (`stealPercentSince`): the share of
 * the machine's CPU time the hypervisor gave to other guests. It explains most slow phases
 * (e.g. 22 % steal during a run whose p95 latencies were 1.5× those of a run without).
 */
import { readFileSync } from "node:fs";
import { generateTranscript } from "./synthetic-transcript.ts";

const transcript = generateTranscript();
const body = JSON.stringify(transcript);
const LEXICON_SIZE = 100_000;
const lexicon: Record<string, number> = Object.create(null);
for (let i = 0; i < LEXICON_SIZE; i++) lexicon[`w${((i * 7919) % LEXICON_SIZE).toString(36)}`] = i;

function workload(): number {
  const counts = new Map<string, number>();
  for (const s of (JSON.parse(body) as typeof transcript).segments) {
    for (const w of s.text.split(/\s+/)) {
      const k = w.toLowerCase();
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  let found = 0;
  for (let i = 0; i < 60_000; i++)
    if (lexicon[`w${((i * 104_729) % 150_000).toString(36)}`] !== undefined) found++;
  counts.set("", found);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return sorted.length + JSON.stringify(sorted).length;
}

/**
 * Median wall time in ms of 9 runs of the reference workload, after 3 warm-ups (18–100 ms on
 * the project's VM on 2026-11-21; lower is faster).
 */
export function machineReferenceMs(): number {
  for (let i = 0; i < 3; i++) workload();
  const times: number[] = [];
  for (let i = 0; i < 9; i++) {
    const t0 = performance.now();
    workload();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[4] as number;
}

/** Cumulative CPU times of the whole machine from `/proc/stat`, in clock ticks. */
export interface CpuTimes {
  /** Time the hypervisor ran other guests while this VM wanted a CPU (`steal`). */
  steal: number;
  /** All fields summed (user, nice, system, idle, iowait, irq, softirq, steal). */
  total: number;
}

/** Reads the machine's CPU times; undefined where `/proc/stat` is missing (not Linux). */
export function readCpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((f) => !Number.isFinite(f))) return undefined;
    return { steal: fields[7] as number, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/**
 * Share of the machine's CPU time stolen by the hypervisor since `before`, in percent (0–100),
 * or undefined without `/proc/stat`. On a shared VM this is the other guests' load: wall-clock
 * latencies measured while it is above a few percent include waits no code change removes.
 */
export function stealPercentSince(before: CpuTimes | undefined): number | undefined {
  const now = readCpuTimes();
  if (before === undefined || now === undefined || now.total <= before.total) return undefined;
  return (100 * (now.steal - before.steal)) / (now.total - before.total);
}

/** "x.y %" or "n/a". */
export function formatSteal(percent: number | undefined): string {
  return percent === undefined ? "n/a" : `${percent.toFixed(1)} %`;
}

/** How fast the machine was when a run began: the reference time (ms) and the CPU times. */
export interface MachineSnapshot {
  referenceMs: number;
  cpu: CpuTimes | undefined;
}

/** Takes a {@link MachineSnapshot} now (about half a second: the reference workload runs). */
export function machineSnapshot(): MachineSnapshot {
  return { referenceMs: machineReferenceMs(), cpu: readCpuTimes() };
}

/**
 * The lines the benches print after their runs: the CPU steal since `before` and the machine
 * reference before and now.
 */
export function machineConditionLines(before: MachineSnapshot): string[] {
  const steal = formatSteal(stealPercentSince(before.cpu));
  return [
    `CPU steal during the runs (time the hypervisor gave this VM's CPUs to other guests): ${steal}`,
    `machine reference (machine-reference.ts, lower is faster): ${before.referenceMs.toFixed(1)} ms before, ${machineReferenceMs().toFixed(1)} ms after`,
  ];
}
