/**
 * Reframing on footage with known face positions: a face photograph (from the face-api npm
 * package) panning across a 16:9 frame, out and back with a cut between. One command:
 * `node bench/analysis/reframe.ts [--seconds 12] [--width 1280]`.
 *
 * Runs the reframe step's own pieces (frame sampling, the face detector on its worker thread,
 * shot framing) for a 9:16 window, then prints:
 * - the share of output frames (25 fps) whose known face box lies wholly inside the window the
 *   keyframes give (target ≥ 95 %);
 * - the same measured on pixels: the source cropped by the renderer's own crop expression
 *   (`reframeCrop`), every output frame given to the detector: of the frames where it finds the
 *   face (it misses some on the source too), the share where the face lies wholly inside;
 * - the detector's throughput (sampled frames per second, wall time; the first batch, which
 *   loads the model, is timed separately).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { frameShot } from "../../src/domain/reframe/shot-framing.ts";
import { lumaThumbnail } from "../../src/domain/reframe/track.ts";
import { reframeCrop } from "../../src/domain/render/reframe-crop.ts";
import { createFaceDetector } from "../../src/media/faces/detector.ts";
import { sampleFrames } from "../../src/media/faces/frames.ts";
import { faceRect, keyframeCentre, panningFace } from "../../test/fixtures/reframe/footage.ts";
import { ffmpeg } from "../../test/fixtures/render/media.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "12" }, width: { type: "string", default: "1280" } },
});
const seconds = Number(values.seconds);
const width = Number(values.width);
const dir = await mkdtemp(path.join(tmpdir(), "cutroom-bench-reframe-"));
const detector = createFaceDetector({ threads: 1 });
try {
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const footage = await panningFace(dir, { width, duration: seconds });
  const rate = 4;
  const detW = 416;
  const detH = Math.round((detW * footage.height) / footage.width / 2) * 2;
  const frames = await sampleFrames(footage.file, {
    start: 0,
    duration: seconds,
    fps: rate,
    width: detW,
    height: detH,
    timeoutMs: 600_000,
  });
  const bytes = detW * detH * 3;
  const t0 = performance.now();
  const first = await detector.detect({ ...frames, rgb: frames.rgb.subarray(0, bytes), count: 1 });
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  const rest = await detector.detect({ ...frames, rgb: frames.rgb.subarray(bytes), count: frames.count - 1 });
  const detectSec = (performance.now() - t1) / 1000;
  const faces = [...first, ...rest];

  const aspect = 9 / 16;
  const bounds = [0, ...footage.cuts, seconds];
  const keyframes = bounds.slice(0, -1).flatMap((start, i) => {
    const shot = { start, end: bounds[i + 1] as number };
    const idx = frames.times.flatMap((t, k) => (t >= shot.start && t < shot.end ? [k] : []));
    return frameShot({
      samples: idx.map((k) => faces[k] ?? []),
      times: idx.map((k) => frames.times[k] as number),
      rate,
      shot,
      source: { width: footage.width, height: footage.height },
      aspect,
      luma: {
        width: Math.floor(detW / 4),
        height: Math.floor(detH / 4),
        frames: idx.map((k) => lumaThumbnail(frames.rgb, k, detW, detH, 4)),
      },
    }).keyframes;
  });

  // Known positions against the window.
  const windowW = (footage.height * aspect) / footage.width;
  const total = Math.round(seconds * footage.fps);
  let inside = 0;
  for (let f = 0; f < total; f += 1) {
    const t = f / footage.fps;
    const cx = Math.min(1 - windowW / 2, Math.max(windowW / 2, keyframeCentre(keyframes, t).x));
    const r = faceRect(footage.faces[0] as (typeof footage.faces)[number], t);
    if (r.x0 / footage.width >= cx - windowW / 2 && r.x1 / footage.width <= cx + windowW / 2) inside += 1;
  }

  // Pixels: the renderer's crop expression, then the detector on every output frame.
  const outW = 234;
  const outH = 416;
  const cropped = path.join(dir, "cropped.mp4");
  const crop = reframeCrop(keyframes, aspect, { a: 0, b: 1 / footage.fps, from: 0, to: seconds });
  await ffmpeg([
    "-i",
    footage.file,
    "-filter_complex",
    `[0:v]${crop},scale=${outW}:${outH}[v]`,
    ...["-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", cropped],
  ]);
  const out = await sampleFrames(cropped, {
    start: 0,
    duration: seconds,
    fps: footage.fps,
    width: outW,
    height: outH,
    timeoutMs: 600_000,
  });
  const found = (await detector.detect(out)).filter((fs) => fs.length > 0);
  const whole = found.filter((fs) =>
    fs.some((b) => b.x > 0.005 && b.x + b.w < 0.995 && b.y > 0.005 && b.y + b.h < 0.995),
  ).length;

  console.log(
    `footage: ${footage.width}x${footage.height}, ${seconds} s at 25 fps, ${footage.cuts.length + 1} shots`,
  );
  console.log(`keyframes: ${keyframes.length}`);
  console.log(
    `face inside the 9:16 window (known positions): ${((100 * inside) / total).toFixed(1)} % of ${total} frames (target ≥ 95 %)`,
  );
  console.log(
    `face found wholly inside the cropped output (detector): ${((100 * whole) / found.length).toFixed(1)} % of the ${found.length} of ${out.count} frames where it finds a face (target ≥ 95 %)`,
  );
  console.log(
    `detector: ${((frames.count - 1) / detectSec).toFixed(2)} frames/s (${frames.count - 1} frames of ${detW}x${detH}, input size 416, one thread); first frame with model load ${loadMs.toFixed(0)} ms`,
  );
  console.log(
    `sampling at ${rate}/s: ${(rate / ((frames.count - 1) / detectSec)).toFixed(2)} s of detection per second of footage`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await detector.close();
  await rm(dir, { recursive: true, force: true });
}
