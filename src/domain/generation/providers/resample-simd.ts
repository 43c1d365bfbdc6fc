/**
 * The WebAssembly SIMD bilinear resampler of the offline Ken Burns video (`resample.wat`): the
 * same sub-pixel sampling as `resamplePlane` (`resample-plane.ts`), about four times faster. The module is
 * assembled from its text once per process (wabt) and handed to the resampling threads.
 */
import { readFile } from "node:fs/promises";
import { axisTaps } from "./axis-taps.ts";
import type { KenBurnsWindow } from "./ken-burns-move.ts";

let compiled: Promise<WebAssembly.Module | null> | undefined;

/**
 * The compiled resampler module, or `null` when this runtime cannot run it (no WebAssembly
 * SIMD): callers then use the JavaScript resampler. Compiled once per process.
 */
export function resamplerModule(): Promise<WebAssembly.Module | null> {
  compiled ??= (async () => {
    try {
      // Loaded here, not at the top: the resampling threads import this module too.
      const { default: wabtInit } = await import("wabt");
      const wabt = await wabtInit();
      const text = await readFile(new URL("./resample.wat", import.meta.url), "utf8");
      const parsed = wabt.parseWat("resample.wat", text, { simd: true });
      try {
        parsed.validate();
        return await WebAssembly.compile(parsed.toBinary({}).buffer as Uint8Array<ArrayBuffer>);
      } finally {
        parsed.destroy();
      }
    } catch {
      return null;
    }
  })();
  return compiled;
}

/** One 8-bit plane of the still: `width`×`height` bytes, row after row. */
export interface StillPlane {
  data: Uint8Array;
  width: number;
  height: number;
}

const GROUP_BYTES = 64;
const align16 = (n: number) => (n + 15) & ~15;

interface PlaneLayout {
  src: number;
  stride: number;
  width: number;
  height: number;
  outW: number;
  outH: number;
  /** Offset of this plane in the output frame. */
  outOffset: number;
  rows: number;
  groups: number;
  groupCount: number;
}

/**
 * A resampler instance holding the still's planes in its own memory: `frame(win, out)` writes
 * the window `win` (coordinates of the first plane; the others are scaled by their size ratio)
 * of every plane into `out` (planes one after the other, `outW`×`outH` and the scaled sizes).
 */
export interface SimdResampler {
  /**
   * Renders one frame into `out`.
   * @returns false (nothing written) when the window is too small for the SIMD kernel (it reads
   *   8 output pixels from at most 16 source bytes, i.e. zooms out by at most about 1.8×).
   */
  frame(win: KenBurnsWindow, out: Uint8Array): boolean;
}

/**
 * Instantiates the resampler for a still of `planes` resampled to `outputs` (one size per
 * plane, each at least 8 pixels wide and 2 high). Copies the planes into the instance's memory.
 */
export function createSimdResampler(
  module: WebAssembly.Module,
  planes: StillPlane[],
  outputs: { width: number; height: number }[],
): SimdResampler {
  const instance = new WebAssembly.Instance(module, {});
  const memory = instance.exports.memory as WebAssembly.Memory;
  const resample = instance.exports.resample as (...args: number[]) => void;
  const first = planes[0] as StillPlane;
  let at = 0;
  let outOffset = 0;
  const layouts: PlaneLayout[] = planes.map((p, n) => {
    const o = outputs[n] as { width: number; height: number };
    const stride = align16(p.width) + 16;
    const layout: PlaneLayout = {
      src: at,
      stride,
      width: p.width,
      height: p.height,
      outW: o.width,
      outH: o.height,
      outOffset,
      rows: 0,
      groups: 0,
      groupCount: Math.ceil(o.width / 8),
    };
    at += stride * (p.height + 1);
    outOffset += o.width * o.height;
    return layout;
  });
  const tmp = at;
  at += align16(Math.max(...layouts.map((l) => l.stride))) + 16;
  const dst = at;
  at += align16(outOffset);
  for (const l of layouts) {
    l.rows = at;
    at += align16(l.outH * 8);
    l.groups = at;
    at += l.groupCount * GROUP_BYTES;
  }
  const pages = Math.ceil(at / 65536) - memory.buffer.byteLength / 65536;
  if (pages > 0) memory.grow(pages);
  const bytes = new Uint8Array(memory.buffer);
  const words = new Int32Array(memory.buffer);
  planes.forEach((p, n) => {
    const l = layouts[n] as PlaneLayout;
    for (let y = 0; y < p.height; y++) {
      bytes.set(p.data.subarray(y * p.width, (y + 1) * p.width), l.src + y * l.stride);
    }
  });

  return {
    frame(win, out) {
      // Tables first for every plane: a window the kernel cannot take leaves `out` untouched.
      const ranges: { k0: number; k1: number }[] = [];
      for (const l of layouts) {
        const sx = l.width / first.width;
        const sy = l.height / first.height;
        const xs = axisTaps(l.outW, win.left * sx, win.width * sx, l.width, 32768, 32767);
        const ys = axisTaps(l.outH, win.top * sy, win.height * sy, l.height, 32768, 32767);
        for (let y = 0; y < l.outH; y++) {
          words[(l.rows >> 2) + 2 * y] = (ys.i[y] as number) * l.stride;
          words[(l.rows >> 2) + 2 * y + 1] = ys.w[y] as number;
        }
        let maxBase = 0;
        for (let g = 0; g < l.groupCount; g++) {
          const x = Math.min(8 * g, l.outW - 8);
          const base = xs.i[x] as number;
          if ((xs.i[x + 7] as number) + 1 - base > 15) return false;
          maxBase = Math.max(maxBase, base);
          const rec = l.groups + g * GROUP_BYTES;
          words[rec >> 2] = x;
          words[(rec >> 2) + 1] = base;
          for (let j = 0; j < 8; j++) {
            const left = (xs.i[x + j] as number) - base;
            bytes[rec + 16 + 2 * j] = left;
            bytes[rec + 17 + 2 * j] = 0x80;
            bytes[rec + 32 + 2 * j] = left + 1;
            bytes[rec + 33 + 2 * j] = 0x80;
            const weight = xs.w[x + j] as number;
            bytes[rec + 48 + 2 * j] = weight & 0xff;
            bytes[rec + 49 + 2 * j] = weight >> 8;
          }
        }
        ranges.push({ k0: (xs.i[0] as number) & ~15, k1: align16(maxBase + 16) });
      }
      layouts.forEach((l, n) => {
        const { k0, k1 } = ranges[n] as { k0: number; k1: number };
        resample(
          l.src,
          l.stride,
          tmp,
          dst + l.outOffset,
          l.outW,
          l.outH,
          l.rows,
          l.groups,
          l.groupCount,
          k0,
          k1,
        );
      });
      out.set(bytes.subarray(dst, dst + outOffset));
      return true;
    },
  };
}
