// Offline still→video at 1080p, 8 s, 24 fps against the encode-only floor (ffmpeg encoding
// 8 s of 1080p24 testsrc2 with the same x264 settings), alternated in one run.
// With --one-process, also one ffmpeg process doing the same move (the `perspective` filter with
// per-frame sub-pixel corners from the same eased window, on the still scaled once to the output
// size), to weigh one mechanism against the custom resampler.
// Usage: node bench/generation/ken-burns-bench.ts [--rounds 3] [--one-process]
import { execFile } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { KEN_BURNS_X264_ARGS, renderKenBurns } from "../../src/domain/generation/providers/ken-burns.ts";
import { KEN_BURNS_MAX_ZOOM } from "../../src/domain/generation/providers/ken-burns-move.ts";
import { ffmpeg, probe, tempDir } from "../../test/fixtures/render/media.ts";

const run = promisify(execFile);
const { values } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, "one-process": { type: "boolean", default: false } },
});
const rounds = Number(values.rounds);
const { dir, cleanup } = await tempDir("cutroom-kb-bench-");
const cpu = async () => {
  const { stdout } = await run("cat", ["/proc/stat"]);
  const f = (stdout.split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  return {
    busy: (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0),
    steal: f[7] ?? 0,
    all: f.reduce((a, b) => a + b, 0),
  };
};

/** CPU seconds of this process and its reaped children (/proc/self/stat utime+stime+cutime+cstime). */
async function cpuSeconds(): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const stat = await readFile("/proc/self/stat", "utf8");
  const f = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  // Fields 14–17 of proc(5), counted from the state field (index 0 = field 3).
  return ((f[11] ?? 0) + (f[12] ?? 0) + (f[13] ?? 0) + (f[14] ?? 0)) / 100;
}

try {
  const still = path.join(dir, "still.png");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=3000x2000", "-frames:v", "1", still]);
  const floor: number[] = [];
  const kb: number[] = [];
  const floorCpu: number[] = [];
  const kbCpu: number[] = [];
  const one: number[] = [];
  const oneCpu: number[] = [];
  const before = await cpu();
  for (let r = 0; r < rounds; r++) {
    let c0 = await cpuSeconds();
    let t0 = performance.now();
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=1920x1080:r=24:d=8",
      ...KEN_BURNS_X264_ARGS,
      path.join(dir, "floor.mp4"),
    ]);
    floor.push((performance.now() - t0) / 1000);
    floorCpu.push((await cpuSeconds()) - c0);
    c0 = await cpuSeconds();
    t0 = performance.now();
    await renderKenBurns({
      input: still,
      output: path.join(dir, "kb.mp4"),
      width: 1920,
      height: 1080,
      fps: 24,
      duration: 8,
    });
    kb.push((performance.now() - t0) / 1000);
    kbCpu.push((await cpuSeconds()) - c0);
    if (values["one-process"]) {
      c0 = await cpuSeconds();
      t0 = performance.now();
      await ffmpeg(onePerspectiveArgs(still, path.join(dir, "one.mp4"), 1920, 1080, 24, 8));
      one.push((performance.now() - t0) / 1000);
      oneCpu.push((await cpuSeconds()) - c0);
      console.log(
        `round ${r + 1}: one ffmpeg process ${one.at(-1)?.toFixed(2)} s (CPU ${oneCpu.at(-1)?.toFixed(2)} s)`,
      );
    }
    console.log(
      `round ${r + 1}: floor ${floor.at(-1)?.toFixed(2)} s (CPU ${floorCpu.at(-1)?.toFixed(2)} s), ken burns ${kb.at(-1)?.toFixed(2)} s (CPU ${kbCpu.at(-1)?.toFixed(2)} s): ${((kb.at(-1) ?? 0) / (floor.at(-1) ?? 1)).toFixed(2)}x`,
    );
  }
  const after = await cpu();
  const p = await probe(path.join(dir, "kb.mp4"), true);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  // Per-round ratios: a load change between rounds moves both sides of a round alike.
  const ratio = median(kb.map((k, i) => k / (floor[i] as number)));
  const cpuRatio = median(kbCpu.map((k, i) => k / (floorCpu[i] as number)));
  console.log(
    `output: ${p.video?.width}x${p.video?.height}, ${p.video?.fps} fps, ${p.video?.frames} frames, ${p.duration} s`,
  );
  console.log(
    `floor (encode-only) median ${median(floor).toFixed(2)} s; offline ken burns median ${median(kb).toFixed(2)} s`,
  );
  console.log(
    `wall-clock ratio, median of rounds ${ratio.toFixed(2)}x (target <= 1.3x): ${ratio <= 1.3 ? "met" : "NOT met"}`,
  );
  console.log(`CPU-time ratio, median of rounds ${cpuRatio.toFixed(2)}x`);
  if (one.length > 0) {
    const oneRatio = median(one.map((o, i) => o / (floor[i] as number)));
    const oneCpuRatio = median(oneCpu.map((o, i) => o / (floorCpu[i] as number)));
    console.log(
      `one ffmpeg process: wall ratio ${oneRatio.toFixed(2)}x, CPU-time ratio ${oneCpuRatio.toFixed(2)}x (target <= 1.5x): ${oneCpuRatio <= 1.5 ? "met" : "NOT met"}`,
    );
  }
  const all = after.all - before.all;
  console.log(
    `load average ${loadavg()[0]?.toFixed(1)}; CPU steal during the run ${((100 * (after.steal - before.steal)) / all).toFixed(1)} %`,
  );
} finally {
  await cleanup();
}

/**
 * ffmpeg arguments of the same Ken Burns move in one process: the still scaled once to cover
 * the output (Lanczos, centre crop), repeated by the `loop` filter, and `perspective` (bilinear, per-frame corners)
 * showing the window of frame `in` eased like `kenBurnsWindow` (zoom to 1.15, drift right/up).
 */
function onePerspectiveArgs(still: string, out: string, w: number, h: number, fps: number, seconds: number) {
  const frames = fps * seconds;
  const z = KEN_BURNS_MAX_ZOOM - 1;
  const e = `(0.5-0.5*cos(PI*in/${frames - 1}))`;
  const zoom = `(1+${z}*${e})`;
  const sx = (w - w / KEN_BURNS_MAX_ZOOM) / 2;
  const sy = (h - h / KEN_BURNS_MAX_ZOOM) / 2;
  const left = `(W/2+${0.6 * sx}*${e}-W/${zoom}/2)`;
  const top = `(H/2-${0.4 * sy}*${e}-H/${zoom}/2)`;
  const right = `(${left}+W/${zoom})`;
  const bottom = `(${top}+H/${zoom})`;
  const corners = `x0='${left}':y0='${top}':x1='${right}':y1='${top}':x2='${left}':y2='${bottom}':x3='${right}':y3='${bottom}'`;
  return [
    ...["-i", still],
    "-vf",
    // `loop` repeats the scaled frame, so the still is decoded and scaled once.
    `scale=${w}:${h}:force_original_aspect_ratio=increase:flags=lanczos,crop=${w}:${h},format=yuv420p,loop=loop=${frames - 1}:size=1:start=0,setpts=N/(${fps}*TB),perspective=${corners}:interpolation=linear:sense=source:eval=frame`,
    ...["-r", String(fps)],
    ...["-frames:v", String(frames), ...KEN_BURNS_X264_ARGS, out],
  ];
}
