// The Ken Burns resampler, WebAssembly SIMD kernel against the JavaScript path it falls back to,
// alternated in one run on one thread: the frames of the offline video (1920×1080 output from the
// 2208×1242 prepared still, 8 s at 24 fps, three YUV 4:2:0 planes), CPU time of this thread per
// path and round, and the largest difference between the two outputs.
// Usage: node bench/generation/resample-bench.ts [--rounds 5] [--frames 192]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { kenBurnsWindow } from "../../src/domain/generation/providers/ken-burns-move.ts";
import { resamplePlane } from "../../src/domain/generation/providers/resample-plane.ts";
import { createSimdResampler, resamplerModule } from "../../src/domain/generation/providers/resample-simd.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "5" }, frames: { type: "string", default: "192" } },
});
const rounds = Number(values.rounds);
const frames = Number(values.frames);
const [outW, outH, srcW, srcH] = [1920, 1080, 2208, 1242];

/** A plane with gradients and pseudo-random texture. */
function plane(width: number, height: number, seed: number): Uint8Array {
  const p = new Uint8Array(width * height);
  for (let i = 0; i < p.length; i++) {
    p[i] =
      ((i % width) * 3 + Math.floor(i / width) * 5 + ((Math.imul(i + seed, 2654435761) >>> 28) & 15)) & 255;
  }
  return p;
}

const still = [plane(srcW, srcH, 1), plane(srcW / 2, srcH / 2, 2), plane(srcW / 2, srcH / 2, 3)] as const;
const module = await resamplerModule();
if (!module) throw new Error("this runtime cannot run the WebAssembly SIMD resampler");
const simd = createSimdResampler(
  module,
  [
    { data: still[0], width: srcW, height: srcH },
    { data: still[1], width: srcW / 2, height: srcH / 2 },
    { data: still[2], width: srcW / 2, height: srcH / 2 },
  ],
  [
    { width: outW, height: outH },
    { width: outW / 2, height: outH / 2 },
    { width: outW / 2, height: outH / 2 },
  ],
);
const luma = outW * outH;
const simdOut = new Uint8Array(luma * 1.5);
const jsOut = new Uint8Array(luma * 1.5);

/** One frame the way the resampling thread writes it without the kernel. */
function jsFrame(n: number): void {
  const win = kenBurnsWindow(n, frames, srcW, srcH);
  const half = { left: win.left / 2, top: win.top / 2, width: win.width / 2, height: win.height / 2 };
  resamplePlane(still[0], srcW, srcH, win, jsOut.subarray(0, luma), outW, outH);
  resamplePlane(still[1], srcW / 2, srcH / 2, half, jsOut.subarray(luma, luma * 1.25), outW / 2, outH / 2);
  resamplePlane(still[2], srcW / 2, srcH / 2, half, jsOut.subarray(luma * 1.25), outW / 2, outH / 2);
}

function simdFrame(n: number): void {
  if (!simd.frame(kenBurnsWindow(n, frames, srcW, srcH), simdOut)) throw new Error(`frame ${n} not taken`);
}

/** CPU seconds this process spends running `frame` over every frame. */
function cpuSeconds(frame: (n: number) => void): number {
  const t0 = process.cpuUsage();
  for (let n = 0; n < frames; n++) frame(n);
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1e6;
}

let maxDiff = 0;
for (const n of [0, Math.floor(frames / 2), frames - 1]) {
  jsFrame(n);
  simdFrame(n);
  for (let i = 0; i < jsOut.length; i++)
    maxDiff = Math.max(maxDiff, Math.abs((jsOut[i] as number) - (simdOut[i] as number)));
}
const js: number[] = [];
const wasm: number[] = [];
for (let r = 0; r < rounds; r++) {
  js.push(cpuSeconds(jsFrame));
  wasm.push(cpuSeconds(simdFrame));
  console.log(
    `round ${r + 1}: JavaScript ${js.at(-1)?.toFixed(2)} CPU s, SIMD ${wasm.at(-1)?.toFixed(2)} CPU s (${((js.at(-1) ?? 0) / (wasm.at(-1) ?? 1)).toFixed(1)}x)`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(
  `${frames} frames of ${outW}x${outH}: JavaScript median ${median(js).toFixed(2)} CPU s (${((1000 * median(js)) / frames).toFixed(1)} ms/frame), SIMD median ${median(wasm).toFixed(2)} CPU s (${((1000 * median(wasm)) / frames).toFixed(2)} ms/frame)`,
);
console.log(
  `SIMD saves ${(median(js) - median(wasm)).toFixed(2)} CPU s per ${frames} frames; speed-up, median of rounds ${median(js.map((j, i) => j / (wasm[i] as number))).toFixed(1)}x; largest difference ${maxDiff} levels; load average ${loadavg()[0]?.toFixed(1)}`,
);
