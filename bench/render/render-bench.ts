/**
 * Render engine benchmark: plans and runs one composition (two video clips with a centred
 * transition, a still overlay with motion, a caption track and music) at a chosen size and
 * reports the real-time factor. Inputs are generated with ffmpeg first.
 *
 *   node bench/render/render-bench.ts [width=1280] [height=720] [seconds=10] [quality=standard]
 */
import { join } from "node:path";
import { buildRenderPlan } from "../../src/domain/render/index.ts";
import { writePlanFiles } from "../../src/domain/render-jobs/write-plan-files.ts";
import { runFfmpeg } from "../../src/media/ffmpeg-run.ts";
import { ffmpeg, probe, tempDir } from "../../test/fixtures/render/media.ts";

const [width = 1280, height = 720, seconds = 10] = process.argv.slice(2, 5).map(Number);
const quality = (process.argv[5] ?? "standard") as "draft" | "standard" | "high";
const { dir, cleanup } = await tempDir("cutroom-render-bench-");
try {
  const half = seconds / 2 + 1;
  await Promise.all([
    ffmpeg([
      "-f",
      "lavfi",
      "-i",
      `testsrc2=s=${width}x${height}:r=30:d=${half}`,
      "-f",
      "lavfi",
      "-i",
      `sine=f=440:d=${half}`,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-c:a",
      "aac",
      "-shortest",
      join(dir, "a.mp4"),
    ]),
    ffmpeg([
      "-f",
      "lavfi",
      "-i",
      `mandelbrot=s=${width}x${height}:r=30`,
      "-t",
      String(half),
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      join(dir, "b.mp4"),
    ]),
    ffmpeg(["-f", "lavfi", "-i", "color=c=orange:s=400x400", "-frames:v", "1", join(dir, "logo.png")]),
    ffmpeg(["-f", "lavfi", "-i", `sine=f=220:d=${seconds}`, join(dir, "music.wav")]),
  ]);
  const media = (duration: number | null, hasAudio: boolean) => ({ duration, hasAudio, width, height });
  const assets = new Map([
    ["a", { path: join(dir, "a.mp4"), type: "video" as const, media: media(half, true) }],
    ["b", { path: join(dir, "b.mp4"), type: "video" as const, media: media(half, false) }],
    [
      "logo",
      {
        path: join(dir, "logo.png"),
        type: "image" as const,
        media: { duration: null, hasAudio: false, width: 400, height: 400 },
      },
    ],
    [
      "music",
      { path: join(dir, "music.wav"), type: "audio" as const, media: { duration: seconds, hasAudio: true } },
    ],
  ]);
  const cues = Array.from({ length: Math.floor(seconds) }, (_, i) => ({
    start: i,
    end: i + 1,
    text: `Caption number ${i + 1}`,
  }));
  const plan = buildRenderPlan({
    composition: {
      canvas: { width, height, fps: 30, background: "#000000" },
      tracks: [
        {
          id: "v",
          kind: "video",
          clips: [
            { id: "c1", start: 0, duration: seconds / 2, asset: { type: "video", uploadId: "a" } },
            {
              id: "c2",
              start: seconds / 2,
              duration: seconds / 2,
              trim: 0.5,
              asset: { type: "video", uploadId: "b" },
              transition: { type: "dissolve", duration: 1 },
            },
          ],
        },
        {
          id: "o",
          kind: "video",
          clips: [
            {
              id: "l",
              start: 1,
              duration: seconds - 2,
              asset: { type: "image", uploadId: "logo" },
              transform: { x: 0.85, y: 0.2, width: 0.15 },
              motion: { type: "zoomIn" },
              fadeIn: 0.5,
            },
          ],
        },
        {
          id: "t",
          kind: "video",
          clips: [
            {
              id: "cap",
              start: 0,
              duration: seconds,
              asset: {
                type: "caption",
                mode: "karaoke",
                style: { family: "sans", size: 48, stroke: { color: "#000000", width: 3 } },
                source: { cues },
              },
            },
          ],
        },
        {
          id: "m",
          kind: "audio",
          ducking: { under: ["v"] },
          clips: [{ id: "mu", start: 0, duration: seconds, asset: { type: "audio", uploadId: "music" } }],
        },
      ],
    },
    assets,
    output: { format: "mp4", quality },
    outputPath: "out.mp4",
  });
  await writePlanFiles(plan, dir);
  const started = Date.now();
  await runFfmpeg({ args: plan.args, cwd: dir, durationSec: plan.durationSec });
  const elapsed = (Date.now() - started) / 1000;
  const info = await probe(join(dir, "out.mp4"));
  console.log(
    JSON.stringify({
      width,
      height,
      seconds,
      quality,
      elapsedSec: elapsed,
      realtimeFactor: seconds / elapsed,
      output: info,
    }),
  );
} finally {
  await cleanup();
}
