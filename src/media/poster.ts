import { inputArgs, MediaProbeError, runMediaTool } from "./probe.ts";
import { SQUARE_PIXELS } from "./square-pixels.ts";

/** Longest side of a poster, pixels. */
export const POSTER_MAX_SIZE = 640;

/** Options of {@link makePoster}. */
export interface PosterOptions {
  /** `video`: a frame at ~10% of `duration`; `image`: the (first frame of the) image. */
  type: "video" | "image";
  /** Video duration in seconds (from {@link probeMedia}); `null` takes the first frame. */
  duration: number | null;
  /** Longest side of the result, pixels (default {@link POSTER_MAX_SIZE}); smaller inputs are not enlarged. */
  maxSize?: number;
  /** Kill ffmpeg after this many milliseconds (default 60,000). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Renders a JPEG poster of a video or image with ffmpeg: a frame at 10% of the video's duration
 * (falling back to the first frame when seeking yields none), or the image, scaled to fit in
 * `maxSize`×`maxSize` with its aspect ratio kept. ffmpeg applies the rotation metadata, so posters
 * of portrait phone videos stand upright; non-square pixels are resampled to the display size. `input` is an absolute local path or an http(s) URL.
 *
 * @returns the JPEG bytes (typically 10–80 kB), streamed from ffmpeg's stdout: no temp file.
 * @throws MediaProbeError when ffmpeg cannot decode a frame, times out or is aborted.
 */
export async function makePoster(input: string, opts: PosterOptions): Promise<Buffer> {
  const at = opts.type === "video" && opts.duration && opts.duration > 0 ? opts.duration * 0.1 : 0;
  const first = await renderFrame(input, at, opts);
  if (first.length > 0 || at === 0) return nonEmpty(first);
  return nonEmpty(await renderFrame(input, 0, opts));
}

async function renderFrame(input: string, atSec: number, opts: PosterOptions): Promise<Buffer> {
  const max = opts.maxSize ?? POSTER_MAX_SIZE;
  const fit = `scale=w='min(${max},iw)':h='min(${max},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2`;
  const { stdout } = await runMediaTool(
    "ffmpeg",
    [
      "-hide_banner",
      "-nostdin",
      "-v",
      "error",
      // Input-side seek: jumps to the nearest keyframe before `atSec`, then decodes to it.
      ...(atSec > 0 ? ["-ss", atSec.toFixed(3)] : []),
      ...inputArgs(input),
      "-map",
      "0:v:0",
      "-frames:v",
      "1",
      "-vf",
      `${SQUARE_PIXELS},${fit},format=yuvj420p`,
      "-q:v",
      "4",
      "-f",
      "image2pipe",
      "-c:v",
      "mjpeg",
      "pipe:1",
    ],
    { timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal, maxStdoutBytes: 4 * 1024 * 1024 },
  );
  return stdout;
}

function nonEmpty(jpeg: Buffer): Buffer {
  if (jpeg.length === 0) throw new MediaProbeError("no frame could be decoded for the poster");
  return jpeg;
}
