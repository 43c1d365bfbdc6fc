import { type FrameRate, rateString } from "./timeline.ts";

/** Pixel formats a branch may carry into the graph: with alpha (layers), or opaque (the base track). */
export type BranchPixelFormat = "yuva420p" | "yuv420p";

/** `setpts` that rebuilds regular timestamps `N / fps` in the AV time base (stream starts at 0). */
export function regularPts(rate: FrameRate): string {
  return `settb=AVTB,setpts=N*${rate.den}/(${rate.num}*TB)`;
}

/**
 * Conforms a branch to the canvas: the last filters of every visual stream before any
 * transition (`xfade`), `overlay` or `concat` sees it — video, image, colour, blank and
 * generated clips alike. After them a stream has exactly the canvas frame rate (`fps`, which
 * also sets the link's frame rate: `xfade` refuses two inputs whose rates differ, and an image
 * demuxer's stream keeps its own 25 fps whatever its timestamps say), the AV time base with
 * regular timestamps `N / fps` from 0, square pixels (SAR 1:1), the given pixel format and
 * `width`x`height` pixels (a pass-through when the stream already has that size and format).
 *
 * @param rate - The render's frame rate.
 * @param size - The branch's size in render pixels (the canvas, or a placed clip's box).
 * @returns Filters to append to the branch's chain (comma-joined by the graph builder).
 */
export function conformToCanvas(
  rate: FrameRate,
  size: { width: number; height: number },
  pixelFormat: BranchPixelFormat,
): string[] {
  return [
    `scale=${size.width}:${size.height}`,
    `format=${pixelFormat}`,
    "setsar=1",
    `fps=${rateString(rate)}`,
    regularPts(rate),
  ];
}
