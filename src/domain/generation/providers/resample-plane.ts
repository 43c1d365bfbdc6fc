import { axisTaps } from "./axis-taps.ts";
import type { KenBurnsWindow } from "./ken-burns-move.ts";

/**
 * Bilinear resampling of one 8-bit plane: the window (`left`, `top`, `width`, `height`, source
 * pixels) of `src` (`srcW`×`srcH`) into `dst` (`dstW`×`dstH`), fixed-point with 1/256 pixel steps.
 */
export function resamplePlane(
  src: Uint8Array,
  srcW: number,
  srcH: number,
  win: KenBurnsWindow,
  dst: Uint8Array,
  dstW: number,
  dstH: number,
): void {
  const xs = axisTaps(dstW, win.left, win.width, srcW, 256, 256);
  const ys = axisTaps(dstH, win.top, win.height, srcH, 256, 256);
  const xi = xs.i;
  const xf = xs.w;
  for (let y = 0; y < dstH; y++) {
    const r0 = (ys.i[y] as number) * srcW;
    const r1 = r0 + srcW;
    const fy = ys.w[y] as number;
    const out = y * dstW;
    for (let x = 0; x < dstW; x++) {
      const c = xi[x] as number;
      const fx = xf[x] as number;
      const a = src[r0 + c] as number;
      const b = src[r0 + c + 1] as number;
      const d = src[r1 + c] as number;
      const e = src[r1 + c + 1] as number;
      const top = (a << 8) + (b - a) * fx;
      const bottom = (d << 8) + (e - d) * fx;
      dst[out + x] = ((top << 8) + (bottom - top) * fy + 32768) >> 16;
    }
  }
}
