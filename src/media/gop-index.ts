import { inputArgs, MediaProbeError, runMediaTool } from "./probe.ts";

/** Coding facts of a video stream that decide whether its packets can be copied into an output. */
export interface VideoStreamFormat {
  /** ffmpeg codec name (`h264`, `hevc`…). */
  codec: string;
  /** ffprobe's profile name (`High`, `Main`, `Constrained Baseline`…), `""` when unknown. */
  profile: string;
  /** `level_idc` (H.264: 31 = level 3.1; HEVC: 3 × 30 = 93…), 0 when unknown. */
  level: number;
  /** Pixel format (`yuv420p`…). */
  pixFmt: string;
  /** Coded size, pixels. */
  width: number;
  height: number;
  /** Sample aspect ratio `N:M` (`1:1` when the file does not say). */
  sampleAspectRatio: string;
  /** Rotation of the display matrix, degrees (0 when none). */
  rotation: number;
  /** `progressive` (or `unknown`), `tt`, `bb`… */
  fieldOrder: string;
  /** The stream's time base, seconds per tick = num/den. */
  timeBase: { num: number; den: number };
}

/**
 * Where a video stream's pictures are in its packets, for copying whole groups of pictures
 * (GOPs). Packets are in decode order; a display index counts frames in presentation order.
 */
export interface GopIndex {
  format: VideoStreamFormat;
  /** Frames (packets with a time) of the stream. */
  frames: number;
  /** Every frame's duration in ticks when all are equal (constant frame rate), else null (VFR). */
  frameTicks: number | null;
  /** Presentation time of the first frame, ticks. */
  firstPts: number;
  /** Presentation time (ticks) of each packet, decode order. */
  pts: number[];
  /** Decode time (ticks) of each packet, decode order; NaN where the file gives none. */
  dts: number[];
  /** Index of this video stream among all the file's streams (0 when it comes first). */
  streamIndex: number;
  /**
   * Frames between a packet's decode and its presentation (B-frame reordering: 0 without
   * B-frames, 1 with B-frames, 2 with a B-pyramid as x264 makes them) when the decode times
   * step by exactly one frame from a first packet presented that many frames after it
   * decodes; null otherwise (variable frame rate, decode times missing or irregular).
   */
  reorderDelay: number | null;
  /** Whether each packet (decode order) is a keyframe. */
  key: boolean[];
  /**
   * Whether each packet (decode order) is an H.264 IDR picture (false for every packet of other
   * codecs): decoding may start there whatever came before, where an open GOP's I-frame
   * (recovery point) still carries the previous GOP's frame numbers and reference marking.
   */
  idr: boolean[];
  /**
   * Clean points: `clean[p]` (p = 0..frames) is true when the first `p` packets in decode order
   * are exactly display frames `0..p-1`. Packets `[p, q)` between two clean points then show
   * exactly frames `[p, q)`, none referring to a picture outside them when `p` is a keyframe:
   * a B-frame run or an open GOP's leading pictures never straddle a clean point.
   */
  clean: boolean[];
}

interface ProbeJson {
  streams?: {
    index?: number;
    codec_name?: string;
    profile?: string;
    level?: number;
    pix_fmt?: string;
    width?: number;
    height?: number;
    sample_aspect_ratio?: string;
    field_order?: string;
    time_base?: string;
    side_data_list?: { rotation?: number }[];
  }[];
  packets?: { pts?: number | string; dts?: number | string; flags?: string }[];
}

/**
 * Reads the GOP structure of `path`'s first video stream with ffprobe from the demuxer alone
 * (every packet's pts, dts and key flag, nothing decoded) and the stream's coding format.
 *
 * @throws MediaProbeError when ffprobe fails, times out (default 60 s), is aborted, or finds
 *   no video packet with a time.
 */
export async function probeGopIndex(
  path: string,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<GopIndex> {
  const { stdout } = await runMediaTool(
    "ffprobe",
    [
      ...["-v", "error", "-hide_banner", "-select_streams", "v:0", "-of", "json"],
      ...[
        "-show_entries",
        "stream=index,codec_name,profile,level,pix_fmt,width,height,sample_aspect_ratio,field_order,time_base:stream_side_data=rotation:packet=pts,dts,flags",
      ],
      ...inputArgs(path),
    ],
    { timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal, maxStdoutBytes: 256 * 1024 * 1024 },
  );
  let json: ProbeJson;
  try {
    json = JSON.parse(stdout.toString("utf8")) as ProbeJson;
  } catch (err) {
    throw new MediaProbeError("ffprobe wrote no JSON", { cause: err });
  }
  const index = interpretGopProbe(json);
  if (index.format.codec !== "h264") return index;
  // The keyframes' pictures alone (the demuxer skips the rest), as an Annex B stream.
  const keyframes = await runMediaTool(
    "ffmpeg",
    [
      ...["-v", "error", "-hide_banner", "-nostdin", "-discard", "nokey", ...inputArgs(path)],
      ...["-map", "0:v:0", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"],
    ],
    { timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal, maxStdoutBytes: 1024 * 1024 * 1024 },
  );
  const idr = keyframeIdrs(keyframes.stdout);
  let k = 0;
  index.idr = index.key.map((key) => key && idr[k++] === true);
  return index;
}

/**
 * Whether each picture of an H.264 Annex B stream is an IDR picture, in stream order: a picture
 * starts at a slice NAL unit (type 1 or 5, ITU-T H.264 §7.3.1) whose `first_mb_in_slice` is 0
 * (its first bit, ue(v) of 0, is 1); type 5 is IDR.
 */
export function keyframeIdrs(stream: Buffer): boolean[] {
  const out: boolean[] = [];
  let i = stream.indexOf(START_CODE);
  while (i >= 0 && i + 4 < stream.length) {
    const type = (stream[i + 3] as number) & 0x1f;
    if ((type === 1 || type === 5) && ((stream[i + 4] as number) & 0x80) !== 0) out.push(type === 5);
    i = stream.indexOf(START_CODE, i + 3);
  }
  return out;
}

const START_CODE = Buffer.from([0, 0, 1]);

/**
 * The {@link GopIndex} of ffprobe's JSON (`stream` and `packet` entries of one video stream).
 * @throws MediaProbeError when there is no stream or no packet with a time.
 */
export function interpretGopProbe(json: ProbeJson): GopIndex {
  const s = json.streams?.[0];
  if (!s) throw new MediaProbeError("ffprobe found no video stream");
  const [tbNum, tbDen] = (s.time_base ?? "1/90000").split("/").map(Number);
  const format: VideoStreamFormat = {
    codec: s.codec_name ?? "",
    profile: s.profile ?? "",
    level: s.level ?? 0,
    pixFmt: s.pix_fmt ?? "",
    width: s.width ?? 0,
    height: s.height ?? 0,
    sampleAspectRatio:
      s.sample_aspect_ratio && s.sample_aspect_ratio !== "0:1" ? s.sample_aspect_ratio : "1:1",
    rotation: Math.round(s.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0),
    fieldOrder: s.field_order ?? "unknown",
    timeBase: { num: tbNum || 1, den: tbDen || 90000 },
  };
  const pts: number[] = [];
  const dts: number[] = [];
  const key: boolean[] = [];
  for (const p of json.packets ?? []) {
    const t = Number(p.pts);
    if (p.pts === undefined || !Number.isFinite(t)) continue;
    pts.push(t);
    dts.push(p.dts === undefined ? Number.NaN : Number(p.dts));
    key.push(Boolean(p.flags?.includes("K")));
  }
  if (pts.length === 0) throw new MediaProbeError("ffprobe found no video packet with a time");
  const sorted = [...pts].sort((a, b) => a - b);
  let frameTicks: number | null = sorted.length > 1 ? (sorted[1] as number) - (sorted[0] as number) : null;
  for (let i = 2; i < sorted.length && frameTicks !== null; i++) {
    if ((sorted[i] as number) - (sorted[i - 1] as number) !== frameTicks) frameTicks = null;
  }
  if (frameTicks !== null && frameTicks <= 0) frameTicks = null;
  // Display index of each packet; a prefix of p packets is a clean point when its largest
  // display index is p - 1 (p distinct indexes below p are exactly 0..p-1).
  const rank = new Map<number, number>();
  sorted.forEach((t, i) => {
    if (!rank.has(t)) rank.set(t, i);
  });
  const clean: boolean[] = [true];
  let max = -1;
  for (let p = 0; p < pts.length; p++) {
    max = Math.max(max, rank.get(pts[p] as number) ?? Number.POSITIVE_INFINITY);
    clean.push(max === p);
  }
  let reorderDelay: number | null = null;
  const d0 = dts[0] as number;
  if (frameTicks !== null && Number.isFinite(d0) && ((pts[0] as number) - d0) % frameTicks === 0) {
    reorderDelay = ((pts[0] as number) - d0) / frameTicks;
    for (let i = 1; i < dts.length && reorderDelay !== null; i++) {
      if (dts[i] !== d0 + i * frameTicks) reorderDelay = null;
    }
  }
  return {
    format,
    frames: pts.length,
    frameTicks,
    firstPts: sorted[0] as number,
    pts,
    dts,
    streamIndex: s.index ?? 0,
    reorderDelay,
    key,
    idr: key.map(() => false),
    clean,
  };
}
