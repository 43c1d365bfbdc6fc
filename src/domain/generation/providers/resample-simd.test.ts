import { describe, expect, it } from "vitest";
import { kenBurnsWindow } from "./ken-burns-move.ts";
import { resamplePlane } from "./resample-plane.ts";
import { createSimdResampler, resamplerModule } from "./resample-simd.ts";

/** A plane with detail at every scale: gradients plus pseudo-random texture. */
function plane(width: number, height: number, seed: number): Uint8Array {
  const p = new Uint8Array(width * height);
  for (let i = 0; i < p.length; i++) {
    const x = i % width;
    const y = Math.floor(i / width);
    p[i] = (x * 3 + y * 5 + ((Math.imul(i + seed, 2654435761) >>> 28) & 15)) & 255;
  }
  return p;
}

describe("SIMD resampler", () => {
  it.each([
    ["16:9", 1472, 828, 1280, 720],
    ["9:16, chroma width not a multiple of 8", 1242, 2208, 1080, 1920],
    ["1:1", 1242, 1242, 1080, 1080],
  ])("matches the JavaScript resampler within 2 levels (%s)", async (_name, srcW, srcH, outW, outH) => {
    const module = await resamplerModule();
    expect(module).not.toBeNull();
    const planes = [
      { data: plane(srcW, srcH, 1), width: srcW, height: srcH },
      { data: plane(srcW / 2, srcH / 2, 2), width: srcW / 2, height: srcH / 2 },
      { data: plane(srcW / 2, srcH / 2, 3), width: srcW / 2, height: srcH / 2 },
    ];
    const outputs = [
      { width: outW, height: outH },
      { width: outW / 2, height: outH / 2 },
      { width: outW / 2, height: outH / 2 },
    ];
    const simd = createSimdResampler(module as WebAssembly.Module, planes, outputs);
    const frameSize = outW * outH * 1.5;
    for (const n of [0, 37, 95, 143]) {
      const win = kenBurnsWindow(n, 144, srcW, srcH);
      const out = new Uint8Array(frameSize);
      expect(simd.frame(win, out)).toBe(true);
      const ref = new Uint8Array(frameSize);
      let offset = 0;
      planes.forEach((p, i) => {
        const o = outputs[i] as { width: number; height: number };
        const s = p.width / srcW;
        const w = { left: win.left * s, top: win.top * s, width: win.width * s, height: win.height * s };
        resamplePlane(
          p.data,
          p.width,
          p.height,
          w,
          ref.subarray(offset, offset + o.width * o.height),
          o.width,
          o.height,
        );
        offset += o.width * o.height;
      });
      let worst = 0;
      for (let i = 0; i < frameSize; i++)
        worst = Math.max(worst, Math.abs((out[i] as number) - (ref[i] as number)));
      expect(worst).toBeLessThanOrEqual(2);
    }
  });

  it("declines a window it cannot sample (zooming out beyond its reach) and writes nothing", async () => {
    const module = (await resamplerModule()) as WebAssembly.Module;
    const simd = createSimdResampler(
      module,
      [{ data: plane(400, 200, 1), width: 400, height: 200 }],
      [{ width: 64, height: 32 }],
    );
    const out = new Uint8Array(64 * 32).fill(7);
    expect(simd.frame({ left: 0, top: 0, width: 400, height: 200 }, out)).toBe(false);
    expect(out.every((v) => v === 7)).toBe(true);
  });
});
