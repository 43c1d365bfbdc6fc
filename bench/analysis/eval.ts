/**
 * Chapter segmentation quality: Pk and WindowDiff of our detector and three baselines
 * (one chapter, uniform split with the true number of sections, TextTiling) on the
 * evaluation set of `eval-data.ts`. One command: `node bench/analysis/eval.ts [--docs N]`.
 * Metrics are computed over subtitle segments (the units), averaged over documents.
 */
import { detectChapters } from "../../src/domain/analysis/index.ts";
import { pk, windowDiff } from "../../src/domain/analysis/segmentation-metrics.ts";
import { textTiling } from "../../src/domain/analysis/texttiling.ts";
import { buildTimedDocument } from "../../src/domain/analysis/timed-document.ts";
import { buildEvalSet, type EvalDoc, loadSources } from "./eval-data.ts";

type Method = (doc: EvalDoc) => number[];

/** Index of the segment whose start is nearest to `time`. */
function segmentAt(doc: EvalDoc, time: number): number {
  let best = 0;
  let bestDist = Number.POSITIVE_INFINITY;
  doc.segments.forEach((s, i) => {
    const d = Math.abs(s.start - time);
    if (d < bestDist) {
      bestDist = d;
      best = i;
    }
  });
  return best;
}

const toBoundaries = (doc: EvalDoc, times: number[]) => [
  ...new Set(times.map((t) => segmentAt(doc, t)).filter((i) => i > 0)),
];

const METHODS: Record<string, Method> = {
  "one chapter": () => [],
  "uniform (true count)": (doc) => {
    const k = doc.boundaries.length + 1;
    return toBoundaries(
      doc,
      Array.from({ length: k - 1 }, (_, j) => ((j + 1) * doc.duration) / k),
    );
  },
  "TextTiling (Hearst 1997)": (doc) => {
    const td = buildTimedDocument(doc.segments, doc.duration);
    const breaks = td.units.slice(1).map((u) => u.tokenStart);
    const chosen = textTiling(td.parsed, td.terms, breaks);
    const unitByToken = new Map(td.units.map((u) => [u.tokenStart, u]));
    return toBoundaries(
      doc,
      chosen.map((tok) => unitByToken.get(tok)?.start ?? 0),
    );
  },
  "ours (detectChapters)": (doc) => {
    const { chapters } = detectChapters({ transcript: doc.segments, duration: doc.duration });
    return toBoundaries(
      doc,
      chapters.slice(1).map((c) => c.start),
    );
  },
};

function evaluate(docs: EvalDoc[]): Array<{ method: string; pk: number; wd: number; segments: number }> {
  return Object.entries(METHODS).map(([method, run]) => {
    let sumPk = 0;
    let sumWd = 0;
    let sumSeg = 0;
    for (const doc of docs) {
      const hyp = run(doc);
      const n = doc.segments.length;
      sumPk += pk(n, doc.boundaries, hyp);
      sumWd += windowDiff(n, doc.boundaries, hyp);
      sumSeg += hyp.length + 1;
    }
    return { method, pk: sumPk / docs.length, wd: sumWd / docs.length, segments: sumSeg / docs.length };
  });
}

function printTable(title: string, docs: EvalDoc[]): void {
  const rows = evaluate(docs);
  const refSegments = docs.reduce((a, d) => a + d.boundaries.length + 1, 0) / docs.length;
  const meanMinutes = docs.reduce((a, d) => a + d.duration, 0) / docs.length / 60;
  const meanSegments = docs.reduce((a, d) => a + d.segments.length, 0) / docs.length;
  const meanWords =
    docs.reduce((a, d) => a + d.segments.reduce((w, s) => w + s.text.split(" ").length, 0), 0) / docs.length;
  console.log(
    `\n${title}: ${docs.length} documents; means: ${meanMinutes.toFixed(1)} min, ${meanWords.toFixed(0)} words, ` +
      `${meanSegments.toFixed(0)} subtitle segments, ${refSegments.toFixed(2)} sections`,
  );
  console.log("| method | Pk | WindowDiff | chapters/doc |");
  console.log("|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.method} | ${r.pk.toFixed(3)} | ${r.wd.toFixed(3)} | ${r.segments.toFixed(2)} |`);
  }
  const ours = rows.find((r) => r.method.startsWith("ours"));
  const tt = rows.find((r) => r.method.startsWith("TextTiling"));
  if (ours && tt) {
    console.log(
      `ours vs TextTiling: Pk ${(100 * (1 - ours.pk / tt.pk)).toFixed(1)}% lower, WindowDiff ${(100 * (1 - ours.wd / tt.wd)).toFixed(1)}% lower`,
    );
  }
}

function main(): void {
  const arg = process.argv.indexOf("--docs");
  const count = arg > 0 ? Number(process.argv[arg + 1]) : 100;
  const sources = loadSources();
  console.log(`sources: ${sources.length} documents (Moby-Dick chapters + State of the Union addresses)`);
  printTable(
    "A. text only (pauses independent of boundaries, one speaker)",
    buildEvalSet(sources, { docs: count, seed: 2024, timingCues: false }),
  );
  printTable(
    "B. with timing cues (pauses/speaker changes at most boundaries, some elsewhere)",
    buildEvalSet(sources, { docs: count, seed: 7, timingCues: true }),
  );
  printTable(
    "C. long recordings (60-90 sections, about 2-3 hours, with timing cues)",
    buildEvalSet(sources, {
      docs: Math.max(1, Math.round(count / 10)),
      seed: 99,
      timingCues: true,
      sections: [60, 90],
    }),
  );
}

main();
