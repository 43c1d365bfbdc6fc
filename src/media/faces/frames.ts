import { type ContainerSeek, seekToRead } from "../container-seek.ts";
import { inputArgs, runMediaTool } from "../probe.ts";

/** Frames sampled from a video: RGB24 pixels back to back, and the source time of each. */
export interface SampledFrames {
  rgb: Uint8Array;
  width: number;
  height: number;
  count: number;
  /** Source time of each frame, seconds. */
  times: number[];
}

/**
 * Decodes `duration` seconds of the video `input` from source time `start` at `fps` frames per
 * second, scaled to exactly `width`×`height` (display proportions: the caller passes the
 * upload's display aspect), as raw RGB24. Frame k is the last source frame at or before
 * `start + k / fps` (`fps` with `round=up`; the default `near` would keep the last frame of the
 * half-period after that time, up to half a sample late).
 * @throws MediaProbeError when ffmpeg fails, times out or `signal` aborts.
 */
export async function sampleFrames(
  input: string,
  opts: {
    start: number;
    duration: number;
    fps: number;
    width: number;
    height: number;
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    /** How `-ss` lands in the file (`containerSeekOf`) and its keyframe times; default an index. */
    seek?: { container: ContainerSeek; keyframeTimes?: readonly number[] | undefined };
  },
): Promise<SampledFrames> {
  const frameBytes = opts.width * opts.height * 3;
  const expected = Math.ceil(opts.duration * opts.fps) + 2;
  const { seekSec, skipSec } = seekToRead(
    opts.start,
    opts.seek?.container ?? "index",
    opts.seek?.keyframeTimes,
  );
  const { stdout } = await runMediaTool(
    "ffmpeg",
    [
      ...["-nostdin", "-nostats", "-v", "error"],
      ...(seekSec === null ? [] : ["-ss", String(seekSec)]),
      ...["-t", String(skipSec + opts.duration)],
      ...inputArgs(input),
      "-an",
      ...[
        "-vf",
        `fps=fps=${opts.fps}:start_time=${skipSec}:round=up,scale=w=${opts.width}:h=${opts.height},format=rgb24`,
      ],
      ...["-f", "rawvideo", "pipe:1"],
    ],
    { timeoutMs: opts.timeoutMs, signal: opts.signal, maxStdoutBytes: frameBytes * expected },
  );
  const count = Math.floor(stdout.length / frameBytes);
  return {
    rgb: new Uint8Array(stdout.buffer, stdout.byteOffset, count * frameBytes),
    width: opts.width,
    height: opts.height,
    count,
    times: Array.from({ length: count }, (_, k) => opts.start + k / opts.fps),
  };
}
