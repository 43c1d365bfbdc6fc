import { containerSeekOf, SEARCH_SEEK_MARGIN_SEC, seekToRead } from "../../media/container-seek.ts";
import type { KeyframeIndex } from "../../media/keyframes.ts";
import { SQUARE_PIXELS } from "../../media/square-pixels.ts";
import { isOpaqueVideoCodec } from "../../media/video-codecs.ts";
import { type Clip, sourceRate } from "../composition/schema.ts";
import { type BranchPixelFormat, conformToCanvas, regularPts } from "./conform.ts";
import { even, type FilterGraph, ffColor, quote, sec } from "./graph.ts";
import { reframePicture } from "./reframe-crop.ts";
import {
  type FrameRate,
  frameToSeconds,
  rateString,
  type Segment,
  secondsToFrame,
  streamEnd,
  streamStart,
} from "./timeline.ts";
import { RenderError, type RenderWarning, type ResolvedAsset } from "./types.ts";

/** Shared state of the branch builders for one render. Sizes in render pixels. */
export interface BranchContext {
  graph: FilterGraph;
  rate: FrameRate;
  width: number;
  height: number;
  /** Render pixels per canvas pixel. */
  scale: number;
  assets: ReadonlyMap<string, ResolvedAsset>;
  warnings: RenderWarning[];
  /**
   * Inputs already opened, by clip id (a video clip's sound reuses its picture's input), or by
   * `<clip id>#proxy` for a picture read from a preview proxy (its sound then reads the asset).
   */
  inputs: Map<string, SourceInput>;
  /** `-threads` of each video input's decoder, when set. */
  decoderThreads?: number;
  /** Source seconds decoded before each clip's first needed source time; default {@link SEEK_PREROLL_SEC}. */
  seekPreroll?: number;
  /** Keyframes of video sources by asset key (`BuildRenderPlanInput.sourceKeyframes`). */
  sourceKeyframes?: ReadonlyMap<string, SourceKeyframes>;
}

/** An opened input bounded to what one clip needs (`-ss/-t`; a still is one frame). */
export interface SourceInput {
  index: number;
  clipId: string;
  asset: ResolvedAsset;
  /** The file the input reads: the asset's, or its preview proxy's (`asset.proxy`). */
  path: string;
  /** Whether it reads the asset's preview proxy instead of the asset itself. */
  proxy: boolean;
  /** Whether a clip's picture reads it (else only its sound). */
  picture: boolean;
  /**
   * Decoded pixels per display pixel of the asset (1, or the proxy's width over the asset's):
   * filters whose effect is in source pixels (a blur's radius, `fit: none`) are scaled by it, so
   * that a proxy gives the picture the asset gives.
   */
  sourceScale: number;
  /** Timeline frame at which the input's first frame/sample plays. */
  firstFrame: number;
  /** Frames of the stream before the source's first frame (missing head handle: the edge frame is held). */
  holdHead: number;
  /**
   * Seconds of source the input decodes before the stream's first source time (0 for stills
   * and held heads): its timestamps count from there, see {@link SEEK_PREROLL_SEC}; negative
   * when it seeks to a keyframe up to a quarter frame after that time (`inputSeekTime`).
   */
  preroll: number;
}

/**
 * Source seconds decoded before a clip's first needed source time. Frames are then picked by
 * their own source times (`fps` on timestamps anchored at that source time) rather than from
 * whichever frame decodes first, so a window that cuts a clip (range render, split segment)
 * shows the same source frames at the same output frames as the whole render, also when the
 * source's frame rate is not the output's.
 */
export const SEEK_PREROLL_SEC = 1;

/**
 * The preroll of a still (jpg/png: one output frame): enough source before the frame for `fps` to
 * pick the same source frame as a video render does (the frames next to it; sources down to 4
 * fps), and short, because an input seek lands on the keyframe before the preroll: with a second
 * of preroll, a keyframe within the second before the frame made the still decode the whole
 * group of pictures before it too (up to 250 frames more for x264's default keyframe interval).
 */
export const STILL_SEEK_PREROLL_SEC = 0.25;

const DEFAULT_MOTION = 0.2;

/**
 * Source time (seconds) a clip segment shows at timeline frame `frame` (output frames at
 * `rate`): `trim + (frame - origin) / fps * speed`; `trim` at every frame of a frozen clip.
 * Negative before the source's start (a transition's head handle past the in-point).
 */
export function sourceTimeAt(seg: Pick<Segment, "clip" | "origin">, frame: number, rate: FrameRate): number {
  const clip = seg.clip;
  return (clip?.trim ?? 0) + frameToSeconds(frame - seg.origin, rate) * (clip ? sourceRate(clip) : 1);
}

/**
 * The `setpts` expression that puts an input's first needed source time at 0: `preroll` seconds
 * (`SourceInput.preroll`) after the seek point; negative when the seek went to a keyframe just
 * after that time (`inputSeekTime`'s slack), whose frames then start that much after 0.
 */
function prerollShift(preroll: number): string {
  if (preroll > 0) return `PTS-${sec(preroll)}/TB`;
  return preroll < 0 ? `PTS+${sec(-preroll)}/TB` : "PTS";
}

/** Where a video source's keyframes are: their times (seconds, ascending) and one frame's duration (seconds). */
export interface SourceKeyframes {
  times: readonly number[];
  frameSec: number;
}

/**
 * Where a video input's `-ss` seeks (source seconds) for a stream that starts at source time
 * `start`: `prerollSec` before it, not before the file's start. The demuxer then starts decoding
 * at the last keyframe at or before that time. With the source's `keyframes`, the seek goes no
 * earlier than the keyframe the first shown frame decodes from: `fps` shows at each output
 * frame the last source frame within half an output frame after it, so the first shown frame
 * lies at or after the last keyframe at or before `start` plus the smaller of a quarter source
 * frame and half an output frame in source time (`outputFrameSourceSec`, output frame duration
 * × speed); with no keyframe in that slack the frame before `start` may be shown, and the GOP
 * before is decoded. A preroll reaching into the GOP before the first shown frame's would only
 * decode frames nobody shows (a whole GOP for a stream that starts on a keyframe).
 */
export function inputSeekTime(
  start: number,
  prerollSec: number,
  keyframes?: SourceKeyframes,
  outputFrameSourceSec?: number,
): number {
  const at = Math.max(0, start - prerollSec);
  if (!keyframes?.times.length || !outputFrameSourceSec) return at;
  const { times } = keyframes;
  const limit = start + Math.min(keyframes.frameSec / 4, outputFrameSourceSec / 2);
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= limit) lo = mid + 1;
    else hi = mid;
  }
  const keyframe = lo > 0 ? (times[lo - 1] as number) : undefined;
  return keyframe !== undefined && keyframe > at ? keyframe : at;
}

/**
 * Where an input `-ss` seeks (source seconds) a video source in a container without an index
 * (`containerSeekOf` is `"search"`: MPEG-TS, MPEG-PS), for a stream that starts at source time
 * `start`: {@link SEARCH_SEEK_MARGIN_SEC} before the keyframe the first shown frame decodes from
 * (as {@link inputSeekTime} finds it), so that the demuxer's search lands before that keyframe
 * and decoding starts there; the file's start when the source keeps no keyframe index
 * (`ResolvedAsset.keyframes`), slow on a long file but right.
 *
 * @param outputFrameSourceSec - one output frame in source seconds (output frame duration × speed).
 */
export function searchSeekTime(
  start: number,
  keyframes: KeyframeIndex | undefined,
  outputFrameSourceSec: number,
): number {
  const seek = keyframes && seekKeyframesOf(keyframes);
  // A preroll of `start` lets the seek go back to any keyframe: the one the first frame needs.
  const keyframe = seek ? inputSeekTime(start, start, seek, outputFrameSourceSec) : 0;
  return seekToRead(keyframe, "search", seek?.times).seekSec ?? 0;
}

/**
 * A keyframe index as the input seeks use it: its times, and one frame's duration (seconds) from
 * its average rate; undefined without a rate.
 */
export function seekKeyframesOf(index: KeyframeIndex): SourceKeyframes | undefined {
  return index.fps > 0 ? { times: index.times, frameSec: 1 / index.fps } : undefined;
}

/** Looks up the resolved local file of a media clip. @throws RenderError `ASSET_NOT_FOUND`. */
export function resolvedAssetOf(ctx: BranchContext, clip: Clip): ResolvedAsset {
  const asset = clip.asset;
  if (asset.type !== "video" && asset.type !== "image" && asset.type !== "audio") {
    throw new RenderError("INTERNAL", `clip ${clip.id} has no media asset`, { clipId: clip.id });
  }
  const key = asset.uploadId ?? asset.src ?? "";
  const resolved = ctx.assets.get(key);
  if (!resolved) {
    throw new RenderError("ASSET_NOT_FOUND", `Asset ${key} of clip ${clip.id} was not resolved`, {
      clipId: clip.id,
      ...(asset.uploadId ? { uploadId: asset.uploadId } : {}),
    });
  }
  return resolved;
}

/**
 * Opens (once per clip) the input a media segment reads, bounded on the input side: `-ss` at the
 * source time of the segment's first stream frame (handles included), `-t` just past its last;
 * a still is opened as is (one frame, repeated inside the graph by `buildVisualClip`). Source time of timeline frame f is
 * `trim + (f - origin) / fps * speed` (`trim` throughout for a frozen clip, whose input then
 * decodes just the frames up to the in-point). A head before the source start is held on the first frame;
 * source running out before the stream ends holds the last frame (tpad downstream); both are
 * reported as warnings (`TRANSITION_HANDLE_MISSING` inside a transition handle, else `SOURCE_TOO_SHORT`).
 */
export function openSourceInput(
  ctx: BranchContext,
  seg: Segment,
  opts: { picture?: boolean } = {},
): SourceInput {
  const clip = seg.clip as Clip;
  const asset = resolvedAssetOf(ctx, clip);
  // A clip's picture may read the asset's preview proxy; its sound always reads the asset.
  const proxy = opts.picture ? usableProxy(ctx, clip, asset) : undefined;
  const inputKey = proxy ? `${clip.id}#proxy` : clip.id;
  const existing = ctx.inputs.get(inputKey);
  if (existing) {
    if (opts.picture) existing.picture = true;
    return existing;
  }
  const speed = clip.speed ?? 1;
  const trim = clip.trim ?? 0;
  const from = streamStart(seg);
  const to = streamEnd(seg);
  const srcAt = (f: number) => sourceTimeAt(seg, f, ctx.rate);
  const a = srcAt(from);
  const b = srcAt(to);
  const oneFrame = frameToSeconds(1, ctx.rate);
  let holdHead = 0;
  if (a < -1e-9) {
    holdHead = Math.min(to - from, Math.ceil(-a / speed / oneFrame - 1e-6));
    ctx.warnings.push({
      code: "TRANSITION_HANDLE_MISSING",
      message: `source has ${sec(Math.max(0, trim))} s before the in-point; the first frame is held for the transition`,
      clipId: clip.id,
    });
  }
  const start = Math.max(0, a);
  const isStill = clip.asset.type === "image";
  const duration = asset.media?.duration ?? null;
  if (!isStill && duration !== null && b > duration + oneFrame * speed) {
    const bodyEnd = srcAt(seg.endFrame);
    ctx.warnings.push(
      bodyEnd > duration + oneFrame * speed
        ? {
            code: "SOURCE_TOO_SHORT",
            message: `source ends at ${sec(duration)} s but the clip needs ${sec(bodyEnd)} s; the last frame is held`,
            clipId: clip.id,
          }
        : {
            code: "TRANSITION_HANDLE_MISSING",
            message: "source has too little after the out-point for the transition; the last frame is held",
            clipId: clip.id,
          },
    );
  }
  const keyframes =
    clip.asset.type === "video" && !proxy
      ? ctx.sourceKeyframes?.get(clip.asset.uploadId ?? clip.asset.src ?? "")
      : undefined;
  const outputFrameSourceSec = frameToSeconds(1, ctx.rate) * sourceRate(clip);
  // A preview proxy is an mp4: its seeks land on keyframes.
  const seek = clip.asset.type === "video" && !proxy ? containerSeekOf(asset.media?.formatName) : "index";
  const seekAt =
    isStill || holdHead > 0
      ? start
      : seek === "search"
        ? searchSeekTime(start, asset.keyframes, outputFrameSourceSec)
        : seek === "none"
          ? 0
          : inputSeekTime(start, ctx.seekPreroll ?? SEEK_PREROLL_SEC, keyframes, outputFrameSourceSec);
  const path = proxy?.path ?? asset.path;
  // A still is decoded once and repeated inside the graph (`buildVisualClip`), not re-read per frame.
  const args = isStill
    ? ["-i", asset.path]
    : [
        ...(ctx.decoderThreads && clip.asset.type === "video"
          ? ["-threads", String(ctx.decoderThreads)]
          : []),
        ...(seek === "none" ? [] : ["-ss", sec(seekAt)]),
        "-t",
        sec(b - seekAt + 2 * oneFrame * speed),
        "-i",
        path,
      ];
  const input: SourceInput = {
    index: ctx.graph.addInput(args),
    clipId: clip.id,
    asset,
    path,
    proxy: proxy !== undefined,
    picture: opts.picture === true,
    sourceScale: proxy && asset.media?.width ? proxy.width / asset.media.width : 1,
    firstFrame: from + holdHead,
    holdHead,
    preroll: start - seekAt,
  };
  ctx.inputs.set(inputKey, input);
  return input;
}

/**
 * The preview proxy of a video clip's asset (`ResolvedAsset.proxy`, given to previews only),
 * when it has pixels enough for the clip at this render's size: the render pixels per source
 * pixel the clip's fit, crop and motion zoom ask for are at most the proxy's pixels per source
 * pixel (2 % slack for even-pixel rounding). A 640-px preview of a 16:9 canvas filled by a
 * 1080p clip needs 640×360 source pixels: a 640×360 proxy does; a crop to half the width, or
 * the same preview at 1280 px, does not, and the clip reads the asset.
 */
function usableProxy(ctx: BranchContext, clip: Clip, asset: ResolvedAsset): ResolvedAsset["proxy"] {
  const proxy = asset.proxy;
  const width = asset.media?.width;
  const height = asset.media?.height;
  if (!proxy || clip.asset.type !== "video" || !width || !height) return undefined;
  const box = clipBoxSize(ctx, clip, asset);
  const crop = clip.crop ?? {};
  const shownW = width * Math.max(0.01, 1 - (crop.left ?? 0) - (crop.right ?? 0));
  const shownH = height * Math.max(0.01, 1 - (crop.top ?? 0) - (crop.bottom ?? 0));
  const fit = clip.fit ?? "cover";
  const perSourcePixel =
    fit === "none"
      ? ctx.scale
      : fit === "contain"
        ? Math.min(box.w / shownW, box.h / shownH)
        : Math.max(box.w / shownW, box.h / shownH);
  const zoom = clip.motion ? 1 + (clip.motion.amount ?? DEFAULT_MOTION) : 1;
  return perSourcePixel * zoom <= (proxy.width / width) * 1.02 ? proxy : undefined;
}

/**
 * A transparent canvas-size stream of `frames` frames (gaps, text clips). The pixel format with
 * alpha is set right at the `color` source: with only filters such as `scale` between it and a
 * later `format=yuva420p`, ffmpeg may negotiate the source into a format without alpha, and
 * the "transparent" blank becomes opaque black that hides every track below.
 */
export function buildBlank(ctx: BranchContext, frames: number): string {
  return ctx.graph.chain(
    [],
    [
      `color=c=black@0:s=${ctx.width}x${ctx.height}:r=${rateString(ctx.rate)}`,
      "format=yuva420p",
      `trim=end_frame=${frames}`,
      ...conformToCanvas(ctx.rate, { width: ctx.width, height: ctx.height }, "yuva420p", { rated: true }),
    ],
    "blank",
  );
}

/** The clip's box in render pixels: canvas-normalised transform, missing side from the source aspect. */
export function clipBoxSize(ctx: BranchContext, clip: Clip, asset?: ResolvedAsset): { w: number; h: number } {
  const t = clip.transform ?? {};
  const media = asset?.media;
  const aspect = media?.width && media?.height ? media.width / media.height : undefined;
  let w = (t.width ?? 1) * ctx.width;
  let h = (t.height ?? 1) * ctx.height;
  if (t.width !== undefined && t.height === undefined && aspect) h = w / aspect;
  if (t.height !== undefined && t.width === undefined && aspect) w = h * aspect;
  return { w: even(w), h: even(h) };
}

/**
 * Builds one canvas-size stream for a visual clip segment (video, image or color): input-side
 * bounding, speed, `fps` (normalises VFR), edge-hold padding and an exact frame count
 * (`trim=end_frame`), square pixels (a non-square sample aspect ratio is resampled), crop, filter, fit into the box (cover crops to the box aspect before
 * scaling; contain/fill/none), for a still: its one frame is fitted once then repeated (`loop`),
 * motion (zoompan), opacity, rotation, placement on a transparent canvas at the transform
 * position, regular timestamps, then picture fades (alpha, so lower layers show through).
 * `yuva420p`, or `yuv420p` with `opaque` (the caller checked {@link isOpaqueFullFrame}: nothing
 * transparent to keep). Returns the label.
 */
export function buildVisualClip(ctx: BranchContext, seg: Segment, opts: { opaque?: boolean } = {}): string {
  const clip = seg.clip as Clip;
  const picture = clipPicture(ctx, seg, opts.opaque ? "yuv420p" : "yuva420p");
  const filters = [
    ...picture.filters,
    ...placeFilters(ctx, clip, picture.w, picture.h),
    ...conformToCanvas(ctx.rate, { width: ctx.width, height: ctx.height }, picture.pixelFormat, {
      rated: picture.rated,
    }),
    ...fadeFilters(clip, seg, ctx.rate),
  ];
  return ctx.graph.chain(picture.inputs, filters, "clip", clip.id);
}

/** A clip's picture at its own size, ready to overlay at `x`,`y` of the canvas (render pixels). */
export interface PlacedClip {
  label: string;
  x: number;
  y: number;
}

/**
 * Like {@link buildVisualClip} but without the transparent canvas around it: the clip's box
 * (cropped to what lies on the canvas) with timestamps already on the window's timeline
 * (`windowStart` = the window's first frame), to `overlay` at `x`,`y` with `eof_action=pass`.
 * Lets a track of small or sparse clips (logos, picture-in-picture) blend only the pixels it
 * covers, and only while its clips play. `null` when the clip lies entirely off the canvas.
 */
export function buildPlacedClip(ctx: BranchContext, seg: Segment, windowStart: number): PlacedClip | null {
  const clip = seg.clip as Clip;
  const t = clip.transform ?? {};
  const box = clipBoxSize(ctx, clip, clip.asset.type === "color" ? undefined : resolvedAssetOf(ctx, clip));
  const { w, h } = rotatedSize(box, clip.transform?.rotate ?? 0);
  const x = Math.round((t.x ?? 0.5) * ctx.width - w / 2);
  const y = Math.round((t.y ?? 0.5) * ctx.height - h / 2);
  const vx0 = Math.max(0, x);
  const vy0 = Math.max(0, y);
  const vx1 = Math.min(ctx.width, x + w);
  const vy1 = Math.min(ctx.height, y + h);
  if (vx1 - vx0 < 2 || vy1 - vy0 < 2) return null;
  const picture = clipPicture(ctx, seg, "yuva420p");
  const filters = [...picture.filters];
  if (vx0 !== x || vy0 !== y || vx1 !== x + w || vy1 !== y + h) {
    filters.push(`crop=${vx1 - vx0}:${vy1 - vy0}:${vx0 - x}:${vy0 - y}:exact=1`);
  }
  filters.push(
    ...conformToCanvas(ctx.rate, { width: vx1 - vx0, height: vy1 - vy0 }, "yuva420p", {
      rated: picture.rated,
    }),
    ...fadeFilters(clip, seg, ctx.rate),
  );
  // Onto the window's timeline with the same rounding as every other stream (`N` counts this
  // stream's frames), so that overlay pairs each frame with exactly one canvas frame.
  // Rounded: after `fps` the time base is den/num itself, where den/(num*TB) evaluates to
  // 0.9999999999999999 and setpts's truncation put the clip one frame early (e.g. at 59.94 fps
  // a clip starting at frame 23 covered frame 22 of the track below).
  filters.push(`setpts=round((N+${streamStart(seg) - windowStart})*${ctx.rate.den}/(${ctx.rate.num}*TB))`);
  return { label: ctx.graph.chain(picture.inputs, filters, "clip", clip.id), x: vx0, y: vy0 };
}

/** Size (even pixels) of a box rotated by `degrees`: its bounding box. */
function rotatedSize(box: { w: number; h: number }, degrees: number): { w: number; h: number } {
  if (degrees % 360 === 0) return box;
  const rad = (degrees * Math.PI) / 180;
  return {
    w: even(Math.abs(box.w * Math.cos(rad)) + Math.abs(box.h * Math.sin(rad))),
    h: even(Math.abs(box.w * Math.sin(rad)) + Math.abs(box.h * Math.cos(rad))),
  };
}

/**
 * The clip's picture up to (not including) its placement on the canvas: source bounding, speed,
 * fps, hold, exact length, crop, filter, fit, motion, pixel format, opacity, rotation.
 * Returns the chain's inputs and filters, the picture's size, and whether its link already has
 * the canvas frame rate (`rated`: a video passes `fps`, also a frozen one before its `loop`, a
 * colour source is made at the rate, motion's `zoompan` outputs it; a still repeated by `loop`
 * keeps its demuxer's rate).
 */
function clipPicture(
  ctx: BranchContext,
  seg: Segment,
  pixelFormat: BranchPixelFormat,
): {
  inputs: string[];
  filters: string[];
  w: number;
  h: number;
  pixelFormat: BranchPixelFormat;
  rated: boolean;
} {
  const clip = seg.clip as Clip;
  const frames = streamEnd(seg) - streamStart(seg);
  const rate = rateString(ctx.rate);
  const filters: string[] = [];
  let inputs: string[] = [];
  let asset: ResolvedAsset | undefined;
  let sourceScale = 1;
  if (clip.asset.type === "color") {
    const box = clipBoxSize(ctx, clip);
    // The pixel format at the source, as for blanks: a `#rrggbbaa` colour keeps its alpha.
    filters.push(
      `color=c=${ffColor(clip.asset.color)}:s=${box.w}x${box.h}:r=${rate}`,
      `format=${pixelFormat}`,
      `trim=end_frame=${frames}`,
    );
  } else {
    const input = openSourceInput(ctx, seg, { picture: true });
    asset = input.asset;
    sourceScale = input.sourceScale;
    inputs = [`${input.index}:v`];
    if (clip.asset.type === "image") {
      // One decoded frame, made into the picture once, then repeated (cheap references).
      filters.push("trim=end_frame=1", SQUARE_PIXELS);
    } else if (clip.freeze) {
      // The frame a playing clip shows first (the source frame its in-point's time rounds to,
      // picked by `fps` as below), made into the picture once, then repeated like a still's.
      const shift = prerollShift(input.preroll);
      filters.push(`setpts=${shift}`, `fps=fps=${rate}:start_time=0`, "trim=end_frame=1", SQUARE_PIXELS);
    } else {
      const speed = clip.speed ?? 1;
      // The input's `-ss` puts the stream's first source time (after the preroll, whose frames
      // fall before it) at time 0. The first decoded frame lies up to one source frame after it:
      // keeping its timestamp (not `PTS-STARTPTS`, which would pull every frame earlier by that
      // remainder, ahead of the sound) and letting `fps` start at 0 (`start_time`) keeps, for each
      // output frame, the source frame its own time rounds to, in sync with the sound.
      const shift = prerollShift(input.preroll);
      filters.push(
        speed === 1 ? `setpts=${shift}` : `setpts=(${shift})/${speed}`,
        `fps=fps=${rate}:start_time=0`,
      );
      if (input.holdHead > 0) filters.push(`tpad=start=${input.holdHead}:start_mode=clone`);
      // Square pixels first, so that crop, fit and placement work in display proportions.
      filters.push("tpad=stop=-1:stop_mode=clone", `trim=end_frame=${frames}`, SQUARE_PIXELS);
    }
  }
  const box = clipBoxSize(ctx, clip, asset);
  const crop = clip.crop;
  const reframe = clip.reframe !== undefined && clip.asset.type === "video";
  if (reframe) {
    // The reframe window has the box's aspect: it replaces crop and fit.
    const resize =
      pixelFormat === "yuv420p" ? resizeOpaqueVideo : (w: number, h: number) => [`scale=w=${w}:h=${h}`];
    const reframed = reframePicture(
      ctx.graph,
      seg,
      {
        a: sourceTimeAt(seg, streamStart(seg), ctx.rate),
        b: frameToSeconds(1, ctx.rate) * sourceRate(clip),
        from: sourceTimeAt(seg, streamStart(seg), ctx.rate),
        to: sourceTimeAt(seg, streamEnd(seg), ctx.rate),
      },
      box,
      { inputs, filters },
      resize,
    );
    inputs = reframed.inputs;
    filters.splice(0, filters.length, ...reframed.filters);
    const filter = pictureFilter(clip, box.h, sourceScale);
    if (filter) filters.push(filter);
  } else if (crop && clip.asset.type !== "color") {
    const l = crop.left ?? 0;
    const r = crop.right ?? 0;
    const t = crop.top ?? 0;
    const b = crop.bottom ?? 0;
    filters.push(
      `crop=w=${quote(`max(2,trunc(iw*${1 - l - r}/2)*2)`)}:h=${quote(`max(2,trunc(ih*${1 - t - b}/2)*2)`)}:x=${quote(`iw*${l}`)}:y=${quote(`ih*${t}`)}`,
    );
  }
  if (!reframe) {
    const filter = pictureFilter(clip, box.h, sourceScale);
    if (filter) filters.push(filter);
  }
  if (clip.asset.type !== "color" && !reframe) {
    // An opaque video picture (the base track's) is resized by zimg; see `resizeOpaqueVideo`.
    const resize = clip.asset.type === "video" && pixelFormat === "yuv420p" ? resizeOpaqueVideo : undefined;
    filters.push(...fitFilters(clip, box, ctx.scale / sourceScale, resize));
  }
  const still = clip.asset.type === "image" || clip.freeze === true;
  if (still) {
    filters.push("loop=loop=-1:size=1:start=0", `trim=end_frame=${frames}`, regularPts(ctx.rate));
  }
  if (clip.motion) {
    // Progress over the whole stream, also when a window (range render, segment) cut it.
    const uncut = seg.uncut ?? { start: streamStart(seg), end: streamEnd(seg) };
    filters.push(
      motionFilter(clip, box, { first: streamStart(seg) - uncut.start, of: uncut.end - uncut.start }, rate),
    );
  }
  filters.push(`format=${pixelFormat}`);
  const opacity = clip.transform?.opacity ?? 1;
  if (opacity < 1) filters.push(`lut=a=${quote(`val*${opacity}`)}`);
  const rotate = clip.transform?.rotate ?? 0;
  const { w, h } = rotatedSize(box, rotate);
  if (rotate % 360 !== 0) {
    filters.push(`rotate=a=${((rotate * Math.PI) / 180).toFixed(6)}:ow=${w}:oh=${h}:c=black@0`);
  }
  return {
    inputs,
    filters,
    w,
    h,
    pixelFormat,
    rated: clip.asset.type !== "image" || clip.motion !== undefined,
  };
}

/**
 * Whether a clip's `transform` is the identity: its box centred on the full canvas, not rotated
 * (a whole number of turns), fully opaque.
 */
export function hasIdentityTransform(clip: Pick<Clip, "transform">): boolean {
  const t = clip.transform ?? {};
  return (
    (t.x ?? 0.5) === 0.5 &&
    (t.y ?? 0.5) === 0.5 &&
    (t.width ?? 1) === 1 &&
    (t.height ?? 1) === 1 &&
    (t.rotate ?? 0) % 360 === 0 &&
    (t.opacity ?? 1) >= 1
  );
}

/**
 * Whether a clip's stream fills the whole canvas with opaque pixels for its whole length: a
 * solid colour or a video in a known alpha-less codec, fitted `cover`/`fill` into the full
 * canvas (no transform other than the identity, full opacity, no rotation), without picture
 * fades. Images are never assumed opaque (PNG/WebP may carry alpha).
 */
export function isOpaqueFullFrame(ctx: BranchContext, clip: Clip): boolean {
  if (!hasIdentityTransform(clip) || (clip.fadeIn ?? 0) > 0 || (clip.fadeOut ?? 0) > 0) return false;
  if (clip.asset.type === "color") {
    const hex = clip.asset.color;
    return hex.length < 9 || hex.slice(7, 9).toLowerCase() === "ff";
  }
  if (clip.asset.type !== "video") return false;
  if ((clip.fit ?? "cover") !== "cover" && clip.fit !== "fill") return false;
  const key = clip.asset.uploadId ?? clip.asset.src ?? "";
  return isOpaqueVideoCodec(ctx.assets.get(key)?.media?.videoCodec);
}

/** The clip's `filter`; a blur's radius is in source pixels, `sourceScale` decoded pixels each. */
function pictureFilter(clip: Clip, boxHeight: number, sourceScale: number): string | undefined {
  switch (clip.filter) {
    case undefined:
      return undefined;
    case "greyscale":
      return "hue=s=0";
    case "blur":
      return `gblur=sigma=${sec(Math.max(1, Math.round(boxHeight / 60)) * sourceScale)}`;
    case "contrast":
      return "eq=contrast=1.4";
    case "darken":
      return "eq=brightness=-0.2";
    case "lighten":
      return "eq=brightness=0.2";
    case "negative":
      return "negate";
  }
}

/**
 * Resizes an opaque 4:2:0 video picture to exactly `w`x`h` pixels with zimg (`zscale`, bicubic)
 * instead of swscale: the same picture (luma within 58–64 dB PSNR of swscale's bicubic on the
 * reference sources) for about a third less CPU per upscaled 1080p frame, and a pass-through
 * when the size is already right. The picture is made 8-bit 4:2:0 first (by swscale, at the
 * source's size; a no-op for the usual H.264/HEVC 4:2:0 source), so that zimg only resizes: it
 * never converts colour spaces or ranges, whatever the source's colour tags say.
 */
function resizeOpaqueVideo(w: number, h: number): string[] {
  return ["format=yuv420p", `zscale=w=${w}:h=${h}:filter=bicubic`, "format=yuv420p"];
}

/**
 * The filters that fit a clip's picture into its box (`fit`). `resize` makes the exact-size
 * resize of `cover` and `fill` (default swscale's `scale`).
 */
function fitFilters(
  clip: Clip,
  box: { w: number; h: number },
  scale: number,
  resize: (w: number, h: number) => string[] = (w, h) => [`scale=w=${w}:h=${h}`],
): string[] {
  const { w, h } = box;
  switch (clip.fit ?? "cover") {
    case "cover":
      // Crop the source to the box's aspect first, then scale only what is kept (a portrait
      // 1080x1920 source for a 1920x1080 box is scaled from 1080x608, not up to 1920x3413).
      return [`crop=w=${quote(`min(iw,ih*${w}/${h})`)}:h=${quote(`min(ih,iw*${h}/${w})`)}`, ...resize(w, h)];
    case "fill":
      return resize(w, h);
    case "contain":
      return [
        `scale=w=${w}:h=${h}:force_original_aspect_ratio=decrease:force_divisible_by=2`,
        "format=yuva420p",
        `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black@0`,
      ];
    case "none":
      return [
        `scale=w=${quote(`max(2,trunc(iw*${scale}/2)*2)`)}:h=${quote(`max(2,trunc(ih*${scale}/2)*2)`)}`,
        `crop=w=${quote(`min(iw,${w})`)}:h=${quote(`min(ih,${h})`)}`,
        "format=yuva420p",
        `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black@0`,
      ];
  }
}

/**
 * Ken Burns motion with zoompan (one output frame per input frame). Progress runs from 0 at the
 * first frame of the clip's whole stream to 1 at its last (`span.of` frames); this stream starts
 * at frame `span.first` of it.
 */
function motionFilter(
  clip: Clip,
  box: { w: number; h: number },
  span: { first: number; of: number },
  rate: string,
): string {
  const motion = clip.motion;
  if (!motion) return "null";
  const a = motion.amount ?? DEFAULT_MOTION;
  const p =
    span.first > 0 ? `((on+${span.first})/${Math.max(1, span.of - 1)})` : `(on/${Math.max(1, span.of - 1)})`;
  const centreX = "iw/2-(iw/zoom/2)";
  const centreY = "ih/2-(ih/zoom/2)";
  let z = `${1 + a}`;
  let x = centreX;
  let y = centreY;
  switch (motion.type) {
    case "zoomIn":
      z = `1+${a}*${p}`;
      break;
    case "zoomOut":
      z = `1+${a}*(1-${p})`;
      break;
    case "panLeft":
      x = `(iw-iw/zoom)*(1-${p})`;
      break;
    case "panRight":
      x = `(iw-iw/zoom)*${p}`;
      break;
    case "panUp":
      y = `(ih-ih/zoom)*(1-${p})`;
      break;
    case "panDown":
      y = `(ih-ih/zoom)*${p}`;
      break;
  }
  return `zoompan=z=${quote(z)}:x=${quote(x)}:y=${quote(y)}:d=1:s=${box.w}x${box.h}:fps=${rate}`;
}

/** Crops what falls outside the canvas and pads the rest onto a transparent canvas. */
function placeFilters(ctx: BranchContext, clip: Clip, w: number, h: number): string[] {
  const t = clip.transform ?? {};
  const x = Math.round((t.x ?? 0.5) * ctx.width - w / 2);
  const y = Math.round((t.y ?? 0.5) * ctx.height - h / 2);
  if (x === 0 && y === 0 && w === ctx.width && h === ctx.height) return [];
  const vx0 = Math.max(0, x);
  const vy0 = Math.max(0, y);
  const vx1 = Math.min(ctx.width, x + w);
  const vy1 = Math.min(ctx.height, y + h);
  if (vx1 - vx0 < 2 || vy1 - vy0 < 2) {
    // Entirely off-canvas: keep the timing, show nothing.
    return ["lut=a=0", `scale=${ctx.width}:${ctx.height}`];
  }
  const filters: string[] = [];
  if (vx0 !== x || vy0 !== y || vx1 !== x + w || vy1 !== y + h) {
    filters.push(`crop=${vx1 - vx0}:${vy1 - vy0}:${vx0 - x}:${vy0 - y}:exact=1`);
  }
  filters.push(`pad=${ctx.width}:${ctx.height}:${vx0}:${vy0}:color=black@0`);
  return filters;
}

/**
 * Picture fades on the segment stream. Timestamps are first counted in frames (exact integers)
 * from the first frame of the clip's whole stream (`Segment.uncut`, the transition's lead
 * included), the same in any window, so `fade` gives every frame the same alpha in any window as
 * in the whole render, also where a window (range render, split segment) starts inside a fade;
 * then they count from the stream start again. The clip starts `head` frames into that count:
 * never a negative timestamp, which ffmpeg 5.1's `fade` mishandles (a first frame before 0 made
 * a fade-out transparent, and a fade-in opaque, for the whole clip).
 */
function fadeFilters(clip: Clip, seg: Segment, rate: FrameRate): string[] {
  const fadeIn = clip.fadeIn ?? 0;
  const fadeOut = clip.fadeOut ?? 0;
  if (fadeIn <= 0 && fadeOut <= 0) return [];
  const first = seg.uncut?.start ?? streamStart(seg);
  const head = Math.max(0, seg.origin - first);
  const at = (frame: number) => frameToSeconds(frame - seg.origin + head, rate);
  const offset = streamStart(seg) - seg.origin + head;
  const out = [`settb=${rate.den}/${rate.num}`, offset === 0 ? "setpts=N" : `setpts=N+${offset}`];
  if (fadeIn > 0) out.push(`fade=t=in:st=${sec(at(seg.origin))}:d=${sec(fadeIn)}:alpha=1`);
  if (fadeOut > 0) {
    const end = at(secondsToFrame(clip.start + clip.duration, rate));
    out.push(`fade=t=out:st=${sec(end - fadeOut)}:d=${sec(fadeOut)}:alpha=1`);
  }
  out.push(regularPts(rate));
  return out;
}
