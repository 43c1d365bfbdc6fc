/**
 * Smart rendering, planned: which output frames of an mp4 are one source's frames unchanged
 * and can be copied from the source's packets GOP by GOP, and which must be encoded (and why).
 * Pure: the sources' GOP indexes are read by the caller (`probeGopIndex`).
 */
import { containerSeekOf } from "../../media/container-seek.ts";
import type { GopIndex, VideoStreamFormat } from "../../media/gop-index.ts";
import { clipLabel } from "../composition/clip-label.ts";
import { compositionDuration } from "../composition/duration.ts";
import type { Clip, Timeline } from "../composition/schema.ts";
import { layoutTracks, outputSize } from "./plan.ts";
import type { FrameRange } from "./segments.ts";
import { type FrameRate, frameToSeconds, type Segment, secondsToFrame, toFrameRate } from "./timeline.ts";
import type {
  RenderOutputOptions,
  ResolvedAsset,
  SmartRenderReason,
  SmartRenderSummary,
  SmartStreamFormat,
} from "./types.ts";
import { hasIdentityTransform, type SourceKeyframes } from "./video-branch.ts";

export type { SmartStreamFormat };

/** H.264 profiles whose 8-bit 4:2:0 streams an mp4 output can carry as x264 makes them. */
const H264_PROFILES = new Set(["Constrained Baseline", "Baseline", "Main", "High"]);

/** One piece of a smart render's video: output frames `[startFrame, endFrame)`, copied or encoded. */
export interface SmartPiece extends FrameRange {
  /** Copied from a source: `packets` packets from decode index `packet` (a clean keyframe). */
  copy?: {
    /** The source's asset key and local file. */
    key: string;
    path: string;
    packet: number;
    packets: number;
    /** Input `-ss` that lands on that keyframe, seconds (its time, rounded up to the microsecond). */
    seekSec: number;
    /**
     * Set when a join can read the packets straight from the source with the concat
     * demuxer (`inpoint` = `seekSec`, {@link inPlaceCopy}): its `outpoint`, seconds (the
     * next packet's decode time rounded down to the microsecond), or null up to the end of the
     * stream. Unset when the packets must first be copied to a file of their own.
     */
    inPlace?: { outpointSec: number | null };
  };
  /** An encoded piece whose frames are a source's frames unchanged (a seam next to a copy): encoded near-losslessly. */
  seam?: boolean;
}

/**
 * Whether the concat demuxer can read packets `[p, q)` (decode order) of a source in place,
 * from `inpoint` (the keyframe `p`'s time) to an `outpoint`: it keeps a file's packets until one
 * has a decode time at or past the outpoint. So the video must be the file's first stream (the
 * demuxer matches streams by index), the decode times known and increasing over `[p, q]`, and
 * packet `q`'s time, rounded down to the microsecond, still after packet `q - 1`'s and after the
 * inpoint. Packets of
 * the source's other streams can end a file early where they are interleaved far ahead of the
 * video; a join checks its frame count for that (see `joinSmartVideo`).
 * @returns `{ inPlace }` for {@link SmartPiece.copy}, or nothing when the packets need a file.
 */
export function inPlaceCopy(
  gop: GopIndex,
  p: number,
  q: number,
): Pick<NonNullable<SmartPiece["copy"]>, "inPlace"> {
  if (gop.streamIndex !== 0 || gop.dts.length !== gop.frames) return {};
  for (let i = p; i < Math.min(q + 1, gop.frames); i++) {
    const d = gop.dts[i] as number;
    if (!Number.isFinite(d) || (i > p && d <= (gop.dts[i - 1] as number))) return {};
  }
  if (q >= gop.frames) return { inPlace: { outpointSec: null } };
  const { num, den } = gop.format.timeBase;
  const micros = (ticks: number) => (ticks * num * 1e6) / den;
  const outpoint = Math.floor(micros(gop.dts[q] as number));
  if (outpoint <= micros(gop.dts[q - 1] as number)) return {};
  // The demuxer wants the outpoint after the inpoint: a run of fewer packets than the B-frame
  // delay ends at a decode time before its first picture's presentation time.
  if (outpoint <= Math.ceil(micros(gop.pts[p] as number))) return {};
  return { inPlace: { outpointSec: outpoint / 1e6 } };
}

/** The smart plan of output frames `range` of a render. */
export interface SmartRenderPlan extends SmartRenderSummary {
  /** Null when nothing is copied: the range renders as without smart rendering. */
  format: SmartStreamFormat | null;
  /** The pieces in output order, covering `range` exactly. */
  pieces: SmartPiece[];
  /**
   * Keyframes of the sources whose GOP indexes the plan read (constant frame rate only), by
   * asset key: the encoded pieces' inputs seek to them (`BuildRenderPlanInput.sourceKeyframes`).
   */
  sourceKeyframes?: ReadonlyMap<string, SourceKeyframes>;
}

const keyframesOfIndex = new WeakMap<GopIndex, SourceKeyframes>();

/**
 * A source's keyframes (every packet flagged key, by presentation time in seconds, ascending)
 * and its frame duration, from its GOP index; undefined for a variable frame rate.
 */
export function sourceKeyframesOf(gop: GopIndex): SourceKeyframes | undefined {
  if (gop.frameTicks === null) return undefined;
  let found = keyframesOfIndex.get(gop);
  if (!found) {
    const { num, den } = gop.format.timeBase;
    const times = gop.pts.filter((_, i) => gop.key[i]).map((t) => (t * num) / den);
    times.sort((a, b) => a - b);
    found = { times, frameSec: (gop.frameTicks * num) / den };
    keyframesOfIndex.set(gop, found);
  }
  return found;
}

/** Inputs of {@link planSmartRender}. */
export interface SmartPlanInput {
  composition: Timeline;
  output: RenderOutputOptions;
  assets: ReadonlyMap<string, ResolvedAsset>;
  /** GOP indexes of the video sources by asset key; a source without one is encoded. */
  gops: ReadonlyMap<string, GopIndex>;
  /** Output frames planned (of the whole composition at the output rate). */
  range: FrameRange;
  /** Output frame at output time 0 (the render's first frame; default `range.startFrame`): reasons' times count from it. */
  origin?: number;
  /**
   * The render's stream format, fixed beforehand (a part of a split render uses the whole
   * render's); by default the first copyable source's.
   */
  format?: SmartStreamFormat;
  /**
   * The fewest frames a copy piece must hold to be copied (default {@link minCopyFrames} of the
   * output size and quality); a shorter run is encoded with its seams as one piece.
   */
  minCopyFrames?: number;
}

/**
 * Seconds one more ffmpeg process costs a smart render (start, open and probe the source, seek,
 * write the piece), measured on a 2-core machine at 0.24–0.6 s.
 */
const PIECE_PROCESS_SECONDS = 0.4;

/** x264's time per frame by quality preset, against `veryfast` (x264's own preset speed ladder). */
const PRESET_COST: Record<NonNullable<RenderOutputOptions["quality"]>, number> = {
  draft: 0.4,
  standard: 1,
  high: 4,
  lossless: 1.5,
};

/**
 * The fewest frames worth copying at an output size and quality. Copying a run of frames saves
 * encoding them but costs up to two more ffmpeg processes (the seams beside it, each its own
 * process; the join reads the copied packets in place); it pays when the frames' encode time
 * exceeds that. Encode time per frame is modelled as 4.5 ms + 17 ns per pixel at `veryfast` on
 * two cores (measured: 8.4 ms at 640×360, 40 ms at 1920×1080), scaled by the preset. So at
 * 1080p anything from about 0.7 s of 30 fps is copied, at 640×360 about three seconds, at
 * thumbnail sizes nearly nothing.
 *
 * @param width - output width, pixels. @param height - output height, pixels.
 * @returns a count of frames (≥ 1).
 */
export function minCopyFrames(
  width: number,
  height: number,
  quality: RenderOutputOptions["quality"],
): number {
  const perFrame = (0.0045 + 1.7e-8 * width * height) * PRESET_COST[quality ?? "standard"];
  return Math.max(1, Math.ceil((2 * PIECE_PROCESS_SECONDS) / perFrame));
}

interface FrameFate {
  clip: Clip | null;
  /** Why it is encoded; undefined when the frame is copyable. */
  reason?: string;
  /** Copyable: the source and its display frame index. */
  key?: string;
  frame?: number;
}

const assetKey = (clip: Clip): string =>
  clip.asset.type === "video" || clip.asset.type === "image" || clip.asset.type === "audio"
    ? (clip.asset.uploadId ?? clip.asset.src ?? "")
    : "";

/** The largest B-frame reorder delay (frames) the encoder continues: x264's B-pyramid. */
const MAX_REORDER_DELAY = 2;

/** Why a source's stream cannot be copied into an H.264 output of `size` at `rate`, or undefined. */
export function sourceMismatch(
  f: VideoStreamFormat,
  gop: GopIndex,
  size: { width: number; height: number },
  rate: FrameRate,
): string | undefined {
  if (f.codec === "hevc")
    return "HEVC source: its parameter sets cannot be repeated in an hvc1 stream, so it is encoded";
  if (f.codec !== "h264") return `${f.codec || "unknown"} source: only H.264 is copied`;
  if (!H264_PROFILES.has(f.profile))
    return `H.264 profile ${f.profile || "unknown"} differs from the output's`;
  if (f.pixFmt !== "yuv420p") return `pixel format ${f.pixFmt} differs from the output's yuv420p`;
  if (f.width !== size.width || f.height !== size.height)
    return `source is ${f.width}×${f.height}, the output ${size.width}×${size.height}`;
  if (f.sampleAspectRatio !== "1:1") return `non-square pixels (${f.sampleAspectRatio})`;
  if (f.rotation % 360 !== 0) return "rotated source";
  if (f.fieldOrder !== "progressive" && f.fieldOrder !== "unknown") return "interlaced source";
  if (gop.frameTicks === null) return "variable frame rate";
  // Frame duration frameTicks·tb must be exactly rate.den/rate.num seconds.
  if (gop.frameTicks * f.timeBase.num * rate.num !== f.timeBase.den * rate.den)
    return `frame rate ${(f.timeBase.den / (gop.frameTicks * f.timeBase.num)).toFixed(3)} differs from the output's`;
  if (gop.firstPts !== 0) return "the video starts after the file's start";
  if (gop.reorderDelay === null) return "decode times that do not step by one frame";
  if (gop.reorderDelay > MAX_REORDER_DELAY)
    return `B-frames shown ${gop.reorderDelay} frames after they decode (at most ${MAX_REORDER_DELAY} are continued)`;
  return undefined;
}

/**
 * Why a source cannot be copied into an H.264 output of `size`, from its upload's probed facts
 * alone (codec, display size), or undefined when they do not tell: such a source's GOPs are not
 * read at all (see `readSourceGops`).
 */
export function mediaMismatch(
  media: ResolvedAsset["media"],
  size: { width: number; height: number },
): string | undefined {
  if (!media) return undefined;
  if (media.videoCodec && media.videoCodec !== "h264")
    return media.videoCodec === "hevc"
      ? "HEVC source: its parameter sets cannot be repeated in an hvc1 stream, so it is encoded"
      : `${media.videoCodec} source: only H.264 is copied`;
  if (media.width && media.height && (media.width !== size.width || media.height !== size.height))
    return `source is ${media.width}×${media.height}, the output ${size.width}×${size.height}`;
  return undefined;
}

function streamFormatOf(gop: GopIndex): SmartStreamFormat {
  const f = gop.format;
  const profile = f.profile === "High" ? "high" : f.profile === "Main" ? "main" : "baseline";
  return {
    profile,
    level: f.level,
    timescale: f.timeBase.den / f.timeBase.num,
    width: f.width,
    height: f.height,
    reorderDelay: gop.reorderDelay ?? 0,
  };
}

const sameFormat = (a: SmartStreamFormat, b: SmartStreamFormat) =>
  a.profile === b.profile &&
  a.level === b.level &&
  a.timescale === b.timescale &&
  (a.reorderDelay ?? null) === (b.reorderDelay ?? null);

/**
 * Plans smart rendering of output frames `input.range` of an mp4 render. A frame is copyable
 * when it is one video clip's source frame unchanged: the only clip drawn there (no clip, text
 * or caption over it, no transition or fade over the frame), at speed 1, no transform, crop,
 * motion or filter, from an H.264 source coded as the output is (size, square pixels, 8-bit
 * 4:2:0, progressive, constant frame rate equal to the output's, see {@link sourceMismatch})
 * and coded like the render's first such source (profile, level, time base, B-frame delay). Each run of
 * consecutive source frames of one clip copies the packets from its first clean keyframe to
 * its last clean point (`GopIndex.clean`: no B-frame run or leading picture crosses it; a copy
 * starts on an IDR picture, never on an open GOP's I-frame, whose slices still refer to the
 * previous GOP's frame numbers and reference marking); the
 * frames from the cut to that keyframe and from that point to the out point are encoded as
 * seams. Every encoded stretch is reported with its clip and reason.
 */
export function planSmartRender(input: SmartPlanInput): SmartRenderPlan {
  const { composition, output, assets, gops, range } = input;
  const rate = toFrameRate(output.fps ?? composition.canvas.fps);
  const size = outputSize(composition.canvas.width, composition.canvas.height, output.width, output.height);
  const totalFrames = secondsToFrame(compositionDuration(composition), rate);
  const tracks = layoutTracks(composition, rate, totalFrames, []).filter((t) => t.track.kind === "video");
  const overlays = composition.tracks
    .filter((t) => t.enabled !== false && t.kind === "video")
    .flatMap((t) => t.clips)
    .filter((c) => c.asset.type === "text" || c.asset.type === "caption")
    .map((c) => ({
      clip: c,
      start: secondsToFrame(c.start, rate),
      end: secondsToFrame(c.start + c.duration, rate),
    }));

  // The stream format: the first source (timeline order) that could be copied at all.
  let format: SmartStreamFormat | null = input.format ?? null;
  let formatClip: Clip | null = null;
  for (const t of input.format ? [] : tracks) {
    for (const s of t.segments) {
      if (format || !s.clip || s.clip.asset.type !== "video") continue;
      const gop = gops.get(assetKey(s.clip));
      if (gop && !sourceMismatch(gop.format, gop, size, rate)) {
        format = streamFormatOf(gop);
        formatClip = s.clip;
      }
    }
  }
  const minCopy = input.minCopyFrames ?? minCopyFrames(size.width, size.height, output.quality);
  const label = (clip: Clip | null) => (clip ? clipLabel(clip, assets.get(assetKey(clip))?.name) : null);

  const fateOf = (f: number): FrameFate => {
    const covering: Segment[] = [];
    for (const t of tracks) {
      const s = t.segments.find((x) => x.kind === "clip" && x.startFrame <= f && f < x.endFrame);
      if (s) covering.push(s);
    }
    const text = overlays.find((o) => o.start <= f && f < o.end);
    const top = covering.at(-1);
    if (!top?.clip)
      return { clip: text?.clip ?? null, reason: text ? "text over the background" : "no video clip here" };
    const clip = top.clip;
    if (covering.length > 1) return { clip, reason: `drawn over ${label(covering[0]?.clip ?? null)}` };
    if (text) return { clip, reason: `${label(text.clip)} is drawn over it` };
    if (clip.asset.type !== "video") return { clip, reason: `${clip.asset.type} clip` };
    if (top.transition && f < top.startFrame + top.transition.after) return { clip, reason: "transition" };
    if (top.outTransition && f >= top.endFrame - top.outTransition.before)
      return { clip, reason: "transition" };
    if (clip.freeze) return { clip, reason: "freeze frame" };
    if ((clip.speed ?? 1) !== 1) return { clip, reason: "speed change" };
    if (!hasIdentityTransform(clip)) return { clip, reason: "transform" };
    const crop = clip.crop;
    if (
      crop &&
      ((crop.top ?? 0) > 0 || (crop.bottom ?? 0) > 0 || (crop.left ?? 0) > 0 || (crop.right ?? 0) > 0)
    )
      return { clip, reason: "crop" };
    if (clip.motion) return { clip, reason: "motion" };
    if (clip.filter) return { clip, reason: `filter ${clip.filter}` };
    if (f - top.origin < secondsToFrame(clip.fadeIn ?? 0, rate)) return { clip, reason: "fade-in" };
    const clipEnd = secondsToFrame(clip.start + clip.duration, rate);
    if (clipEnd - f <= secondsToFrame(clip.fadeOut ?? 0, rate)) return { clip, reason: "fade-out" };
    const key = assetKey(clip);
    // A copy seeks its first packet by time: only an index lands there.
    if (containerSeekOf(assets.get(key)?.media?.formatName) !== "index")
      return { clip, reason: "the source's container (MPEG-TS, MPEG-PS, a raw stream) has no index to seek" };
    const gop = gops.get(key);
    if (!gop)
      return {
        clip,
        reason: mediaMismatch(assets.get(key)?.media, size) ?? "the source's GOPs could not be read",
      };
    const mismatch = sourceMismatch(gop.format, gop, size, rate);
    if (mismatch) return { clip, reason: mismatch };
    if (format && !sameFormat(format, streamFormatOf(gop)))
      return {
        clip,
        reason: `coded differently (profile, level, time base or B-frames) from ${formatClip ? label(formatClip) : "the render's other sources"}`,
      };
    // Source frame shown: the one the in-point rounds to, then one per output frame.
    const exact = ((clip.trim ?? 0) * rate.num) / rate.den;
    const first = Math.round(exact);
    if (Math.abs(exact - first) > 0.4) return { clip, reason: "in-point between two source frames" };
    const frame = first + (f - top.origin);
    if (frame < 0 || frame >= gop.frames) return { clip, reason: "past the end of the source" };
    return { clip, key, frame };
  };

  const origin = input.origin ?? range.startFrame;
  const pieces: SmartPiece[] = [];
  const reasons: SmartRenderReason[] = [];
  let copiedFrames = 0;
  const encode = (start: number, end: number, clip: Clip | null, reason: string, seam: boolean) => {
    if (end <= start) return;
    const last = pieces.at(-1);
    if (last && !last.copy && last.endFrame === start && Boolean(last.seam) === seam) last.endFrame = end;
    else pieces.push({ startFrame: start, endFrame: end, ...(seam ? { seam: true } : {}) });
    const name = label(clip);
    const prev = reasons.at(-1);
    const from = frameToSeconds(start - origin, rate);
    const to = frameToSeconds(end - origin, rate);
    if (prev && prev.clip === name && prev.reason === reason && Math.abs(prev.to - from) < 1e-9) prev.to = to;
    else reasons.push({ clip: name, from, to, reason });
  };

  // Walk the frames as runs: encoded runs of one clip and reason, copyable runs of one clip's
  // consecutive source frames.
  let f = range.startFrame;
  while (f < range.endFrame) {
    const fate = fateOf(f);
    let end = f + 1;
    while (end < range.endFrame) {
      const next = fateOf(end);
      if (next.clip !== fate.clip || next.reason !== fate.reason || next.key !== fate.key) break;
      if (fate.frame !== undefined && next.frame !== (fate.frame as number) + (end - f)) break;
      end++;
    }
    if (fate.reason !== undefined || fate.key === undefined || fate.frame === undefined || !format) {
      encode(f, end, fate.clip, fate.reason ?? "nothing copyable", false);
    } else {
      const gop = gops.get(fate.key) as GopIndex;
      const ka = fate.frame;
      const kb = ka + (end - f);
      let p = ka;
      while (p < kb && !(gop.clean[p] && gop.idr[p])) p++;
      let q = kb;
      while (q > p && !gop.clean[q]) q--;
      if (q > p && q - p < minCopy) {
        encode(
          f,
          end,
          fate.clip,
          `under ${minCopy} whole-GOP frames to copy: encoding them is faster`,
          false,
        );
      } else if (q > p) {
        encode(f, f + (p - ka), fate.clip, "from the cut to the next keyframe", true);
        const tb = gop.format.timeBase;
        const seekSec = Math.ceil((((gop.pts[p] as number) * tb.num) / tb.den) * 1e6) / 1e6;
        pieces.push({
          startFrame: f + (p - ka),
          endFrame: f + (q - ka),
          copy: {
            key: fate.key,
            path: assets.get(fate.key)?.path ?? "",
            packet: p,
            packets: q - p,
            seekSec,
            ...inPlaceCopy(gop, p, q),
          },
        });
        copiedFrames += q - p;
        encode(f + (q - ka), end, fate.clip, "from the last whole GOP to the out point", true);
      } else {
        const openGop = gop.key.some((k, i) => k && i >= ka && i < kb && !gop.idr[i]);
        encode(
          f,
          end,
          fate.clip,
          openGop ? "open GOP: no IDR keyframe between the cuts" : "no whole GOP between the cuts",
          true,
        );
      }
    }
    f = end;
  }
  const total = range.endFrame - range.startFrame;
  const copies = copiedFrames > 0;
  const sourceKeyframes = new Map<string, SourceKeyframes>();
  for (const [key, gop] of gops) {
    const keyframes = sourceKeyframesOf(gop);
    if (keyframes) sourceKeyframes.set(key, keyframes);
  }
  return {
    format: copies || input.format ? format : null,
    pieces: copies ? pieces : [{ startFrame: range.startFrame, endFrame: range.endFrame }],
    copiedFrames,
    encodedFrames: total - copiedFrames,
    reasons,
    ...(copies && sourceKeyframes.size > 0 ? { sourceKeyframes } : {}),
  };
}
