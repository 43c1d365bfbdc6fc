// Offline still→video at 1080p, 8 s, 24 fps against the encode-only floor (ffmpeg encoding
// 8 s of 1080p24 testsrc2 with the same x264 settings), alternated in one run.
// Usage: node bench/generation/ken-burns-bench.ts [--rounds 3]
import { execFile } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { KEN_BURNS_X264_ARGS, renderKenBurns } from "../../src/domain/generation/providers/ken-burns.ts";
import { ffmpeg, probe, tempDir } from "../../test/fixtures/render/media.ts";

const run = promisify(execFile);
const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
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

try {
  const still = path.join(dir, "still.png");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=3000x2000", "-frames:v", "1", still]);
  const floor: number[] = [];
  const kb: number[] = [];
  const before = await cpu();
  for (let r = 0; r < rounds; r++) {
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
    console.log(`round ${r + 1}: floor ${floor.at(-1)?.toFixed(2)} s, ken burns ${kb.at(-1)?.toFixed(2)} s`);
  }
  const after = await cpu();
  const p = await probe(path.join(dir, "kb.mp4"), true);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const ratio = median(kb) / median(floor);
  console.log(
    `output: ${p.video?.width}x${p.video?.height}, ${p.video?.fps} fps, ${p.video?.frames} frames, ${p.duration} s`,
  );
  console.log(
    `floor (encode-only) median ${median(floor).toFixed(2)} s; offline ken burns median ${median(kb).toFixed(2)} s`,
  );
  console.log(`ratio ${ratio.toFixed(2)}x (target <= 1.3x): ${ratio <= 1.3 ? "met" : "NOT met"}`);
  const all = after.all - before.all;
  console.log(
    `load average ${loadavg()[0]?.toFixed(1)}; CPU steal during the run ${((100 * (after.steal - before.steal)) / all).toFixed(1)} %`,
  );
} finally {
  await cleanup();
}
