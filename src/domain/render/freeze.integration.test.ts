import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  canvas,
  clip,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import {
  allFrames,
  type Frame,
  ffmpeg,
  frameNumber,
  meanVolume,
  probe,
  psnr,
  tempDir,
} from "../../../test/fixtures/render/media.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import type { Timeline } from "../composition/schema.ts";
import { writePlanFiles } from "../render-jobs/write-plan-files.ts";
import { buildRenderPlan } from "./plan.ts";
import { type FrameRate, secondsToFrame, toFrameRate } from "./timeline.ts";
import type { RenderOutputOptions } from "./types.ts";

let dir = "";
let cleanup: () => Promise<void> = async () => {};
let source = "";
/** The source's frames 12, 13 (at 0.52 s, the frozen in-point) and 14. */
let sourceFrames: Frame[] = [];
const TRIM = 0.52;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-freeze-"));
  source = join(dir, "source.mp4");
  // 25 fps testsrc2 (a moving picture whose every frame differs) with a 440 Hz tone.
  await ffmpeg([
    ...["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=2"],
    ...["-f", "lavfi", "-i", "sine=f=440:r=48000:d=2"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2"],
    ...["-shortest", source],
  ]);
  sourceFrames = await Promise.all([12, 13, 14].map((n) => frameNumber(source, n, 160, 90)));
});
afterAll(() => cleanup());

/** A playing clip, the frozen clip from 0.4 s to 1.4 s (held frame at 0.52 s), a playing clip. */
function composition(fps: number, transition: boolean): Timeline {
  return {
    canvas: canvas(160, 90, fps),
    tracks: [
      track("video", [
        clip({ start: 0, duration: 0.4, asset: videoAsset("upl_src") }),
        clip({
          start: 0.4,
          duration: 1,
          trim: TRIM,
          freeze: true,
          asset: videoAsset("upl_src"),
          ...(transition ? { transition: { type: "fade" as const, duration: 0.2 } } : {}),
        }),
        clip({ start: 1.4, duration: 0.3, trim: 1, asset: videoAsset("upl_src") }),
      ]),
    ],
  };
}

let renders = 0;
async function render(timeline: Timeline, output: Partial<RenderOutputOptions> = {}) {
  renders += 1;
  const work = join(dir, `r${renders}`);
  const plan = buildRenderPlan({
    composition: timeline,
    assets: new Map([["upl_src", resolvedVideo(source, 2)]]),
    output: { format: "mp4", quality: "lossless", ...output },
    outputPath: "out.mp4",
    names: { assFile: "render.ass", fontsDir: "fonts" },
  });
  await writePlanFiles(plan, work);
  await runFfmpeg({ args: plan.args, cwd: work, durationSec: plan.durationSec, stallTimeoutMs: 30_000 });
  return { file: join(work, "out.mp4"), plan };
}

/** Every frame is the source's frame at the in-point (and not its neighbours). */
function expectFrozen(frames: readonly Frame[]) {
  const [before, held, after] = sourceFrames as [Frame, Frame, Frame];
  expect(frames.length).toBeGreaterThan(0);
  for (const frame of frames) {
    const match = psnr(frame, held);
    expect(match).toBeGreaterThan(40);
    expect(match).toBeGreaterThan(psnr(frame, before) + 10);
    expect(match).toBeGreaterThan(psnr(frame, after) + 10);
  }
}

const frameOf = (seconds: number, rate: FrameRate) => secondsToFrame(seconds, rate);

describe("render: freeze frame", () => {
  it.each([
    [23.976, false],
    [29.97, true],
    [20, false],
  ])(
    "at %s fps holds the in-point's frame for the clip's duration, silent (transition %s)",
    async (fps, transition) => {
      const rate = toFrameRate(fps);
      const { file, plan } = await render(composition(fps, transition));
      const total = frameOf(1.7, rate);
      const info = await probe(file, true);
      expect(info.video?.frames).toBe(total);
      const frames = await allFrames(file, 160, 90);
      expect(frames).toHaveLength(total);
      // The frozen span, after the transition into it when there is one.
      const from = frameOf(transition ? 0.5 : 0.4, rate);
      const to = frameOf(1.4, rate);
      expectFrozen(frames.slice(from, to));
      // The clips around it play: their frames differ from frame to frame.
      expect(psnr(frames[0] as Frame, frames[2] as Frame)).toBeLessThan(30);
      expect(psnr(frames[to] as Frame, frames[to + 2] as Frame)).toBeLessThan(30);
      // The tone sounds before the freeze and is silent through it (clear of the transition).
      expect(await meanVolume(file, 0.05, 0.2)).toBeGreaterThan(-40);
      expect(await meanVolume(file, 0.6, 0.6)).toBeLessThan(-80);
      expect(plan.warnings).toEqual([]);
    },
  );

  it("shows the same frame in a range that starts inside the freeze", async () => {
    const rate = toFrameRate(25);
    const { file } = await render(composition(25, false), { range: { start: 0.8, duration: 0.4 } });
    const frames = await allFrames(file, 160, 90);
    expect(frames).toHaveLength(frameOf(0.4, rate));
    expectFrozen(frames);
  });
});
