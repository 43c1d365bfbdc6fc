import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  canvas,
  clip,
  resolvedAudio,
  resolvedImage,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import {
  ffmpeg,
  type MediaFixtures,
  makeMediaFixtures,
  tempDir,
} from "../../../test/fixtures/render/media.ts";
import { renderSplit } from "../../../test/fixtures/render/render-split.ts";
import {
  counterValues,
  expectCleanSeams,
  SEAM_FRAMES as FRAMES,
  frameMd5,
  makeSeamMedia,
  psnrPerFrame,
  SEAM_SEGMENT_STARTS as SEGMENT_STARTS,
  seamComposition,
} from "../../../test/fixtures/render/seams.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import { probeKeyframes } from "../../media/keyframes.ts";
import type { Timeline } from "../composition/schema.ts";
import { writePlanFiles } from "../render-jobs/write-plan-files.ts";
import { keptSourceKeyframes } from "./keyframes.ts";
import { buildRenderPlan } from "./plan.ts";
import { buildSplitRenderPlan } from "./segments.ts";
import { toFrameRate } from "./timeline.ts";
import type { RenderOutputOptions, RenderQuality, ResolvedAsset } from "./types.ts";

const FPS = 25;
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let fx: MediaFixtures;
let assets: Map<string, ResolvedAsset>;

/** The seam composition over this test's asset keys, with `moving` as its moving video. */
const seams = (moving: string, width: number, fps = FPS): Timeline =>
  seamComposition(
    { moving, red: "upl_red", still: "upl_still", counter: "upl_counter", mono: "upl_mono" },
    width,
    fps,
  );

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-split-"));
  let media: { counter: string; gradients: string };
  [fx, media] = await Promise.all([makeMediaFixtures(dir), makeSeamMedia(dir)]);
  assets = new Map<string, ResolvedAsset>([
    ["upl_video", resolvedVideo(fx.video)],
    ["upl_gradients", resolvedVideo(media.gradients)],
    ["upl_red", resolvedVideo(fx.red)],
    ["upl_counter", resolvedVideo(media.counter, 4, false)],
    ["upl_mono", resolvedAudio(fx.monoAudio)],
    ["upl_still", resolvedImage(fx.still)],
  ]);
});
afterAll(() => cleanup());

/** Renders the composition (or its `range`) in one ffmpeg run; returns the output file. */
async function renderWhole(
  name: string,
  composition: Timeline,
  quality: RenderQuality,
  lossless: boolean,
  range?: RenderOutputOptions["range"],
) {
  const work = join(dir, name);
  const plan = buildRenderPlan({
    composition,
    assets,
    output: { format: "mp4", quality, ...(range ? { range } : {}) },
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

describe("split render: seams you cannot find", () => {
  it("lossless: split and unsplit decode to identical frames, and the counter shows every frame once", async () => {
    const [whole, split] = await renderBoth("lossless", seams("upl_video", 160), "standard", true);
    await expectCleanSeams(split, { bFrames: false });
    const [a, b] = await Promise.all([frameMd5(split), frameMd5(whole)]);
    expect(a).toHaveLength(FRAMES);
    expect(a).toEqual(b);
    expect(await counterValues(split, 160)).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
  });

  it("standard quality: every frame within 40 dB PSNR of the unsplit render", async () => {
    const [whole, split] = await renderBoth("standard", seams("upl_gradients", 320), "standard", false);
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
    const composition = seams("upl_video", 160, 23.976);
    const split = await renderSplitted("split-ntsc", composition, "standard", false, starts, 1.25);
    await expectCleanSeams(split, { rate: toFrameRate(23.976), frames: 96, starts });
  });

  it("23.976 fps from 25 fps sources: split and unsplit decode to identical frames (lossless)", async () => {
    const starts = [0, 30, 60, 90];
    const composition = seams("upl_video", 160, 23.976);
    const [whole, split] = await Promise.all([
      renderWhole("whole-ntsc-lossless", composition, "standard", true),
      renderSplitted("split-ntsc-lossless", composition, "standard", true, starts, 1.25),
    ]);
    await expectCleanSeams(split, { rate: toFrameRate(23.976), frames: 96, starts, bFrames: false });
    const [a, b] = await Promise.all([frameMd5(split), frameMd5(whole)]);
    expect(a).toHaveLength(96);
    expect(a).toEqual(b);
  });

  it("segments that seek their inputs to keyframes decode to the unsplit render's frames: B-frames, open GOPs, 29.97 fps, odd keyframe times, a sped-up clip (lossless)", async () => {
    // Keyframes every 37 frames of 30000/1001 (1.2345 s), open GOPs with 3 B-frames, each clip
    // trimmed off the keyframes; boundaries placed on the keyframes by the split planner.
    const source = join(dir, "open-gop.mp4");
    await ffmpeg([
      ...[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=30000/1001:d=8",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
      ],
      ...["-bf", "3", "-g", "37", "-keyint_min", "37", "-sc_threshold", "0", "-flags", "-cgop"],
      ...["-x264-params", "open_gop=1:b-adapt=0", "-pix_fmt", "yuv420p", source],
    ]);
    const index = await probeKeyframes(source);
    expect(index.times.length).toBeGreaterThan(5);
    const kept = new Map([["upl_open", { ...resolvedVideo(source, 8, false), keyframes: index }]]);
    const composition: Timeline = {
      canvas: canvas(160, 90, 23.976),
      tracks: [
        track("video", [
          clip({ id: "plain", start: 0, duration: 3, trim: 0.41, asset: videoAsset("upl_open") }),
          clip({ id: "fast", start: 3, duration: 2.5, trim: 1.3, speed: 1.5, asset: videoAsset("upl_open") }),
        ]),
      ],
    };
    const sourceKeyframes = keptSourceKeyframes(kept);
    const whole = buildRenderPlan({
      composition,
      assets: kept,
      output: { format: "mp4", quality: "standard" },
      outputPath: "out.mp4",
      variant: { lossless: true },
    });
    const wholeDir = join(dir, "whole-keyframe-seeks");
    await writePlanFiles(whole, wholeDir);
    await runFfmpeg({
      args: whole.args,
      cwd: wholeDir,
      durationSec: whole.durationSec,
      stallTimeoutMs: 60_000,
    });
    const plan = buildSplitRenderPlan({
      composition,
      assets: kept,
      output: { format: "mp4", quality: "standard" },
      outputPath: "out.mp4",
      segmentSec: 1,
      lossless: true,
      keyframes: new Map([["upl_open", index]]),
      sourceKeyframes,
    });
    // Some segments start on a keyframe of their clip and seek straight to it.
    const seeks = plan.segments.flatMap((s) =>
      s.plan.inputs.map((i) => Number(i.args[i.args.indexOf("-ss") + 1])),
    );
    const onKeyframes = seeks.filter((t) => index.times.some((k) => Math.abs(k - t) < 1e-3));
    expect(onKeyframes.length).toBeGreaterThanOrEqual(2);
    const work = join(dir, "split-keyframe-seeks");
    await renderSplit(plan, { workDir: work, concurrency: 2, stallTimeoutMs: 60_000 });
    const [a, b] = await Promise.all([frameMd5(join(work, "out.mp4")), frameMd5(join(wholeDir, "out.mp4"))]);
    expect(a).toHaveLength(Math.round(5.5 * (24000 / 1001)));
    expect(a).toEqual(b);
  });

  it("stops every part and joins nothing when a part fails", async () => {
    const composition = seams("upl_video", 160);
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

describe("regression: text starts and ends on the same frame whatever frame a range starts at", () => {
  // libass is handed each frame's time truncated to whole milliseconds from `pts · time_base`,
  // which in microseconds lands just below the integer for many frames: text on a band shifted
  // by a whole render's length, or after a transition's concat, started or ended a frame late
  // where a range (a split segment, the studio's preview) starting nearby drew it on time, and
  // the lossless split through the API differed from the unsplit render in one frame. And a
  // range cutting a fading text faded it in again at its first frame (out at its last).
  const FPS_TEXT = 25;
  const text = (
    id: string,
    start: number,
    duration: number,
    body: string,
    x: number,
    fade = 0,
  ): Timeline["tracks"][number] => ({
    id,
    kind: "video",
    clips: [
      {
        id: `${id}-c`,
        start,
        duration,
        ...(fade ? { fadeIn: fade, fadeOut: fade } : {}),
        asset: { type: "text", text: body, style: { family: "DejaVu Sans", size: 14, color: "#ffff00" } },
        transform: { x, y: 0.5, width: 0.4, height: 0.6 },
      },
    ],
  });
  // 2 s: a crossfade at 1 s under two text tracks (two bands), text on frames [5, 20) (fading in
  // and out over 5 frames) and [30, 40).
  const composition = (withText: boolean): Timeline => ({
    canvas: { width: 64, height: 36, fps: FPS_TEXT, background: "#000000" },
    tracks: [
      {
        id: "base",
        kind: "video",
        clips: [
          { id: "b0", start: 0, duration: 1, asset: { type: "color", color: "#204060" } },
          {
            id: "b1",
            start: 1,
            duration: 1,
            asset: { type: "color", color: "#602040" },
            transition: { type: "fade", duration: 0.4 },
          },
        ],
      },
      ...(withText ? [text("ta", 0.2, 0.6, "A", 0.3, 0.2), text("tb", 1.2, 0.4, "B", 0.7)] : []),
    ],
  });
  const hashes = async (file: string) => (await frameMd5(file)).map(([, hash]) => hash);

  it("draws each text on exactly its frames, and every range around its start and end draws the same frames", async () => {
    const [whole, bare] = await Promise.all([
      renderWhole("text-whole", composition(true), "draft", true).then(hashes),
      renderWhole("text-bare", composition(false), "draft", true).then(hashes),
    ]);
    expect(whole).toHaveLength(50);
    const drawn = whole.flatMap((h, i) => (h === bare[i] ? [] : [i]));
    const span = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
    // (Frame 5, the first of the fade-in, is fully transparent.)
    expect(drawn).toEqual([...span(6, 20), ...span(30, 40)]);
    // Ranges of 4 frames starting on each of the 3 frames up to every start and end (those
    // of the fading text cut it inside its fades).
    for (const edge of [5, 20, 30, 40]) {
      for (let start = edge - 2; start <= edge; start += 1) {
        const range = { start: start / FPS_TEXT, duration: 4 / FPS_TEXT };
        const part = await hashes(
          await renderWhole(`text-range-${start}`, composition(true), "draft", true, range),
        );
        expect(part, `range from frame ${start}`).toEqual(whole.slice(start, start + 4));
      }
    }
  });
});
