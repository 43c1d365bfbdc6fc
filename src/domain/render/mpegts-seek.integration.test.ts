// MPEG-TS keeps no index: ffmpeg's input seek bisects the file by timestamps and lands on any
// packet before the time, so decoding started at the next keyframe (a clip trimmed into a GOP
// showed later frames) or nowhere (a clip trimmed into the last GOP had no picture). A clip of a
// `.ts` must show exactly the frames and sound the same stream remuxed into mp4 shows, with the
// upload's kept keyframe index and without it.
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matrixSeed } from "../../../test/fixtures/render/arbitraries.ts";
import { decodeAudio } from "../../../test/fixtures/render/matrix-check.ts";
import { ffmpeg, tempDir } from "../../../test/fixtures/render/media.ts";
import { frameMd5 } from "../../../test/fixtures/render/seams.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import { probeKeyframes } from "../../media/keyframes.ts";
import { probeMedia } from "../../media/probe.ts";
import type { Timeline } from "../composition/schema.ts";
import { writePlanFiles } from "../render-jobs/write-plan-files.ts";
import { buildRenderPlan } from "./plan.ts";
import type { ResolvedAsset } from "./types.ts";

/** Source length (s): 23.976 fps, GOPs of 60 frames (2.5 s), B-frames: keyframes at 0 and 2.5 s. */
const LENGTH = 4.171;

let dir = "";
let cleanup: () => Promise<void> = async () => {};
const assets = new Map<string, ResolvedAsset>();

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-mpegts-seek-"));
  const ts = join(dir, "camera.ts");
  const mp4 = join(dir, "camera.mp4");
  await ffmpeg([
    ...["-f", "lavfi", "-i", `testsrc2=s=128x72:r=24000/1001:d=${LENGTH}`],
    ...["-f", "lavfi", "-i", `aevalsrc='0.5*sin(2*PI*(300+200*t)*t)':s=48000:d=${LENGTH}`],
    ...["-c:v", "libx264", "-preset", "faster", "-bf", "2", "-g", "60", "-sc_threshold", "0"],
    ...["-c:a", "aac", "-shortest", "-f", "mpegts", ts],
  ]);
  // The same packets in a container with an index: what a right seek shows.
  await ffmpeg(["-i", ts, "-c", "copy", mp4]);
  for (const [key, path] of [
    ["ts", ts],
    ["mp4", mp4],
  ] as const) {
    const media = await probeMedia(path);
    assets.set(key, { path, type: "video", media });
    if (key === "ts") {
      assets.set("ts-indexed", { path, type: "video", media, keyframes: await probeKeyframes(path) });
    }
  }
}, 60_000);
afterAll(() => cleanup());

function clipOf(uploadId: string, trim: number, duration: number, speed: number): Timeline {
  return {
    canvas: { width: 128, height: 72, fps: 24000 / 1001, background: "#000000" },
    tracks: [
      {
        id: "v",
        kind: "video",
        clips: [
          {
            id: "c",
            start: 0,
            duration,
            trim,
            ...(speed !== 1 ? { speed } : {}),
            asset: { type: "video", uploadId },
          },
        ],
      },
    ],
  };
}

/** Renders the clip of `uploadId` losslessly; its frames' md5 and its sound (48 kHz mono samples). */
async function render(uploadId: string, trim: number, duration: number, speed: number, tag: string) {
  const work = join(dir, tag);
  const plan = buildRenderPlan({
    composition: clipOf(uploadId, trim, duration, speed),
    assets,
    output: { format: "mp4", quality: "draft" },
    outputPath: "out.mp4",
    variant: { lossless: true },
  });
  await writePlanFiles(plan, work);
  await runFfmpeg({ args: plan.args, cwd: work, durationSec: plan.durationSec, stallTimeoutMs: 60_000 });
  const out = join(work, "out.mp4");
  return { frames: await frameMd5(out), sound: await decodeAudio(out) };
}

/**
 * The shift (whole samples, within ±10 ms) that best lines `b` up with `a`, and the mean
 * absolute difference there. The TS's 90 kHz clock puts its samples between the mp4's by a
 * fraction of a sample, so the sounds are compared by alignment, not bit for bit.
 */
function alignment(a: Float32Array, b: Float32Array): { lag: number; error: number } {
  const n = Math.min(a.length, b.length) - 2 * 480;
  let best = { lag: 0, error: Number.POSITIVE_INFINITY };
  for (let lag = -480; lag <= 480; lag += 1) {
    let sum = 0;
    for (let i = 480; i < 480 + n; i += 1) sum += Math.abs((a[i] as number) - (b[i + lag] as number));
    if (sum / n < best.error) best = { lag, error: sum / n };
  }
  return best;
}

/** Expects the clip rendered from the `.ts` (with and without its index) to equal the mp4's. */
async function expectSameAsMp4(trim: number, duration: number, speed: number, tag: string) {
  const reference = await render("mp4", trim, duration, speed, `${tag}-mp4`);
  expect(reference.frames.length).toBe(Math.round((duration * 24000) / 1001));
  for (const key of ["ts", "ts-indexed"]) {
    const got = await render(key, trim, duration, speed, `${tag}-${key}`);
    expect(got.frames, `${key} trimmed at ${trim} s`).toEqual(reference.frames);
    expect(got.sound.length).toBe(reference.sound.length);
    // Within a sample (the clocks differ by a fraction of one); the chirp's amplitude is 0.5, so
    // sound from elsewhere in it differs by about 0.3.
    const { lag, error } = alignment(reference.sound, got.sound);
    expect(Math.abs(lag), `${key} trimmed at ${trim} s: sound shifted`).toBeLessThanOrEqual(1);
    expect(error, `${key} trimmed at ${trim} s: other sound`).toBeLessThan(0.05);
  }
}

describe("clips of an MPEG-TS source", () => {
  it("seeks into the last GOP and shows its frames (nothing decoded before)", async () => {
    await expectSameAsMp4(3.8, 0.3, 1, "last-gop");
  }, 60_000);

  it("seeks into the middle of a GOP and shows that GOP's frames, not the next keyframe's", async () => {
    await expectSameAsMp4(2.2, 0.6, 1, "mid-gop");
  }, 60_000);

  it("shows the same frames and sound as the mp4 at any trim and speed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: LENGTH - 0.4, noNaN: true }),
        fc.constantFrom(1, 0.5, 1.5),
        async (trim, speed) => {
          const t = Math.round(trim * 1000) / 1000;
          const duration = Math.min(0.4, (LENGTH - t) / speed - 0.05);
          await expectSameAsMp4(t, Math.round(duration * 1000) / 1000, speed, `p-${t}-${speed}`);
        },
      ),
      { seed: matrixSeed(), numRuns: 4 },
    );
  }, 120_000);
});
