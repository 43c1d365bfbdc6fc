// Scene-cut precision/recall and silence-boundary error of the upload analysis on generated
// footage with known cuts and silences: shots of different lavfi sources (some in motion) of
// seeded random lengths, audio of tones and silences of seeded random lengths.
// Usage: node bench/transcription/scenes-silences.ts [--clips 6] [--shots 8]
import path from "node:path";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { analyzeMedia } from "../../src/media/analysis/analyze.ts";
import { ffmpeg, tempDir } from "../../test/fixtures/render/media.ts";

const { values } = parseArgs({
  options: { clips: { type: "string", default: "6" }, shots: { type: "string", default: "8" } },
});
const SOURCES = [
  "testsrc2=s=320x180:r=25",
  "smptebars=s=320x180:r=25",
  "mandelbrot=s=320x180:r=25",
  "rgbtestsrc=s=320x180:r=25",
  "testsrc=s=320x180:r=25",
  "pal100bars=s=320x180:r=25",
  "gradients=s=320x180:r=25:speed=0.05",
  "color=c=0x335577:s=320x180:r=25",
];
const plans = fc.sample(
  fc.record({
    shots: fc.array(
      fc.tuple(fc.integer({ min: 0, max: SOURCES.length - 1 }), fc.integer({ min: 20, max: 90 })),
      {
        minLength: Number(values.shots),
        maxLength: Number(values.shots),
      },
    ),
    audio: fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 60, max: 300 })), {
      minLength: 6,
      maxLength: 6,
    }),
  }),
  { seed: 42, numRuns: Number(values.clips) },
);
const { dir, cleanup } = await tempDir("cutroom-scenes-bench-");
let tp = 0;
let fp = 0;
let fn = 0;
const boundaryErrors: number[] = [];
try {
  for (const [n, plan] of plans.entries()) {
    // Neighbouring shots from different sources (a cut between two shots of one source is no cut).
    let prev = -1;
    const shots = plan.shots.map(([s, frames]) => {
      prev = prev < 0 ? s : (prev + 1 + (s % (SOURCES.length - 1))) % SOURCES.length;
      return [prev, frames] as const;
    });
    const audio = plan.audio.map(([, hundredths], i) => [i % 2 === 0, hundredths / 100] as const);
    const file = path.join(dir, `clip-${n}.mov`);
    const videoSeconds = shots.reduce((a, [, f]) => a + f / 25, 0);
    const audioSeconds = audio.reduce((a, [, d]) => a + d, 0);
    await ffmpeg([
      "-y",
      ...shots.flatMap(([s, f]) => [
        "-f",
        "lavfi",
        "-i",
        `${SOURCES[s]},trim=end_frame=${f},setpts=PTS-STARTPTS`,
      ]),
      ...audio.flatMap(([tone, d]) => [
        "-f",
        "lavfi",
        "-i",
        tone ? `sine=f=500:r=48000:d=${d}` : `anullsrc=r=48000:cl=mono:d=${d}`,
      ]),
      "-filter_complex",
      `${shots.map((_, i) => `[${i}:v]`).join("")}concat=n=${shots.length}:v=1:a=0[v];${audio
        .map((_, i) => `[${shots.length + i}:a]`)
        .join("")}concat=n=${audio.length}:v=0:a=1[a]`,
      ...[
        "-map",
        "[v]",
        "-map",
        "[a]",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "pcm_s16le",
      ],
      file,
    ]);
    const result = await analyzeMedia(
      file,
      { duration: Math.max(videoSeconds, audioSeconds), hasVideo: true, hasAudio: true },
      { sceneThreshold: 0.3, silenceThresholdDb: -35, silenceMinDuration: 0.5 },
      { workDir: dir, timeoutMs: 120_000 },
    );
    let t = 0;
    const truth = shots.slice(0, -1).map(([, f]) => (t += f / 25));
    const found = result.scenes?.cuts.map((c) => c.time) ?? [];
    const matched = new Set<number>();
    for (const cut of truth) {
      const hit = found.findIndex((x, i) => !matched.has(i) && Math.abs(x - cut) <= 1 / 25 + 1e-6);
      if (hit >= 0) {
        matched.add(hit);
        tp++;
      } else {
        fn++;
        const i = truth.indexOf(cut);
        console.log(
          `missed cut at ${cut.toFixed(2)} s: ${SOURCES[shots[i]?.[0] ?? 0]} → ${SOURCES[shots[i + 1]?.[0] ?? 0]}`,
        );
      }
    }
    fp += found.length - matched.size;
    let a = 0;
    const silences = audio.flatMap(([tone, d]) => {
      const r = { start: a, end: a + d };
      a += d;
      return tone || d < 0.5 ? [] : [r];
    });
    for (const s of silences) {
      const near = result.silences?.ranges.find((r) => Math.abs(r.start - s.start) < 0.3);
      if (!near) {
        boundaryErrors.push(Number.POSITIVE_INFINITY);
        continue;
      }
      boundaryErrors.push(
        Math.abs(near.start - s.start),
        Math.abs(Math.min(near.end, a) - Math.min(s.end, a)),
      );
    }
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  console.log(
    `scene cuts: ${tp + fn} true, ${tp + fp} found; precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}, F1 ${((2 * precision * recall) / (precision + recall)).toFixed(3)}`,
  );
  console.log(
    `silence boundaries: ${boundaryErrors.length}, worst error ${(Math.max(...boundaryErrors) * 1000).toFixed(1)} ms, mean ${((boundaryErrors.reduce((x, y) => x + y, 0) / boundaryErrors.length) * 1000).toFixed(1)} ms`,
  );
} finally {
  await cleanup();
}
