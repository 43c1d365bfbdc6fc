/**
 * A render's expected wall time before it runs, from the reference-render benchmark
 * (`bench/render/reference-render.ts`): encoding costs about 8.1 ns of CPU per output pixel per
 * frame at the `standard` quality (30.3 CPU s for 60 s of 1080p30), a composition about 1.15 times
 * its encode floor, spread over the two cores of the reference machine (about 1.6 cores busy), plus
 * a few seconds of job start, probing and storing. An estimate for planning, not a promise: it
 * grows with the machine's load.
 */
import type { Canvas } from "./schema.ts";

/** CPU seconds of encoding per output pixel per frame (`standard` quality). */
const CPU_SECONDS_PER_PIXEL_FRAME = 30.3 / (60 * 30 * 1920 * 1080);
/** A composition over its encode floor (the reference composition's ratio). */
const COMPOSITION_OVERHEAD = 1.15;
/** Cores busy during a render on the reference machine. */
const PARALLELISM = 1.6;
/** Job start, source probing and storing the output, seconds. */
const FIXED_SECONDS = 3;

/**
 * Expected wall seconds of rendering a composition whole as mp4 at `standard` quality.
 * @param c - its canvas (pixels, frames/s) and tracks (the timeline ends at its last clip).
 */
export function estimateRenderSeconds(c: {
  canvas: Pick<Canvas, "width" | "height" | "fps" | "duration">;
  tracks: { clips: { start: number; duration: number }[] }[];
}): number {
  const length =
    c.canvas.duration ??
    c.tracks.reduce((m, t) => t.clips.reduce((n, x) => Math.max(n, x.start + x.duration), m), 0);
  const cpu = CPU_SECONDS_PER_PIXEL_FRAME * c.canvas.width * c.canvas.height * c.canvas.fps * length;
  return Math.round((FIXED_SECONDS + (cpu * COMPOSITION_OVERHEAD) / PARALLELISM) * 10) / 10;
}
