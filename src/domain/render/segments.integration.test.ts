import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  audioAsset,
  canvas,
  clip,
  imageAsset,
  resolvedAudio,
  resolvedImage,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import {
  allFrames,
  ffmpeg,
  type MediaFixtures,
  makeMediaFixtures,
  tempDir,
} from "../../../test/fixtures/render/media.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import type { Timeline } from "../composition/schema.ts";
import { buildRenderPlan } from "./plan.ts";
import { renderSplit } from "./render-split.ts";
import { buildSplitRenderPlan } from "./segments.ts";
import { frameToSeconds, toFrameRate } from "./timeline.ts";
import type { RenderQuality, ResolvedAsset } from "./types.ts";
import { writePlanFiles } from "./write-plan-files.ts";

const run = promisify(execFile);

const FPS = 25;
const FRAMES = 100; // 4 s; segments of 1 s cut at frames 25, 50 and 75
const SEGMENT_STARTS = [0, 25, 50, 75];
/** One AAC frame at 48 kHz, seconds. */
const AAC_FRAME = 1024 / 48_000;

let dir = "";
let cleanup: () => Promise<void> = async () => {};
let fx: MediaFixtures;
let assets: Map<string, ResolvedAsset>;

/**
 * 4 s at `fps` on a `width`x(9/16 `width`) canvas: a video track of four clips (`moving` and
 * red, alternately), each joined by a transition centred on a segment boundary; a
 * picture-in-picture clip at 1.5x speed fading in and out across two boundaries; a still
 * zooming in, a text and a frame counter (a strip of 8 binary digits, each 1/8 of the width,
 * at the bottom) spanning every boundary; music and the clips' own sound.
 */
function seamComposition(moving: string, width: number, fps = FPS): Timeline {
  return {
    canvas: canvas(width, (width * 9) / 16, fps),
    tracks: [
      track("video", [
        clip({ start: 0, duration: 1, trim: 0.5, asset: videoAsset(moving) }),
        clip({
          start: 1,
          duration: 1,
          trim: 0.5,
          asset: videoAsset("upl_red"),
          transition: { type: "wipeleft", duration: 0.4 },
        }),
        clip({
          start: 2,
          duration: 1,
          trim: 0.5,
          asset: videoAsset(moving),
          transition: { type: "fade", duration: 0.4 },
        }),
        clip({
          start: 3,
          duration: 1,
          trim: 0.5,
          asset: videoAsset("upl_red"),
          transition: { type: "dissolve", duration: 0.4 },
        }),
      ]),
      track("video", [
        clip({
          start: 0.7,
          duration: 1.6,
          trim: 0.3,
          speed: 1.5,
          fadeIn: 0.5,
          fadeOut: 0.5,
          asset: videoAsset(moving),
          transform: { x: 0.8, y: 0.3, width: 0.3, height: 0.3 },
        }),
      ]),
      track("video", [
        clip({
          start: 0.5,
          duration: 3.1,
          asset: imageAsset("upl_still"),
          motion: { type: "zoomIn", amount: 0.4 },
          transform: { x: 0.3, y: 0.3, width: 0.4, height: 0.4 },
        }),
      ]),
      track("video", [
        clip({
          start: 0.3,
          duration: 3.4,
          asset: {
            type: "text",
            text: "SEAMS",
            style: { family: "DejaVu Sans", size: 24, color: "#ffff00" },
          },
          transform: { x: 0.6, y: 0.5, width: 0.8, height: 0.3 },
        }),
      ]),
      track("video", [
        clip({
          start: 0,
          duration: 4,
          asset: videoAsset("upl_counter"),
          fit: "fill",
          transform: { x: 0.5, y: 0.9, width: 1, height: 0.2 },
        }),
      ]),
      track("audio", [clip({ start: 0.2, duration: 3.6, asset: audioAsset("upl_mono"), volume: 0.5 })]),
    ],
  };
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-split-"));
  const counter = join(dir, "counter.mp4");
  const gradients = join(dir, "gradients.mp4");
  [fx] = await Promise.all([
    makeMediaFixtures(dir),
    // Frame n shows n in binary: bit b is the 20 px column b, white (1) or black (0).
    ffmpeg([
      ...["-f", "lavfi", "-i", "color=c=black:s=160x90:r=25:d=4,format=gray"],
      ...["-vf", "geq=lum='if(mod(floor(N/pow(2,floor(X/20))),2),235,16)',format=yuv420p"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", counter],
    ]),
    // Smooth moving colour (camera-like detail, unlike testsrc2's hard edges) with sound.
    ffmpeg([
      ...["-f", "lavfi", "-i", "gradients=s=160x90:r=25:d=3:speed=0.03"],
      ...["-f", "lavfi", "-i", "sine=f=440:r=48000:d=3"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2"],
      gradients,
    ]),
  ]);
  assets = new Map<string, ResolvedAsset>([
    ["upl_video", resolvedVideo(fx.video)],
    ["upl_gradients", resolvedVideo(gradients)],
    ["upl_red", resolvedVideo(fx.red)],
    ["upl_counter", resolvedVideo(counter, 4, false)],
    ["upl_mono", resolvedAudio(fx.monoAudio)],
    ["upl_still", resolvedImage(fx.still)],
  ]);
});
afterAll(() => cleanup());

/** Renders the composition in one ffmpeg run; returns the output file. */
async function renderWhole(name: string, composition: Timeline, quality: RenderQuality, lossless: boolean) {
  const work = join(dir, name);
  const plan = buildRenderPlan({
    composition,
    assets,
    output: { format: "mp4", quality },
    outputPath: "out.mp4",
    ...(lossless ? { variant: { lossless } } : {}),
  });
  await writePlanFiles(plan, work);
  await runFfmpeg({ args: plan.args, cwd: work, durationSec: plan.durationSec, stallTimeoutMs: 60_000 });
  return join(work, "out.mp4");
}

/**
 * Renders the composition split into `segmentSec` segments, two parts at a time; returns the
 * output file. `starts`: the first frame of each segment, as expected.
 */
async function renderSplitted(
  name: string,
  composition: Timeline,
  quality: RenderQuality,
  lossless: boolean,
  starts = SEGMENT_STARTS,
  segmentSec = 1,
) {
  const work = join(dir, name);
  const plan = buildSplitRenderPlan({
    composition,
    assets,
    output: { format: "mp4", quality },
    outputPath: "out.mp4",
    segmentSec,
    lossless,
  });
  expect(plan.segments.map((s) => s.startFrame)).toEqual(starts);
  const ratios: number[] = [];
  await renderSplit(plan, {
    workDir: work,
    concurrency: 2,
    stallTimeoutMs: 60_000,
    onProgress: (r) => ratios.push(r),
  });
  expect(ratios.at(-1)).toBe(1);
  return join(work, "out.mp4");
}

/** Renders unsplit and split at once; returns both outputs (unsplit first). */
function renderBoth(tag: string, composition: Timeline, quality: RenderQuality, lossless: boolean) {
  return Promise.all([
    renderWhole(`whole-${tag}`, composition, quality, lossless),
    renderSplitted(`split-${tag}`, composition, quality, lossless),
  ]);
}

async function ffprobeJson<T>(args: string[]): Promise<T> {
  const { stdout } = await run("ffprobe", ["-v", "error", "-of", "json", ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}

/** Video packets (pts, dts in the stream time base) and that time base. */
async function videoPackets(file: string) {
  const json = await ffprobeJson<{
    packets: { pts: number; dts: number; flags: string }[];
    streams: { time_base: string }[];
  }>(["-select_streams", "v:0", "-show_entries", "packet=pts,dts,flags:stream=time_base", file]);
  const [num, den] = (json.streams[0]?.time_base ?? "1/1").split("/").map(Number);
  return { packets: json.packets, timeBase: (num ?? 1) / (den ?? 1) };
}

/** Decoded video frames' presentation timestamps (stream time base), in output order. */
async function framePts(file: string): Promise<number[]> {
  const json = await ffprobeJson<{ frames: { best_effort_timestamp: number }[] }>([
    ...["-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp", file],
  ]);
  return json.frames.map((f) => f.best_effort_timestamp);
}

/** `framemd5` of the video: one `[pts, md5]` per decoded frame. */
async function frameMd5(file: string): Promise<string[][]> {
  const { stdout } = await run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v", "-f", "framemd5", "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const cols = l.split(",").map((c) => c.trim());
      return [cols[2] ?? "", cols[5] ?? ""];
    });
}

/** Decoded audio length, seconds (priming removed, as players do). */
async function audioSeconds(file: string): Promise<number> {
  const { stdout } = await run(
    "ffmpeg",
    ["-v", "error", "-i", file, "-map", "0:a", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"],
    { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.length / 2 / 48_000;
}

/** Per-frame PSNR (dB, `Infinity` for identical frames) of `file` against `reference`. */
async function psnrPerFrame(file: string, reference: string): Promise<number[]> {
  const log = join(dir, `psnr-${basename(dirname(file))}.log`);
  await ffmpeg([
    "-i",
    file,
    "-i",
    reference,
    "-lavfi",
    `[0:v][1:v]psnr=stats_file=${log}`,
    "-f",
    "null",
    "-",
  ]);
  return (await readFile(log, "utf8"))
    .trim()
    .split("\n")
    .map((line) => {
      const value = /psnr_avg:(\S+)/.exec(line)?.[1] ?? "nan";
      return value === "inf" ? Number.POSITIVE_INFINITY : Number(value);
    });
}

/** The number the counter strip shows in each frame. */
async function counterValues(file: string, width: number): Promise<number[]> {
  const height = (width * 9) / 16;
  const frames = await allFrames(file, width, height);
  return frames.map((f) => {
    let n = 0;
    for (let bit = 0; bit < 8; bit++) {
      if ((f.pixel(((bit + 0.5) * width) / 8, height * 0.9)[0] ?? 0) > 128) n += 2 ** bit;
    }
    return n;
  });
}

/**
 * Seam checks of a split output: exact frames, a keyframe at each segment start, strictly
 * increasing DTS, constant frame duration (exactly one frame of `rate` in ticks), audio length.
 */
async function expectCleanSeams(
  file: string,
  { rate = toFrameRate(FPS), frames = FRAMES, starts = SEGMENT_STARTS, bFrames = true } = {},
) {
  const { packets, timeBase } = await videoPackets(file);
  expect(packets).toHaveLength(frames);
  for (const first of starts) expect(packets[first]?.flags, `packet ${first}`).toMatch(/^K/);
  // B-frames (decode order ≠ display order; x264 uses none when lossless) make the joins' DTS a real test.
  expect(packets.some((p) => p.pts !== p.dts)).toBe(bFrames);
  const step = rate.den / rate.num / timeBase;
  expect(Number.isInteger(Math.round(step * 1e6) / 1e6)).toBe(true);
  for (let i = 1; i < packets.length; i++) {
    expect((packets[i]?.dts ?? 0) > (packets[i - 1]?.dts ?? 0), `dts of packet ${i}`).toBe(true);
  }
  const pts = await framePts(file);
  expect(pts).toHaveLength(frames);
  expect(pts[0]).toBe(0);
  const steps = pts.slice(1).map((p, i) => p - (pts[i] ?? 0));
  expect(new Set(steps)).toEqual(new Set([Math.round(step)]));
  expect(Math.abs((await audioSeconds(file)) - frameToSeconds(frames, rate))).toBeLessThanOrEqual(AAC_FRAME);
}

describe("split render: seams you cannot find", () => {
  it("lossless: split and unsplit decode to identical frames, and the counter shows every frame once", async () => {
    const [whole, split] = await renderBoth("lossless", seamComposition("upl_video", 160), "standard", true);
    await expectCleanSeams(split, { bFrames: false });
    const [a, b] = await Promise.all([frameMd5(split), frameMd5(whole)]);
    expect(a).toHaveLength(FRAMES);
    expect(a).toEqual(b);
    expect(await counterValues(split, 160)).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
  });

  it("standard quality: every frame within 40 dB PSNR of the unsplit render", async () => {
    const [whole, split] = await renderBoth(
      "standard",
      seamComposition("upl_gradients", 320),
      "standard",
      false,
    );
    await expectCleanSeams(split);
    const psnr = await psnrPerFrame(split, whole);
    expect(psnr).toHaveLength(FRAMES);
    const worst = Math.min(...psnr);
    expect(worst).toBeGreaterThanOrEqual(40);
    expect(await counterValues(split, 320)).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
  });

  it("23.976 fps: every frame lasts exactly 1001/24000 s across the joins", async () => {
    // 96 frames in 4 s; segments of 30 frames (1.25125 s: no whole number of milliseconds, so
    // the container's own durations would misplace the joins).
    const starts = [0, 30, 60, 90];
    const composition = seamComposition("upl_video", 160, 23.976);
    const split = await renderSplitted("split-ntsc", composition, "standard", false, starts, 1.25);
    await expectCleanSeams(split, { rate: toFrameRate(23.976), frames: 96, starts });
  });

  it("23.976 fps from 25 fps sources: split and unsplit decode to identical frames (lossless)", async () => {
    const starts = [0, 30, 60, 90];
    const composition = seamComposition("upl_video", 160, 23.976);
    const [whole, split] = await Promise.all([
      renderWhole("whole-ntsc-lossless", composition, "standard", true),
      renderSplitted("split-ntsc-lossless", composition, "standard", true, starts, 1.25),
    ]);
    await expectCleanSeams(split, { rate: toFrameRate(23.976), frames: 96, starts, bFrames: false });
    const [a, b] = await Promise.all([frameMd5(split), frameMd5(whole)]);
    expect(a).toHaveLength(96);
    expect(a).toEqual(b);
  });

  it("stops every part and joins nothing when a part fails", async () => {
    const composition = seamComposition("upl_video", 160);
    const plan = buildSplitRenderPlan({
      composition,
      assets: new Map([...assets, ["upl_red", resolvedVideo(join(dir, "missing.mp4"))]]),
      output: { format: "mp4", quality: "draft" },
      outputPath: "out.mp4",
      segmentSec: 1,
    });
    const work = join(dir, "split-failing");
    await expect(renderSplit(plan, { workDir: work, concurrency: 2 })).rejects.toMatchObject({
      code: "FFMPEG_FAILED",
    });
    await expect(stat(join(work, "out.mp4"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
