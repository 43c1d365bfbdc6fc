import { spawn } from "node:child_process";
import { orphanSafeLaunch, toolNotExecuted } from "./tool-launch.ts";

/** Stream facts of an upload (`Upload.media`). Units: seconds, pixels, frames per second. */
export interface MediaInfo {
  /** Duration in seconds, or `null` when unknown (and for still images). */
  duration: number | null;
  /**
   * Display width in pixels: sample aspect ratio and rotation applied (a 720x576 stream with
   * square-making SAR 16:15 reports 768; a 90°-rotated 1920x1080 stream reports 1080).
   */
  width: number | null;
  /** Display height in pixels, rotation applied. */
  height: number | null;
  /**
   * Sample (pixel) aspect ratio of the picture as stored, `"N:M"` in lowest terms: `"1:1"` for
   * square pixels (also when the file does not say), e.g. `"16:15"` for PAL 4:3 DVD video;
   * `null` without a picture. Absent on uploads probed before it was reported.
   */
  sampleAspectRatio?: string | null;
  /** Average frame rate (frames/s, 3 decimals), `null` without video. */
  fps: number | null;
  /** ffmpeg codec name of the first video stream (`h264`, `hevc`, `vp9`, `png`…), cover art excluded. */
  videoCodec: string | null;
  /** ffmpeg codec name of the first audio stream (`aac`, `opus`, `mp3`…). */
  audioCodec: string | null;
  hasAudio: boolean;
  /**
   * ffprobe's demuxer name(s) (`mpegts`, `mov,mp4,m4a,3gp,3g2,mj2`…): how seeks land in the
   * file (`containerSeekOf`). Absent on uploads probed before it was kept.
   */
  formatName?: string;
}

/** {@link MediaInfo} plus what ingest needs to decide the upload's type. */
export interface ProbeResult extends MediaInfo {
  /** Always reported by a probe (see {@link MediaInfo.sampleAspectRatio}). */
  sampleAspectRatio: string | null;
  /** A real video stream exists (cover art / attached pictures do not count). */
  hasVideo: boolean;
  /**
   * Rotation of the video from its display matrix, degrees counter-clockwise normalised to
   * 0..359 (ffmpeg's convention; a legacy clockwise `rotate` tag is converted). 0 without video.
   */
  rotation: number;
  /** Always reported by a probe (see {@link MediaInfo.formatName}). */
  formatName: string;
}

/** Options of {@link probeMedia}. */
export interface ProbeOptions {
  /** Kill ffprobe after this many milliseconds (default 30,000). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** ffprobe/ffmpeg could not read the input as media (or did not finish in time). */
export class MediaProbeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MediaProbeError";
  }
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  sample_aspect_ratio?: string;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string };
}

/**
 * Reads stream facts of a media file with ffprobe. `input` is an absolute local path or an
 * http(s) URL (e.g. a presigned S3 GET; ffprobe reads only the ranges it needs). Only the
 * protocols that input needs are allowed, so a crafted file cannot make ffprobe open others
 * (e.g. a playlist pointing at local files).
 *
 * @returns duration (s), display width/height (px, sample aspect ratio and rotation applied),
 *   sample aspect ratio, fps, codecs, audio/video presence.
 * @throws MediaProbeError when ffprobe fails, times out, or finds neither audio nor video/image streams.
 */
export async function probeMedia(input: string, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const { stdout } = await runMediaTool(
    "ffprobe",
    [
      "-v",
      "error",
      "-hide_banner",
      ...inputArgs(input),
      "-print_format",
      "json",
      "-show_format",
      "-show_streams",
    ],
    { timeoutMs: opts.timeoutMs ?? 30_000, signal: opts.signal },
  );
  let out: FfprobeOutput;
  try {
    out = JSON.parse(stdout.toString("utf8")) as FfprobeOutput;
  } catch (err) {
    throw new MediaProbeError("ffprobe printed no readable result", { cause: err });
  }
  return interpretProbe(out);
}

/** Turns ffprobe's JSON into a {@link ProbeResult} (exported for tests). */
export function interpretProbe(out: FfprobeOutput): ProbeResult {
  const streams = out.streams ?? [];
  const video = streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  const audio = streams.find((s) => s.codec_type === "audio");
  if (!video && !audio) throw new MediaProbeError("no audio or video stream found");

  const rotation = video ? rotationOf(video) : 0;
  const swap = rotation === 90 || rotation === 270;
  const sar = video ? sampleAspect(video.sample_aspect_ratio) : null;
  const stored = positive(video?.width);
  const w = stored && sar ? Math.max(1, Math.round((stored * sar.num) / sar.den)) : stored;
  const h = positive(video?.height);
  const durations = [out.format?.duration, video?.duration, audio?.duration].map(Number).filter((d) => d > 0);
  return {
    duration: durations.length > 0 ? round(durations[0] as number, 3) : null,
    width: swap ? h : w,
    height: swap ? w : h,
    sampleAspectRatio: sar ? `${sar.num}:${sar.den}` : null,
    fps: video ? (parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate)) : null,
    videoCodec: video?.codec_name ?? null,
    audioCodec: audio?.codec_name ?? null,
    hasAudio: audio !== undefined,
    hasVideo: video !== undefined,
    rotation,
    formatName: out.format?.format_name ?? "",
  };
}

function rotationOf(stream: FfprobeStream): number {
  const matrix = stream.side_data_list?.find((d) => typeof d.rotation === "number");
  const raw = matrix?.rotation ?? Number(stream.tags?.rotate ?? 0);
  // The display matrix is counter-clockwise degrees; the legacy `rotate` tag is clockwise.
  const deg = Math.round(Number.isFinite(raw) ? raw : 0);
  return (((matrix ? deg : -deg) % 360) + 360) % 360;
}

/** ffprobe's `sample_aspect_ratio` ("16:15", "0:1" = unknown) in lowest terms; unknown → 1:1. */
function sampleAspect(raw: string | undefined): { num: number; den: number } {
  const [n, d] = (raw ?? "").split(":").map(Number);
  if (!n || !d || !Number.isInteger(n) || !Number.isInteger(d) || n <= 0 || d <= 0) return { num: 1, den: 1 };
  const g = gcd(n, d);
  return { num: n / g, den: d / g };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function parseRate(rate: string | undefined): number | null {
  const [n, d] = (rate ?? "").split("/").map(Number);
  if (!n || !d || !Number.isFinite(n / d)) return null;
  return round(n / d, 3);
}

const positive = (n: number | undefined): number | null => (n && n > 0 ? n : null);
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** ffmpeg/ffprobe input arguments with a protocol whitelist matching the input's kind. */
export function inputArgs(input: string): string[] {
  if (/^https?:\/\//i.test(input)) {
    return ["-protocol_whitelist", "http,https,tcp,tls", "-rw_timeout", "20000000", "-i", input];
  }
  if (!input.startsWith("/"))
    throw new Error(`Media input must be an absolute path or http(s) URL: ${input}`);
  // `file:` keeps a ':' in the path from being read as a protocol name.
  return ["-protocol_whitelist", "file", "-i", `file:${input}`];
}

/** Options of {@link runMediaTool}. */
export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Largest stdout kept, bytes (default 16 MiB); more fails the run. */
  maxStdoutBytes?: number;
}

/**
 * Runs `ffprobe`, `ffmpeg` or PocketSphinx's `pocketsphinx_continuous` (from PATH) with `args`,
 * collecting stdout; the tool dies with this process (see `orphanSafeLaunch`).
 * @throws MediaProbeError on a non-zero exit (with the last stderr line), timeout, abort,
 *   stdout over the limit, or when the tool is missing.
 */
export function runMediaTool(
  tool: "ffprobe" | "ffmpeg" | "pocketsphinx_continuous",
  args: string[],
  opts: RunOptions,
): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const launch = orphanSafeLaunch(tool, args);
    const child = spawn(launch.command, launch.args, { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let failure: MediaProbeError | undefined;
    const fail = (message: string) => {
      failure ??= new MediaProbeError(message);
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => fail(`${tool} timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
    const onAbort = () => fail(`${tool} aborted`);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    child.stdout.on("data", (d: Buffer) => {
      size += d.length;
      if (size > (opts.maxStdoutBytes ?? 16 * 1024 * 1024)) return fail(`${tool} output too large`);
      chunks.push(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-4000);
    });
    child.on("error", (err) => {
      failure ??= new MediaProbeError(`${tool} could not be started: ${err.message}`, { cause: err });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (failure) return reject(failure);
      const last = stderr.trim().split("\n").pop() ?? "";
      if (toolNotExecuted(code, stderr))
        return reject(new MediaProbeError(`${tool} could not be started: ${last}`));
      if (code !== 0) {
        return reject(new MediaProbeError(`${tool} failed (exit ${code}): ${last}`));
      }
      resolve({ stdout: Buffer.concat(chunks), stderr });
    });
  });
}
