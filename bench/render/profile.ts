/**
 * Where the reference render's time goes, measured with ffmpeg alone (no API, no queue):
 *
 *   node bench/render/profile.ts [--seconds 60] [--rounds 3] [--split 10]
 *
 * Generates the reference inputs (`reference-composition.ts`), plans the composition exactly as a
 * worker does (`buildRenderPlan`, `standard` mp4, the worker's decoder threads) and runs, each
 * round in the same order, ffmpeg under `/usr/bin/time`:
 * - `floor`: the encode-only floor of `reference-render.ts` (60 s of 1080p30 testsrc2 + a sine,
 *   the `standard` encoder arguments), and `floor source`: the same source into `-f null` (what
 *   generating testsrc2 costs inside the floor);
 * - `render`: the plan as is;
 * - `graph`: the plan with its encoders replaced by `-f null` (decode + filters + audio);
 * - ablations of the graph into `-f null`: without the text track (libass), without the logo
 *   track (overlay + zoompan), without audio (`-an`), and each source decoded alone (`decode`).
 * Prints wall seconds, CPU seconds (user + system) and peak RSS of each, the median over the
 * rounds, and a breakdown in CPU seconds: decode, video filters, text, overlay, audio, encode
 * (render − graph). CPU seconds are what the breakdown adds up; on a shared machine they move
 * less than wall time, which is quoted for the ratio to the floor.
 * With `--split SEC`, it profiles instead the render in one piece against its split parts, with
 * nominal and with keyframe-aware segment boundaries, and with keyframe seeks (`profileSplit`).
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { compositionDuration } from "../../src/domain/composition/duration.ts";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import { startPrerollFrames } from "../../src/domain/render/keyframes.ts";
import { encoderArgs } from "../../src/domain/render/outputs.ts";
import { buildRenderPlan, layoutTracks, type RenderPlan } from "../../src/domain/render/plan.ts";
import { buildSplitRenderPlan, renderFrameWindow } from "../../src/domain/render/segments.ts";
import { frameToSeconds, secondsToFrame } from "../../src/domain/render/timeline.ts";
import type { ResolvedAsset } from "../../src/domain/render/types.ts";
import { SEEK_PREROLL_SEC } from "../../src/domain/render/video-branch.ts";
import { readSourceKeyframes } from "../../src/domain/render-jobs/split-render.ts";
import { writePlanFiles } from "../../src/domain/render-jobs/write-plan-files.ts";
import type { KeyframeIndex } from "../../src/media/keyframes.ts";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { makeReferenceInputs, referenceAssets, referenceComposition } from "./reference-composition.ts";

const run = promisify(execFile);
const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const SECONDS = option("--seconds", 60);
const ROUNDS = option("--rounds", 3);
/** `--split SEC`: profile the render in one piece against its split parts (segments of SEC s). */
const SPLIT = option("--split", 0);
/** The worker's decoder threads per video input and filter-graph threads (half the cores, as `render-pipeline.ts` sets). */
const DECODER_THREADS = Math.max(1, Math.floor((await import("node:os")).availableParallelism() / 2));
const log = (msg: string) => process.stderr.write(`[profile] ${msg}\n`);

/** One measured process: wall and CPU seconds, peak RSS in MiB. */
interface Sample {
  wall: number;
  cpu: number;
  rssMiB: number;
}

/** Runs ffmpeg with `args` in `cwd` under GNU time; throws with stderr when ffmpeg fails. */
async function measure(args: string[], cwd: string): Promise<Sample> {
  const { stderr } = await run(
    "/usr/bin/time",
    ["-f", "TIME %e %U %S %M", "ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...args],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  );
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
  if (!m) throw new Error(`no timing in: ${stderr.slice(-500)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), rssMiB: Number(m[4]) / 1024 };
}

/** The plan's ffmpeg arguments without its own logging and progress flags and its output. */
function graphArgs(plan: RenderPlan): string[] {
  const args = [...plan.args];
  const out = args.indexOf("-progress");
  if (out >= 0) args.splice(out, 2);
  return args.filter((a) => !["-hide_banner", "-nostdin", "-y", "-nostats"].includes(a));
}

/** The plan's arguments with its encoders and output replaced by a null sink. */
function toNull(plan: RenderPlan, extra: string[] = []): string[] {
  const args = graphArgs(plan);
  const enc = encoderArgs("mp4", "standard");
  const at = args.findIndex((_arg, i) => enc.every((e, k) => args[i + k] === e));
  if (at < 0) throw new Error("encoder arguments not found in the plan");
  return [...args.slice(0, at), ...extra, "-f", "null", "-"];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * `--split SEC`: the render in one piece (with its poster, as a worker runs it) against the
 * parts of the same render split into segments of SEC seconds, three times: with the boundaries
 * every SEC seconds (`nominal`: no keyframe index), with the boundaries moved to cheap seek points
 * (`keyframes`: the sources' keyframe indexes read as a worker reads them,
 * `readSourceKeyframes`) and, as a worker renders them, also with every input seeking to the
 * keyframe its first frame decodes from (`seeks`: `BuildRenderPlanInput.sourceKeyframes`). Every round runs the whole render, then each variant's parts (each video
 * segment, the audio, the stream-copy join) in that order. Prints each run's wall and CPU
 * seconds (medians over the rounds) and, per variant, its boundaries, the source frames its
 * segment starts decode before their first frame (`startPrerollFrames`), the parts' CPU sum and
 * its overhead over the render in one piece: what splitting costs in ffmpeg alone, without the
 * queue and the workers.
 */
async function profileSplit(composition: Timeline, assets: Map<string, ResolvedAsset>, cwd: string) {
  const base = {
    composition,
    assets,
    output: { format: "mp4", quality: "standard" } as const,
    decoderThreads: DECODER_THREADS,
  };
  const whole = buildRenderPlan({ ...base, outputPath: "whole.mp4", posterPath: "poster.jpg" });
  await writePlanFiles(whole, cwd);
  const readStarted = performance.now();
  const keyframes = await readSourceKeyframes(composition, assets);
  const readMs = performance.now() - readStarted;
  const { rate } = renderFrameWindow(composition, base.output);
  const tracks = layoutTracks(composition, rate, secondsToFrame(compositionDuration(composition), rate), []);
  // The sources' keyframes as the parts' input seeks use them (`BuildRenderPlanInput.sourceKeyframes`).
  const seeks = new Map(
    [...keyframes].map(([key, k]) => [key, { times: k.times, frameSec: k.fps > 0 ? 1 / k.fps : 0 }]),
  );
  const variants = [
    { name: "nominal", keyframes: new Map<string, KeyframeIndex>(), seeks: undefined },
    { name: "keyframes", keyframes, seeks: undefined },
    { name: "seeks", keyframes, seeks },
  ].map((v) => {
    const split = buildSplitRenderPlan({
      ...base,
      ...(v.seeks ? { sourceKeyframes: v.seeks } : {}),
      segmentSec: SPLIT,
      outputPath: "joined.mp4",
      keyframes: v.keyframes,
    });
    const dir = path.join(cwd, v.name);
    const parts = [...split.segments, split.audio];
    const starts = split.segments.slice(1).map((s) => s.startFrame);
    return {
      ...v,
      split,
      dir,
      parts,
      boundariesSec: starts.map((f) => Number(frameToSeconds(f, rate).toFixed(3))),
      prerollFrames: starts.map((f) =>
        Math.round(startPrerollFrames(tracks, f, rate, keyframes, SEEK_PREROLL_SEC)),
      ),
      runs: [
        ...parts.map((p): [string, string[]] => [`${v.name} ${p.file}`, graphArgs(p.plan)]),
        [`${v.name} join`, split.join.args.filter((a) => !["-progress", "pipe:1"].includes(a))] as [
          string,
          string[],
        ],
      ],
    };
  });
  for (const v of variants) {
    log(
      `${v.name}: boundaries ${v.boundariesSec.join(", ")} s, preroll ${v.prerollFrames.join(", ")} frames`,
    );
    for (const plan of v.parts.map((p) => p.plan)) await writePlanFiles(plan, v.dir);
    for (const f of v.split.join.files) await writeFile(path.join(v.dir, f.path), f.content, "utf8");
  }
  const runs: [string, string[], string][] = [
    ["whole", graphArgs(whole), cwd],
    ...variants.flatMap((v) => v.runs.map(([name, args]): [string, string[], string] => [name, args, v.dir])),
  ];
  const samples = new Map<string, Sample[]>(runs.map(([name]) => [name, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [name, args, dir] of runs) {
      const s = await measure(args, dir);
      samples.get(name)?.push(s);
      log(`round ${round} ${name}: wall ${s.wall.toFixed(2)} s, cpu ${s.cpu.toFixed(2)} s`);
    }
  }
  const med = (name: string, key: keyof Sample) => median((samples.get(name) ?? []).map((s) => s[key]));
  const cpuSpread = (name: string) => {
    const xs = (samples.get(name) ?? []).map((s) => s.cpu);
    return [Math.min(...xs), Math.max(...xs)];
  };
  const summary = {
    seconds: SECONDS,
    segmentSec: SPLIT,
    rounds: ROUNDS,
    decoderThreads: DECODER_THREADS,
    keyframeReadMs: Math.round(readMs),
    median: Object.fromEntries(
      runs.map(([name]) => [
        name,
        { wall: med(name, "wall"), cpu: med(name, "cpu"), cpuRange: cpuSpread(name) },
      ]),
    ),
    variants: variants.map((v) => {
      const partsCpu = v.parts.reduce((sum, p) => sum + med(`${v.name} ${p.file}`, "cpu"), 0);
      return {
        name: v.name,
        boundariesSec: v.boundariesSec,
        prerollFrames: v.prerollFrames,
        partsCpu,
        overheadCpu: partsCpu - med("whole", "cpu"),
        cpuRatio: (partsCpu + med(`${v.name} join`, "cpu")) / med("whole", "cpu"),
      };
    }),
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
}

async function main(): Promise<void> {
  const { dir, cleanup } = await tempDir("cutroom-profile-");
  try {
    log(`generating inputs (${SECONDS} s composition)…`);
    const files = await makeReferenceInputs(dir, SECONDS);
    const { assets, ids } = await referenceAssets(files);
    const full = referenceComposition(ids, SECONDS) as unknown as Timeline;
    if (SPLIT > 0) {
      await profileSplit(full, assets, path.join(dir, "split"));
      return;
    }
    const without = (trackId: string): Timeline => ({
      ...full,
      tracks: full.tracks.filter((t) => t.id !== trackId),
    });
    let n = 0;
    const planned = async (composition: Timeline) => {
      n += 1;
      const cwd = path.join(dir, `p${n}`);
      const plan = buildRenderPlan({
        composition,
        assets,
        output: { format: "mp4", quality: "standard" },
        outputPath: "out.mp4",
        decoderThreads: DECODER_THREADS,
        filterThreads: DECODER_THREADS,
      });
      await writePlanFiles(plan, cwd);
      return { plan, cwd };
    };
    const main = await planned(full);
    const noText = await planned(without("text"));
    const noOverlay = await planned(without("overlay"));
    const floorArgs = [
      ...["-f", "lavfi", "-i", `testsrc2=s=1920x1080:r=30:d=${SECONDS}`],
      ...["-f", "lavfi", "-i", `sine=f=440:r=48000:d=${SECONDS}`],
    ];
    const runs: Record<string, () => Promise<Sample>> = {
      floor: () => measure([...floorArgs, ...encoderArgs("mp4", "standard"), "-r", "30", "floor.mp4"], dir),
      "floor source": () => measure([...floorArgs, "-f", "null", "-"], dir),
      render: () => measure(graphArgs(main.plan), main.cwd),
      graph: () => measure(toNull(main.plan), main.cwd),
      "graph, no text": () => measure(toNull(noText.plan), noText.cwd),
      "graph, no overlay": () => measure(toNull(noOverlay.plan), noOverlay.cwd),
      "graph, no audio": () => measure(toNull(main.plan, ["-an"]), main.cwd),
      decode: async () => {
        const total: Sample = { wall: 0, cpu: 0, rssMiB: 0 };
        for (const input of main.plan.inputs) {
          const s = await measure([...input.args, "-map", "0:v?", "-f", "null", "-"], main.cwd);
          total.wall += s.wall;
          total.cpu += s.cpu;
          total.rssMiB = Math.max(total.rssMiB, s.rssMiB);
        }
        return total;
      },
    };
    const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const [name, fn] of Object.entries(runs)) {
        const s = await fn();
        samples[name]?.push(s);
        log(
          `round ${round} ${name}: wall ${s.wall.toFixed(1)} s, cpu ${s.cpu.toFixed(1)} s, rss ${s.rssMiB.toFixed(0)} MiB`,
        );
      }
    }
    const med = (name: string, key: keyof Sample) => median((samples[name] ?? []).map((s) => s[key]));
    const spread = (name: string, key: keyof Sample) => {
      const xs = (samples[name] ?? []).map((s) => s[key]);
      return [Math.min(...xs), Math.max(...xs)];
    };
    const cpu = (name: string) => med(name, "cpu");
    const breakdownCpu = {
      decode: cpu("decode"),
      text: cpu("graph") - cpu("graph, no text"),
      overlay: cpu("graph") - cpu("graph, no overlay"),
      audio: cpu("graph") - cpu("graph, no audio"),
      encode: cpu("render") - cpu("graph"),
    };
    const rest =
      cpu("graph") - breakdownCpu.decode - breakdownCpu.text - breakdownCpu.overlay - breakdownCpu.audio;
    const summary = {
      seconds: SECONDS,
      rounds: ROUNDS,
      decoderThreads: DECODER_THREADS,
      filterThreads: DECODER_THREADS,
      median: Object.fromEntries(
        Object.keys(runs).map((k) => [
          k,
          {
            wall: med(k, "wall"),
            cpu: med(k, "cpu"),
            rssMiB: med(k, "rssMiB"),
            wallRange: spread(k, "wall"),
          },
        ]),
      ),
      ratioToFloorWall: med("render", "wall") / med("floor", "wall"),
      ratioToFloorCpu: cpu("render") / cpu("floor"),
      breakdownCpuSec: {
        ...breakdownCpu,
        "video filters (scale, crop, xfade, fps, overlay of tracks)": rest,
        "floor: encode": cpu("floor") - cpu("floor source"),
        "floor: source": cpu("floor source"),
      },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await cleanup();
  }
}

await main();
