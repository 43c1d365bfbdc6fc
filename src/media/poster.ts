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

/**
 * The filters that turn a square-pixel frame into a poster: scaled to fit in `maxSize`×`maxSize`
 * (never enlarged, even sides, aspect kept), full-range YUV for the JPEG encoder.
 */
export function posterFilters(maxSize: number = POSTER_MAX_SIZE): string[] {
  return [
    `scale=w='min(${maxSize},iw)':h='min(${maxSize},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2`,
    "format=yuvj420p",
  ];
}

/** Encoder arguments of a poster: one frame of baseline JPEG at quality 4 (ffmpeg's 2–31 scale). */
export const POSTER_ENCODER_ARGS = ["-frames:v", "1", "-c:v", "mjpeg", "-q:v", "4"];

async function renderFrame(input: string, atSec: number, opts: PosterOptions): Promise<Buffer> {
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
      "-vf",
      [SQUARE_PIXELS, ...posterFilters(opts.maxSize)].join(","),
      ...POSTER_ENCODER_ARGS,
      "-f",
      "image2pipe",
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
