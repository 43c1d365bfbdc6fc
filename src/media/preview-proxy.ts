import { runFfmpeg } from "./ffmpeg-run.ts";
import { inputArgs } from "./probe.ts";
import { SQUARE_PIXELS } from "./square-pixels.ts";

/**
 * Width of a preview proxy, pixels (height from the source's display aspect): previews are asked
 * for by width (the console's is 640 px), and a clip spanning the canvas's width, in any
 * orientation, then shows 640 source pixels across: a 1080p source's proxy is 640×360, a
 * portrait 1080×1920 one's 640×1138 (which a 16:9 canvas covers with its middle 360 rows).
 */
export const PREVIEW_PROXY_WIDTH = 640;

/** Seconds between the proxy's keyframes: a preview decodes at most this much before its frame. */
export const PREVIEW_PROXY_KEYFRAME_SECONDS = 0.5;

/**
 * The ffmpeg arguments of a preview proxy of the video `input` (an absolute path or an http(s)
 * URL), written to `output` (an `.mp4` path): its first video stream only, rotation applied (the
 * proxy stands upright and carries no rotation), square pixels (a non-square sample aspect ratio
 * resampled to the display size), scaled to {@link PREVIEW_PROXY_WIDTH} wide (never enlarged,
 * even sides, aspect kept); H.264 (`veryfast`, CRF 23 up to 3 Mbit/s, 4:2:0) without B-frames, with a
 * closed keyframe every {@link PREVIEW_PROXY_KEYFRAME_SECONDS} and no scene-cut keyframes; every
 * source frame kept with its own timestamp in the source's time base (variable frame rates
 * stay), counted from the source's start like ffmpeg's input seek does, so that a seek in the
 * proxy lands on the frame the same seek in the original does.
 */
export function previewProxyArgs(input: string, output: string): string[] {
  return [
    "-hide_banner",
    "-nostdin",
    "-y",
    "-v",
    "error",
    "-progress",
    "pipe:1",
    ...inputArgs(input),
    "-map",
    "0:v:0",
    "-an",
    "-sn",
    "-dn",
    "-vf",
    [SQUARE_PIXELS, `scale=w='min(${PREVIEW_PROXY_WIDTH},trunc(iw/2)*2)':h=-2`, "format=yuv420p"].join(","),
    "-fps_mode",
    "passthrough",
    "-enc_time_base",
    "-1",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "23",
    // Noise-like pictures would otherwise make a proxy larger than its original (and slower to decode).
    "-maxrate",
    "3M",
    "-bufsize",
    "6M",
    "-bf",
    "0",
    "-force_key_frames",
    `expr:gte(t,n_forced*${PREVIEW_PROXY_KEYFRAME_SECONDS})`,
    "-x264-params",
    "scenecut=0:open-gop=0:keyint=infinite",
    "-movflags",
    "+faststart",
    "-map_metadata",
    "-1",
    output,
  ];
}

/**
 * Makes a preview proxy ({@link previewProxyArgs}) with ffmpeg.
 * @param opts.durationSec - the source's duration, seconds (for the stall check's progress).
 * @param opts.cwd - ffmpeg's working directory.
 * @param opts.stallTimeoutMs - how long ffmpeg may make no progress, ms (default a minute).
 * @throws FfmpegError `FFMPEG_FAILED` when ffmpeg cannot read or encode it, `TIMEOUT` when it
 *   stalls for `stallTimeoutMs`, `ABORTED` with `signal`.
 */
export async function makePreviewProxy(
  input: string,
  output: string,
  opts: { durationSec: number; cwd: string; signal?: AbortSignal; stallTimeoutMs?: number },
): Promise<void> {
  await runFfmpeg({
    args: previewProxyArgs(input, output),
    cwd: opts.cwd,
    durationSec: opts.durationSec,
    ...(opts.stallTimeoutMs !== undefined ? { stallTimeoutMs: opts.stallTimeoutMs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}
