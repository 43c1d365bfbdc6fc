/**
 * A fixed JavaScript workload that does not depend on Cutroom's code, timed to tell how fast
 * the machine is at the moment: on the shared 2-core VM the same code's latency moves by ±40 %
 * from one hour to the next (and more between sessions), so the analysis benchmarks print this
 * figure before and after their runs, and results from different times can be compared by it.
 *
 * The work resembles text analysis: split a generated 28,000-word talk into words, lower-case
 * and count them in a `Map`, look 60,000 fresh strings up in a 100,000-key dictionary-mode
 * object (like wink-nlp's lexicon), sort the counts, and round-trip the transcript through JSON.
 */
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
 * Median wall time in ms of 9 runs of the reference workload, after 3 warm-ups (34–100 ms on
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

/** The line the benches print: `beforeMs` (taken before the runs) and a reading taken now. */
export function machineReferenceLine(beforeMs: number): string {
  return `machine reference (machine-reference.ts, lower is faster): ${beforeMs.toFixed(1)} ms before, ${machineReferenceMs().toFixed(1)} ms after`;
}
