import { runMediaTool } from "./probe.ts";

/**
 * Video frames of `file`'s first video stream: as its header counts them (mp4's sample table,
 * read at once), else by reading its packets (Matroska/WebM, GIF: demuxed, nothing decoded);
 * 0 when it has no video stream.
 *
 * @throws MediaProbeError when ffprobe fails, times out or `opts.signal` aborts.
 */
export async function videoFrameCount(
  file: string,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<number> {
  const read = async (args: string[]) => {
    const { stdout } = await runMediaTool(
      "ffprobe",
      ["-v", "error", "-select_streams", "v:0", ...args, "-of", "csv=p=0", file],
      { timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal },
    );
    return stdout.toString("utf8").trim();
  };
  const header = await read(["-show_entries", "stream=nb_frames"]);
  if (header === "") return 0;
  const frames = Number.parseInt(header, 10);
  if (Number.isFinite(frames)) return frames;
  return Number.parseInt(await read(["-count_packets", "-show_entries", "stream=nb_read_packets"]), 10) || 0;
}
