/**
 * Bilinear sampling positions along one axis: for each output pixel, the source index of its
 * left (or top) neighbour and the weight of the right (or bottom) one in fixed point.
 */
export interface AxisTaps {
  /** Source index of the left/top neighbour, `0..srcSize-2`. */
  i: Int32Array;
  /** Weight of the right/bottom neighbour, `0..maxWeight` (`unit` = 1). */
  w: Int32Array;
}

/**
 * The taps of `outSize` output pixels covering `span` source pixels from `start` (sub-pixel,
 * source pixels) on an axis of `srcSize` pixels. Pixel centres map to pixel centres (the
 * convention of swscale and most resamplers); positions are clamped to the source.
 *
 * @param unit - the fixed-point one of the weights (256 for 8-bit, 32768 for Q15).
 * @param maxWeight - the largest weight (`unit`, or `unit − 1` when `unit` does not fit).
 */
export function axisTaps(
  outSize: number,
  start: number,
  span: number,
  srcSize: number,
  unit: number,
  maxWeight: number,
): AxisTaps {
  const i = new Int32Array(outSize);
  const w = new Int32Array(outSize);
  const step = span / outSize;
  for (let x = 0; x < outSize; x++) {
    const s = Math.min(srcSize - 1, Math.max(0, start + (x + 0.5) * step - 0.5));
    const base = Math.min(srcSize - 2, Math.floor(s));
    i[x] = base;
    w[x] = Math.min(maxWeight, Math.round((s - base) * unit));
  }
  return { i, w };
}
