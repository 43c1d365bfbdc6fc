/**
 * Split-render seams measured against a lossless master, with ffmpeg alone (no API, no queue):
 *
 *   node bench/render/split-seams.ts [--seconds 60] [--segment-sec 10]
 *
 * Comparing a split render with an unsplit one compares two lossy encodes with each other, which
 * says little about the seams. Here the reference composition (`reference-composition.ts`:
 * 1920x1080 at 30 fps, camera-like clips with transitions, a logo, a title, captions) is planned
 * exactly as a worker plans it and rendered three times:
 * - `lossless`: in one piece at `quality: "lossless"` (the master: the graph's own frames);
 * - `unsplit`: in one piece at `standard`;
 * - `split`: at `standard` in segments of `--segment-sec` (boundaries at the sources' keyframes,
 *   as workers place them), each part its own ffmpeg run, joined by stream copy.
 * Each frame of `unsplit` and `split` is measured against the master (PSNR, dB, ffmpeg's `psnr`
 * filter); printed: the mean PSNR over the ±5 frames around every seam (the 5 frames before each
 * segment start and the 5 from it) for both, their difference (split − unsplit; target: ≥ −0.5
 * dB), the mean and minimum over every frame, the video bytes of both (the split's parts carry
 * x264 zones at their ends, `partEdgeZones`) and the load average.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import { buildRenderPlan } from "../../src/domain/render/plan.ts";
import { buildSplitRenderPlan, renderFrameWindow } from "../../src/domain/render/segments.ts";
import type { RenderQuality } from "../../src/domain/render/types.ts";
import { readSourceKeyframes } from "../../src/domain/render-jobs/split-render.ts";
import { writePlanFiles } from "../../src/domain/render-jobs/write-plan-files.ts";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { psnrPerFrame } from "../../test/fixtures/render/seams.ts";
import { loadAverage, numberFlag } from "../cli.ts";
import { makeReferenceInputs, referenceAssets, referenceComposition } from "./reference-composition.ts";

const run = promisify(execFile);
const SECONDS = numberFlag("--seconds", 60);
const SEGMENT_SEC = numberFlag("--segment-sec", 10);
/** Frames on each side of a seam that are measured. */
const AROUND = 5;
/** A worker's decoder and filter threads (half the cores, as `render-pipeline.ts` sets). */
const THREADS = Math.max(1, Math.floor(availableParallelism() / 2));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const load = loadAverage;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs a plan's ffmpeg arguments in `cwd` (without its progress output); returns wall seconds. */
async function runPlanArgs(planArgs: string[], cwd: string): Promise<number> {
  const at = planArgs.indexOf("-progress");
  const argv = at >= 0 ? [...planArgs.slice(0, at), ...planArgs.slice(at + 2)] : planArgs;
  const started = performance.now();
  await run("ffmpeg", argv, { cwd, maxBuffer: 64 * 1024 * 1024 });
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const { dir, cleanup } = await tempDir("cutroom-split-seams-");
  try {
    log(`generating inputs (${SECONDS} s composition)…`);
    const { assets, ids } = await referenceAssets(await makeReferenceInputs(dir, SECONDS));
    const composition = referenceComposition(ids, SECONDS) as unknown as Timeline;
    const base = (quality: RenderQuality) => ({
      composition,
      assets,
      output: { format: "mp4", quality } as const,
      decoderThreads: THREADS,
      filterThreads: THREADS,
    });
    const wall: Record<string, number> = {};
    const loadBefore = load();
    for (const quality of ["lossless", "standard"] as const) {
      const cwd = path.join(dir, `whole-${quality}`);
      const plan = buildRenderPlan({ ...base(quality), outputPath: "out.mp4" });
      await writePlanFiles(plan, cwd);
      log(`unsplit ${quality} (load ${load()})…`);
      wall[`unsplit ${quality}`] = await runPlanArgs(plan.args, cwd);
    }
    const split = buildSplitRenderPlan({
      ...base("standard"),
      segmentSec: SEGMENT_SEC,
      outputPath: "joined.mp4",
      keyframes: await readSourceKeyframes(composition, assets),
    });
    const splitDir = path.join(dir, "split");
    log(`split standard, ${split.segments.length} segments (load ${load()})…`);
    wall["split standard"] = 0;
    for (const part of [...split.segments, split.audio]) {
      await writePlanFiles(part.plan, splitDir);
      wall["split standard"] += await runPlanArgs(part.plan.args, splitDir);
    }
    for (const f of split.join.files) await writeFile(path.join(splitDir, f.path), f.content, "utf8");
    wall["split standard"] += await runPlanArgs(split.join.args, splitDir);

    log(`measuring against the lossless render (load ${load()})…`);
    const master = path.join(dir, "whole-lossless", "out.mp4");
    const unsplit = await psnrPerFrame(path.join(dir, "whole-standard", "out.mp4"), master);
    const splitPsnr = await psnrPerFrame(path.join(splitDir, "joined.mp4"), master);
    if (unsplit.length !== splitPsnr.length) {
      throw new Error(`frame counts differ: unsplit ${unsplit.length}, split ${splitPsnr.length}`);
    }
    const { window } = renderFrameWindow(composition, base("standard").output);
    const seams = split.segments.slice(1).map((s) => s.startFrame - window.start);
    const near = seams.flatMap((s) => Array.from({ length: 2 * AROUND }, (_, i) => s - AROUND + i));
    const around = (psnr: number[]) => mean(near.map((f) => psnr[f] as number));
    const seamSplit = around(splitPsnr);
    const seamUnsplit = around(unsplit);
    /** Bytes of a file's video packets. */
    const videoBytes = async (file: string) => {
      const args = [
        "-v",
        "error",
        "-select_streams",
        "v:0",
        "-show_entries",
        "packet=size",
        "-of",
        "csv=p=0",
      ];
      const { stdout } = await run("ffprobe", [...args, file], { maxBuffer: 64 * 1024 * 1024 });
      return stdout
        .trim()
        .split("\n")
        .reduce((sum, line) => sum + Number(line), 0);
    };
    const bytes = {
      split: await videoBytes(path.join(splitDir, "joined.mp4")),
      unsplit: await videoBytes(path.join(dir, "whole-standard", "out.mp4")),
    };
    const summary = {
      composition: { seconds: SECONDS, width: 1920, height: 1080, fps: 30, segmentSec: SEGMENT_SEC },
      seamsAtFrame: seams,
      framesMeasured: near.length,
      loadAverage: { before: loadBefore, after: load() },
      wallSec: wall,
      aroundSeamsDb: {
        split: Number(seamSplit.toFixed(3)),
        unsplit: Number(seamUnsplit.toFixed(3)),
        difference: Number((seamSplit - seamUnsplit).toFixed(3)),
        target: "split − unsplit ≥ −0.5 dB",
        met: seamSplit - seamUnsplit >= -0.5,
      },
      videoBytes: { ...bytes, ratio: Number((bytes.split / bytes.unsplit).toFixed(4)) },
      everyFrameDb: {
        split: { mean: Number(mean(splitPsnr).toFixed(3)), min: Math.min(...splitPsnr) },
        unsplit: { mean: Number(mean(unsplit).toFixed(3)), min: Math.min(...unsplit) },
      },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await cleanup();
  }
}

await main();
