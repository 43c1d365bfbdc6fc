import { inputArgs, MediaProbeError, runMediaTool } from "./probe.ts";

/** Where a video source's keyframes are, read from its container (no decoding). */
export interface KeyframeIndex {
  /** Presentation times of the first video stream's keyframes, seconds from its first packet, ascending. */
  times: number[];
  /** Average packets (frames) per second of that stream over its packets. */
  fps: number;
}

/**
 * Reads the keyframe times of `path`'s first video stream with ffprobe from the demuxer alone
 * (`-show_entries packet=pts_time,flags`: every packet's time and key flag, nothing decoded;
 * tens of milliseconds for a minute of H.264 in mp4). Times count from the stream's earliest
 * packet, as an input `-ss` counts from the start of the file.
 *
 * @param path - absolute path of a local file (or an http(s) URL, see `inputArgs`).
 * @throws MediaProbeError when ffprobe fails, times out (default 30 s), is aborted, or finds no
 *   video packet with a time.
 */
export async function probeKeyframes(
  path: string,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<KeyframeIndex> {
  const { stdout } = await runMediaTool(
    "ffprobe",
    [
      ...["-v", "error", "-hide_banner", "-select_streams", "v:0"],
      ...["-show_entries", "packet=pts_time,flags", "-of", "csv=p=0"],
      ...inputArgs(path),
    ],
    { timeoutMs: opts.timeoutMs ?? 30_000, signal: opts.signal, maxStdoutBytes: 64 * 1024 * 1024 },
  );
  return parseKeyframePackets(stdout.toString("utf8"));
}

/**
 * The {@link KeyframeIndex} of ffprobe's `pts_time,flags` CSV lines (`0.033333,K__`); packets
 * without a time (`N/A`) are skipped.
 * @throws MediaProbeError when no packet has a time.
 */
export function parseKeyframePackets(csv: string): KeyframeIndex {
  const all: number[] = [];
  const keys: number[] = [];
  for (const line of csv.split("\n")) {
    const [time, flags] = line.trim().split(",");
    const t = Number(time);
    if (!time || !Number.isFinite(t)) continue;
    all.push(t);
    if (flags?.includes("K")) keys.push(t);
  }
  if (all.length === 0) throw new MediaProbeError("ffprobe found no video packet with a time");
  // A loop, not Math.min(...all): an hour of video is over 100,000 packets.
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const t of all) {
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  const fps = last > first ? (all.length - 1) / (last - first) : 0;
  return { times: keys.map((t) => t - first).sort((a, b) => a - b), fps };
}
