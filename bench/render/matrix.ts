/**
 * The render matrix at scale: the covering design (every transition type × ordered pair of
 * visual kinds × canvas rate) and `--runs` random compositions from the matrix generator,
 * each rendered tiny at `draft` and checked against the matrix invariants (frame count,
 * timestamps, audio length, A/V sync, no black or frozen frames at cuts, solid colours).
 * Prints the mean seconds per tiny render, so a slow path shows up, and every violation;
 * failing compositions are written to tmp/render-matrix/ (shrunk with `--shrink`).
 *
 *   node bench/render/matrix.ts [--runs 500] [--seed 20261125] [--no-covering] [--shrink]
 *                               [--format mp4|webm|gif|mp3|wav|jpg|png|all]
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import fc from "fast-check";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import { validateComposition } from "../../src/domain/composition/validate.ts";
import { OUTPUT_FORMATS, type OutputFormat } from "../../src/domain/render/types.ts";
import {
  coveringCompositions,
  matrixSeed,
  randomComposition,
} from "../../test/fixtures/render/arbitraries.ts";
import { renderAndCheck } from "../../test/fixtures/render/matrix-check.ts";
import { matrixLookupUpload, matrixMedia } from "../../test/fixtures/render/matrix-media.ts";
import { shrinkComposition } from "../../test/fixtures/render/shrink.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "100" },
    seed: { type: "string" },
    "no-covering": { type: "boolean", default: false },
    shrink: { type: "boolean", default: false },
    format: { type: "string", default: "mp4" },
  },
});
const runs = Number(values.runs);
const seed = values.seed !== undefined ? Number(values.seed) : matrixSeed();
const formats: OutputFormat[] =
  values.format === "all" ? [...OUTPUT_FORMATS] : [values.format as OutputFormat];

const media = await matrixMedia();
const lookupUpload = matrixLookupUpload(media);
const dir = await mkdtemp(join(tmpdir(), "cutroom-render-matrix-"));
const out = join("tmp", "render-matrix");
await mkdir(out, { recursive: true });

const cases: { name: string; composition: Timeline }[] = [];
if (!values["no-covering"]) {
  coveringCompositions(media.sources, seed).forEach((c, i) => {
    cases.push({ name: `covering-${i} (${c.spec.fps} fps)`, composition: c.composition });
  });
}
fc.sample(randomComposition(media.sources), { seed, numRuns: runs }).forEach((composition, i) => {
  cases.push({ name: `random-${i}`, composition });
});

const seconds: number[] = [];
const counts: Record<string, number> = {};
const failures: { name: string; format: OutputFormat; problems: string[]; composition: Timeline }[] = [];
const started = performance.now();
for (const [i, c] of cases.entries()) {
  const format = formats[i % formats.length] as OutputFormat;
  await validateComposition(
    { name: c.name, ...c.composition },
    { lookupUpload, lookupTranscription: async () => new Map() },
  );
  const outcome = await renderAndCheck(c.composition, media.assets, dir, {
    sources: media.sources,
    counts,
    output: { format },
  });
  if (outcome.seconds > 0) seconds.push(outcome.seconds);
  if (outcome.problems.length > 0) {
    failures.push({ name: c.name, format, problems: outcome.problems, composition: c.composition });
    console.log(`✗ ${c.name} ${format}: ${outcome.problems.slice(0, 3).join("; ")}`);
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  if ((i + 1) % 25 === 0) console.log(`… ${i + 1}/${cases.length}`);
}
const wall = (performance.now() - started) / 1000;
seconds.sort((a, b) => a - b);
const mean = seconds.reduce((a, b) => a + b, 0) / Math.max(1, seconds.length);
const at = (q: number) => seconds[Math.min(seconds.length - 1, Math.floor(q * seconds.length))] ?? 0;
console.log(
  `\n${cases.length} compositions (seed ${seed}, ${formats.join("/")}), ${failures.length} failing; ` +
    `ffmpeg per tiny render: mean ${mean.toFixed(2)} s, median ${at(0.5).toFixed(2)} s, p95 ${at(0.95).toFixed(2)} s, ` +
    `max ${at(1).toFixed(2)} s; wall ${wall.toFixed(0)} s (render + decode + checks)`,
);

console.log(
  `checks made: ${Object.entries(counts)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ")} (plus frame count, timestamps and audio length on every output)`,
);

for (const [k, f] of failures.entries()) {
  let composition = f.composition;
  if (values.shrink) {
    const pattern = f.problems[0]?.replace(/[0-9.]+/g, "").slice(0, 30) ?? "";
    composition = await shrinkComposition(composition, async (candidate) => {
      try {
        await validateComposition(
          { name: f.name, ...candidate },
          { lookupUpload, lookupTranscription: async () => new Map() },
        );
      } catch {
        return false;
      }
      const again = await renderAndCheck(candidate, media.assets, dir, {
        sources: media.sources,
        output: { format: f.format },
      });
      return again.problems.some((p) => p.replace(/[0-9.]+/g, "").startsWith(pattern));
    });
  }
  const file = join(out, `failure-${k}.json`);
  await writeFile(
    file,
    JSON.stringify({ name: f.name, format: f.format, problems: f.problems, composition }, null, 1),
  );
  console.log(`  ${f.name}: ${file}`);
}
await rm(dir, { recursive: true, force: true });
process.exitCode = failures.length > 0 ? 1 : 0;
