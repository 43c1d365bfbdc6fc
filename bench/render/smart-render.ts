/**
 * Smart rendering against encoding every frame, the render engine alone (no API):
 *
 *   node bench/render/smart-render.ts [--minutes 10] [--width 1920 --height 1080] [--mbps 24 | --crf 20]
 *
 * A camera-like recording (`--minutes` long, 30 fps H.264 High, 2 s closed GOPs, B-frames,
 * grain, AAC) is cut as a cuts-only edit. The recording is encoded as a camera writes it: at
 * `--mbps` Mbit/s (default 24; camcorders and phones write 1080p30 at 16–50 Mbit/s) with a
 * VBV buffer of two seconds at 1.25× that rate; `--crf N` encodes it at CRF N instead (CRF 20
 * makes its grain about 93 Mbit/s at 1080p, a harder case than cameras write). The edit: the ends trimmed, 20 cuts that drop short stretches,
 * the recording's two halves ("takes") in reverse order, a music bed on an audio track. The mp4
 * (`standard`) is rendered twice in one run, with `smartRender: "off"` (one ffmpeg run, every
 * frame encoded) and `"auto"` (GOP indexes read, whole GOPs copied, seams encoded, the sound
 * rendered once, joined). Printed: both wall times and their ratio (target ≥ 10×), the copied
 * share of the output's frames (target ≥ 90 %), the lowest PSNR of a re-encoded seam frame
 * against the same source frame (target ≥ 45 dB), and the load average before and after.
 */
import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Clip, Timeline } from "../../src/domain/composition/schema.ts";
import { buildRenderPlan } from "../../src/domain/render/index.ts";
import { toFrameRate } from "../../src/domain/render/timeline.ts";
import type { RenderOutputOptions, ResolvedAsset } from "../../src/domain/render/types.ts";
import { planRenderSmart, readSourceGops } from "../../src/domain/render-jobs/smart-render.ts";
import { writePlanFiles } from "../../src/domain/render-jobs/write-plan-files.ts";
import { runFfmpeg } from "../../src/media/ffmpeg-run.ts";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { psnr, renderSmartPlan } from "../../test/fixtures/render/smart-media.ts";

const run = promisify(execFile);
const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : def;
};
const MINUTES = flag("--minutes", 10);
const W = flag("--width", 1920);
const H = flag("--height", 1080);
const FPS = 30;
/** CRF of the recording (0: encoded at `MBPS` instead). */
const CRF = flag("--crf", 0);
/** Mbit/s of the recording, unless `--crf`. */
const MBPS = CRF > 0 ? 0 : flag("--mbps", 24);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

/** The recording: moving pattern with grain, 2 s closed GOPs with B-frames, High profile, AAC. */
async function makeRecording(dir: string, seconds: number): Promise<string> {
  const out = join(dir, "recording.mp4");
  await run("ffmpeg", [
    ...["-v", "error", "-y"],
    ...["-f", "lavfi", "-i", `testsrc2=s=${W}x${H}:r=${FPS}:d=${seconds},noise=alls=6:allf=t`],
    ...["-f", "lavfi", "-i", `sine=f=220:r=48000:d=${seconds},volume=0.4`],
    ...["-c:v", "libx264", "-preset", "superfast", "-profile:v", "high", "-bf", "2"],
    ...(MBPS > 0
      ? ["-b:v", `${MBPS}M`, "-maxrate", `${MBPS * 1.25}M`, "-bufsize", `${MBPS * 2.5}M`]
      : ["-crf", String(CRF)]),
    ...["-g", String(2 * FPS), "-keyint_min", String(2 * FPS), "-sc_threshold", "0", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-b:a", "128k", "-shortest", out],
  ]);
  return out;
}

async function makeMusic(dir: string, seconds: number): Promise<string> {
  const out = join(dir, "music.m4a");
  await run("ffmpeg", [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", `sine=f=330:r=48000:d=${seconds},tremolo=f=2,volume=0.2`],
    ...["-c:a", "aac", "-b:a", "128k", out],
  ]);
  return out;
}

/**
 * The cuts-only edit: the recording's halves B then A, each with its ends trimmed and ten short
 * stretches dropped (20 cuts), off keyframes; a music bed under all of it.
 */
function cutsOnly(seconds: number): Timeline {
  const half = seconds / 2;
  const clips: Clip[] = [];
  let at = 0;
  const take = (from: number, to: number, name: string) => {
    // Ten drops of 0.6–1.4 s spread over the take, at positions that miss keyframes.
    const len = to - from;
    let cursor = from;
    for (let i = 1; i <= 10; i++) {
      const cut = from + (len * i) / 11 + 0.37;
      const resume = cut + 0.6 + ((i * 0.13) % 0.8);
      const frames = Math.round((cut - cursor) * FPS);
      if (frames > 0) {
        clips.push({
          id: `${name}${i}`,
          start: at / FPS,
          duration: frames / FPS,
          trim: Math.round(cursor * FPS) / FPS,
          asset: { type: "video", uploadId: "upl_rec" },
        } as Clip);
        at += frames;
      }
      cursor = resume;
    }
    const frames = Math.round((to - cursor) * FPS);
    clips.push({
      id: `${name}end`,
      start: at / FPS,
      duration: frames / FPS,
      trim: Math.round(cursor * FPS) / FPS,
      asset: { type: "video", uploadId: "upl_rec" },
    } as Clip);
    at += frames;
  };
  take(half + 1.23, seconds - 2.71, "b");
  take(3.1, half - 0.53, "a");
  const length = at / FPS;
  return {
    id: "cmp_bench",
    name: "cuts only",
    schemaVersion: 1,
    version: 1,
    canvas: { width: W, height: H, fps: FPS, background: "#000000" },
    tracks: [
      { id: "v", kind: "video", name: "Camera", clips },
      {
        id: "m",
        kind: "audio",
        name: "Music",
        volume: 0.5,
        clips: [{ id: "bed", start: 0, duration: length, asset: { type: "audio", uploadId: "upl_music" } }],
      },
    ],
  } as unknown as Timeline;
}

/**
 * Frames `indexes` (display order, counted from the first decoded frame) of `file` decoded to
 * yuv420p at W×H, by index: one decoding pass with ffmpeg's `select`, so every frame is the one
 * the index names whatever the stream's B-frames, edit list or start time.
 */
async function framesAt(file: string, indexes: readonly number[]): Promise<Map<number, Buffer>> {
  const wanted = [...new Set(indexes)].sort((a, b) => a - b);
  const expr = wanted.map((n) => `eq(n\\,${n})`).join("+");
  const size = (W * H * 3) / 2;
  const { stdout } = await run(
    "ffmpeg",
    [
      ...["-v", "error", "-i", file, "-map", "0:v:0", "-vf", `select='${expr}'`],
      ...["-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"],
    ],
    { encoding: "buffer", maxBuffer: size * wanted.length + 1024 },
  );
  const out = new Map<number, Buffer>();
  for (const [i, n] of wanted.entries()) out.set(n, stdout.subarray(i * size, (i + 1) * size));
  return out;
}

async function main() {
  const seconds = Math.round(MINUTES * 60);
  const { dir, cleanup } = await tempDir("cutroom-smart-bench-");
  try {
    log(`making a ${seconds} s ${W}x${H}p${FPS} recording (load ${load()})`);
    const [recording, music] = await Promise.all([makeRecording(dir, seconds), makeMusic(dir, seconds)]);
    const composition = cutsOnly(seconds);
    const assets = new Map<string, ResolvedAsset>([
      [
        "upl_rec",
        {
          path: recording,
          type: "video",
          name: "recording.mp4",
          media: { duration: seconds, hasAudio: true, width: W, height: H, fps: FPS, videoCodec: "h264" },
        },
      ],
      ["upl_music", { path: music, type: "audio", media: { duration: seconds, hasAudio: true } }],
    ]);
    const output: RenderOutputOptions = { format: "mp4", quality: "standard" };
    const before = load();

    log("rendering with smartRender off");
    const offStart = performance.now();
    const offDir = join(dir, "off");
    const plan = buildRenderPlan({ composition, assets, output, outputPath: "out.mp4" });
    await writePlanFiles(plan, offDir);
    await runFfmpeg({ args: plan.args, cwd: offDir, durationSec: plan.durationSec, stallTimeoutMs: 600_000 });
    const offSec = (performance.now() - offStart) / 1000;

    log("rendering with smartRender auto");
    const autoStart = performance.now();
    const autoDir = join(dir, "auto");
    const gops = await readSourceGops(composition, assets, undefined, output);
    const { whole } = planRenderSmart({ composition, options: output, assets, gops });
    if (!whole.format) {
      // Nothing pays to copy at this size and clip length: `auto` is the ordinary render.
      console.log(`nothing copied: ${JSON.stringify(whole.reasons.slice(0, 3))}`);
      return;
    }
    await mkdir(autoDir, { recursive: true });
    await renderSmartPlan({
      composition,
      assets,
      output,
      plan: whole,
      workDir: autoDir,
      stallTimeoutMs: 600_000,
    });
    const autoSec = (performance.now() - autoStart) / 1000;
    const after = load();

    log("measuring the seams");
    const rate = toFrameRate(FPS);
    const clips = composition.tracks[0]?.clips ?? [];
    // Each seam's first, middle and last frame against the source frame it shows.
    const pairs: [number, number][] = [];
    for (const piece of whole.pieces.filter((p) => p.seam)) {
      const clip = clips.find((c) => {
        const s = Math.round(c.start * FPS);
        return piece.startFrame >= s && piece.startFrame < s + Math.round(c.duration * FPS);
      });
      if (!clip) continue;
      const offset = Math.round((clip.trim ?? 0) * FPS) - Math.round(clip.start * FPS);
      const last = Math.min(piece.endFrame, Math.round((clip.start + clip.duration) * FPS)) - 1;
      for (const o of new Set([piece.startFrame, Math.floor((piece.startFrame + last) / 2), last]))
        pairs.push([o, o + offset]);
    }
    const [outFrames, srcFrames] = await Promise.all([
      framesAt(
        join(autoDir, "out.mp4"),
        pairs.map(([o]) => o),
      ),
      framesAt(
        recording,
        pairs.map(([, s]) => s),
      ),
    ]);
    let worst = Number.POSITIVE_INFINITY;
    for (const [o, s] of pairs) {
      const a = outFrames.get(o);
      const b = srcFrames.get(s);
      if (a?.length && b?.length) worst = Math.min(worst, psnr(a, b));
    }
    const total = whole.copiedFrames + whole.encodedFrames;
    const { stdout: rateOut } = await run("ffprobe", [
      ...["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate", "-of", "csv=p=0"],
      recording,
    ]);
    const result = {
      minutes: MINUTES,
      sourceMbps: Number((Number(rateOut.trim()) / 1e6).toFixed(1)),
      size: `${W}x${H}`,
      fps: `${rate.num}/${rate.den}`,
      clips: clips.length,
      offSec: Number(offSec.toFixed(1)),
      autoSec: Number(autoSec.toFixed(1)),
      speedRatio: Number((offSec / autoSec).toFixed(1)),
      copiedShare: Number((whole.copiedFrames / total).toFixed(4)),
      copiedFrames: whole.copiedFrames,
      encodedFrames: whole.encodedFrames,
      minSeamPsnrDb: Number(worst.toFixed(2)),
      loadBefore: before,
      loadAfter: after,
    };
    console.log(JSON.stringify(result, null, 2));
    if (args.includes("--keep")) {
      const { writeFile } = await import("node:fs/promises");
      await writeFile(join(dir, "plan.json"), JSON.stringify({ composition, whole }));
    }
    console.log(
      `smart render ${result.speedRatio}× faster than encoding every frame (target ≥ 10×), ` +
        `${(result.copiedShare * 100).toFixed(1)} % of frames copied (target ≥ 90 %), ` +
        `lowest seam PSNR ${result.minSeamPsnrDb} dB (target ≥ 45 dB)`,
    );
  } finally {
    if (args.includes("--keep")) log(`kept ${dir}`);
    else await cleanup();
  }
}

await main();
