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
 * generated clips alike. After them a stream has `width`x`height` pixels (a pass-through when
 * it already has that size and format), the given pixel format, square pixels (SAR 1:1), and
 * the canvas's timing: regular timestamps `N / fps` from 0 in the time base `1 / fps`, and the
 * canvas frame rate on the link (`xfade` refuses two inputs whose rates or time bases differ,
 * and an image demuxer's stream keeps its own 25 fps whatever its timestamps say).
 *
 * The branch arrives with exactly the frames it should show (the builders trim it), so the
 * timestamps are rebuilt from the frame count first and `fps` then only sets the rate and
 * time base: it never drops or repeats a frame. (In the other order `fps` would fill any gap an
 * upstream filter left in the timestamps with repeated frames: `zoompan` output, for one,
 * made it repeat frames without end.)
 *
 * A branch whose link already carries the canvas rate (`rated`: it passed `fps` or `zoompan` at
 * that rate, or starts at a `color` source made at it) gets only the time base (`settb`), not
 * `fps`: `fps` keeps a reference to each frame it sends on until the next one arrives, so every
 * later filter that draws on the frame (`overlay` of an upper track, `fade`, `subtitles`) had to
 * copy the whole picture first.
 *
 * @param rate - The render's frame rate.
 * @param size - The branch's size in render pixels (the canvas, or a placed clip's box).
 * @param opts.rated - Whether the branch's link already has the canvas frame rate.
 * @returns Filters to append to the branch's chain (comma-joined by the graph builder).
 */
export function conformToCanvas(
  rate: FrameRate,
  size: { width: number; height: number },
  pixelFormat: BranchPixelFormat,
  opts: { rated?: boolean } = {},
): string[] {
  return [
    `scale=${size.width}:${size.height}`,
    `format=${pixelFormat}`,
    "setsar=1",
    regularPts(rate),
    opts.rated ? `settb=${rate.den}/${rate.num}` : `fps=${rateString(rate)}`,
  ];
}
