// Worker thread of the Ken Burns renderer: resamples frames from the shared still into shared
// frame slots (see renderKenBurns). Messages: { n, slot } in, { n } out when the slot holds frame n.
import { parentPort, workerData } from "node:worker_threads";
import { type KenBurnsWindow, kenBurnsWindow } from "./ken-burns-move.ts";
import { resamplePlane } from "./resample-plane.ts";
import { createSimdResampler } from "./resample-simd.ts";

/** What the thread is started with. */
export interface KenBurnsThreadData {
  still: SharedArrayBuffer;
  frames: SharedArrayBuffer;
  srcW: number;
  srcH: number;
  width: number;
  height: number;
  frameCount: number;
  /** The compiled SIMD resampler (`resamplerModule`), or null to resample in JavaScript. */
  wasm: WebAssembly.Module | null;
}

const d = workerData as KenBurnsThreadData;
const lumaSize = d.srcW * d.srcH;
const chromaSize = (d.srcW / 2) * (d.srcH / 2);
const planes = [
  new Uint8Array(d.still, 0, lumaSize),
  new Uint8Array(d.still, lumaSize, chromaSize),
  new Uint8Array(d.still, lumaSize + chromaSize, chromaSize),
];
const outLuma = d.width * d.height;
const frameSize = outLuma * 1.5;
const simd = d.wasm
  ? createSimdResampler(
      d.wasm,
      [
        { data: planes[0] as Uint8Array, width: d.srcW, height: d.srcH },
        { data: planes[1] as Uint8Array, width: d.srcW / 2, height: d.srcH / 2 },
        { data: planes[2] as Uint8Array, width: d.srcW / 2, height: d.srcH / 2 },
      ],
      [
        { width: d.width, height: d.height },
        { width: d.width / 2, height: d.height / 2 },
        { width: d.width / 2, height: d.height / 2 },
      ],
    )
  : null;

parentPort?.on("message", ({ n, slot }: { n: number; slot: number }) => {
  const base = slot * frameSize;
  const win: KenBurnsWindow = kenBurnsWindow(n, d.frameCount, d.srcW, d.srcH);
  if (simd?.frame(win, new Uint8Array(d.frames, base, frameSize))) {
    parentPort?.postMessage({ n });
    return;
  }
  const half = { left: win.left / 2, top: win.top / 2, width: win.width / 2, height: win.height / 2 };
  const y = new Uint8Array(d.frames, base, outLuma);
  const u = new Uint8Array(d.frames, base + outLuma, outLuma / 4);
  const v = new Uint8Array(d.frames, base + outLuma * 1.25, outLuma / 4);
  resamplePlane(planes[0] as Uint8Array, d.srcW, d.srcH, win, y, d.width, d.height);
  resamplePlane(planes[1] as Uint8Array, d.srcW / 2, d.srcH / 2, half, u, d.width / 2, d.height / 2);
  resamplePlane(planes[2] as Uint8Array, d.srcW / 2, d.srcH / 2, half, v, d.width / 2, d.height / 2);
  parentPort?.postMessage({ n });
});
