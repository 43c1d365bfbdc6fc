import type { KeyframeIndex } from "../../media/keyframes.ts";
import { compositionDuration } from "../composition/duration.ts";
import type { Timeline } from "../composition/schema.ts";
import { chooseBoundaries, startPrerollFrames } from "./keyframes.ts";
import type { EncoderVariant } from "./outputs.ts";
import {
  type BuildRenderPlanInput,
  buildRenderPlan,
  dedupeWarnings,
  layoutTracks,
  type PlanFile,
  posterFrameOf,
  type RenderPlan,
  RUN_ARGS,
  requestedWindow,
  windowedTracks,
} from "./plan.ts";
import { type FrameRate, frameToSeconds, secondsToFrame, toFrameRate } from "./timeline.ts";
import { RenderError, type RenderOutputOptions, type RenderWarning } from "./types.ts";
import { SEEK_PREROLL_SEC } from "./video-branch.ts";

/** Output frames `[startFrame, endFrame)` of a render, rendered as one segment. */
export interface FrameRange {
  startFrame: number;
  endFrame: number;
}

/**
 * A file a join reads for output frames `[startFrame, endFrame)`: all of it, or (a smart
 * render's copy read in place from its source) its packets from `inpoint` (seconds, a
 * keyframe's time) until the first packet whose decode time reaches `outpoint` (seconds; null:
 * to the end of the file).
 */
export interface JoinEntry extends FrameRange {
  file: string;
  inpoint?: number;
  outpoint?: number | null;
}

/**
 * Cuts `totalFrames` output frames into consecutive segments of `segmentSec` seconds each,
 * rounded to whole frames at `rate` (at least one frame); the last segment takes what is left
 * and may be shorter. The ranges cover `[0, totalFrames)` exactly, without gaps or overlaps.
 *
 * @throws RangeError when `totalFrames` is not a positive integer or `segmentSec` is not positive.
 */
export function planSegments(totalFrames: number, rate: FrameRate, segmentSec: number): FrameRange[] {
  if (!Number.isInteger(totalFrames) || totalFrames < 1)
    throw new RangeError(`totalFrames must be a positive integer, got ${totalFrames}`);
  if (!(segmentSec > 0) || !Number.isFinite(segmentSec))
    throw new RangeError(`segmentSec must be positive, got ${segmentSec}`);
  const length = Math.max(1, secondsToFrame(segmentSec, rate));
  const ranges: FrameRange[] = [];
  for (let start = 0; start < totalFrames; start += length) {
    ranges.push({ startFrame: start, endFrame: Math.min(totalFrames, start + length) });
  }
  return ranges;
}

/**
 * The video segments of a split render of `base` (output frames of the whole composition, at
 * the output frame rate, covering the render's window exactly): {@link planSegments}'s cuts,
 * each boundary moved within a quarter of a segment of its nominal frame to where starting a
 * segment decodes the fewest source frames before its first frame (`chooseBoundaries`,
 * `startPrerollFrames`: the groups of pictures the clips across it seek into). Without
 * `keyframes` (or for a boundary across a video source without an index) the cuts are
 * `planSegments`'s.
 *
 * @param keyframes - keyframe indexes of the video sources by asset key (`uploadId`, else `src`).
 * @throws RenderError `INVALID_COMPOSITION` for an empty composition or a range after its end;
 *   RangeError for a `segmentSec` that is not positive.
 */
export function planSplitSegments(
  base: Pick<SplitPartBase, "composition" | "output">,
  segmentSec: number,
  keyframes?: ReadonlyMap<string, KeyframeIndex>,
): FrameRange[] {
  const { rate, window } = renderFrameWindow(base.composition, base.output);
  const frames = window.end - window.start;
  const nominal = planSegments(frames, rate, segmentSec);
  let starts = nominal.map((r) => r.startFrame);
  if (keyframes && keyframes.size > 0 && nominal.length > 1) {
    const totalFrames = secondsToFrame(compositionDuration(base.composition), rate);
    const tracks = layoutTracks(base.composition, rate, totalFrames, []);
    const length = nominal[0]?.endFrame ?? frames;
    const cost = (f: number) =>
      startPrerollFrames(tracks, window.start + f, rate, keyframes, SEEK_PREROLL_SEC);
    starts = [0, ...chooseBoundaries(frames, length, nominal.length, cost)];
  }
  return starts.map((start, i) => ({
    startFrame: window.start + start,
    endFrame: window.start + (starts[i + 1] ?? frames),
  }));
}

/** Inputs of {@link buildSplitRenderPlan}: those of `buildRenderPlan` (mp4 only) and the segment length. */
export interface BuildSplitRenderPlanInput
  extends Omit<BuildRenderPlanInput, "variant" | "names" | "outputPath"> {
  /** Length of a video segment, seconds (rounded to whole frames). */
  segmentSec: number;
  /** Where the joined mp4 goes (relative to the cwd of the join, or absolute). */
  outputPath: string;
  /** Lossless H.264 in every video part (x264 `-qp 0`): internal, for exactness tests only. */
  lossless?: boolean;
  /** Keyframe indexes of the video sources by asset key: boundaries as {@link planSplitSegments} places them. */
  keyframes?: ReadonlyMap<string, KeyframeIndex>;
}

/** One video segment: its output frames (of the whole render), its plan and the file it writes. */
export interface SegmentPlan extends FrameRange {
  /** The segment's mp4 (video only), relative to the cwd. */
  file: string;
  plan: RenderPlan;
}

/**
 * A render split into independent ffmpeg runs: every video segment and the audio may run at
 * once (each in the same cwd, with its own file names), then `join` runs last.
 */
export interface SplitRenderPlan {
  segments: SegmentPlan[];
  /** The whole timeline's sound, encoded once (AAC in an audio-only mp4). */
  audio: { file: string; plan: RenderPlan };
  /** The concat list (`files`) and the ffmpeg arguments that join the segments and the audio by stream copy. */
  join: { args: string[]; files: PlanFile[] };
  /** Output frames in all, at `rate`. */
  frames: number;
  rate: FrameRate;
  /** Length of the output, seconds. */
  durationSec: number;
  /** Warnings of every part's plan, each once. */
  warnings: RenderWarning[];
  /** What the joined output is (as `RenderPlan.output` of the unsplit render). */
  output: RenderPlan["output"];
}

/** File name of the concat demuxer list (ffconcat) of a split render. */
export const CONCAT_LIST = "segments.ffconcat";
/** File name of the audio part of a split render. */
export const AUDIO_PART = "audio.m4a";

/** A part's file name in a work directory and under `renders/<id>/parts/`: `seg-000.mp4`…, or {@link AUDIO_PART}. */
export const partFileName = (part: { kind: "video" | "audio"; index: number }): string =>
  part.kind === "audio" ? AUDIO_PART : `seg-${String(part.index).padStart(3, "0")}.mp4`;

/**
 * Plans a split render of an mp4 (docs/architecture.md, Split rendering): one video-only
 * plan per segment of {@link planSplitSegments}, one audio plan, one join.
 *
 * Each segment is `buildRenderPlan` with the segment as `output.range`: the whole graph is built
 * (over the window widened so that no transition is cut) and the segment's frames are kept on
 * the output side, so that transitions, text and motion crossing a boundary look as in one
 * render. Every segment is encoded with identical settings (but for the x264 zones of its first
 * and last frames, `partEdgeZones` of its frame count), starts with an IDR frame (its own
 * encoder) and closes its GOPs (`-flags +cgop`), in mp4: its track time base follows the frame
 * rate (1/24000 at 23.976 fps, so every frame lasts the same number of ticks, which 90 kHz
 * MPEG-TS cannot give at 23.976 and 59.94 fps) and its B-frame delay is an edit list that the
 * concat demuxer honours. The audio is rendered once for the
 * whole timeline and encoded once (AAC segments joined would each add their encoder priming).
 * The join reads the segments with the concat demuxer, each with its exact `duration` (so the
 * timestamps of segment k start at exactly its first frame's time) and copies both streams into
 * the output, its header first: no re-encoding.
 *
 * Pure: reads no files and spawns nothing.
 *
 * @throws RenderError `INVALID_COMPOSITION` for a format other than mp4, and whatever
 *   `buildRenderPlan` throws for a part.
 * @throws RangeError for a `segmentSec` that is not positive.
 */
export function buildSplitRenderPlan(input: BuildSplitRenderPlanInput): SplitRenderPlan {
  const { segmentSec, outputPath, lossless, keyframes, ...base } = input;
  if (base.output.format !== "mp4") {
    throw new RenderError("INVALID_COMPOSITION", `split rendering makes mp4 only, not ${base.output.format}`);
  }
  const { rate, window } = renderFrameWindow(base.composition, base.output);
  const segments = planSplitSegments(base, segmentSec, keyframes).map((range, i) =>
    buildSegmentPlan(base, range, i, lossless ? { lossless } : {}),
  );
  const audio = buildAudioPlan(base);
  const first = segments[0]?.plan;
  const durationSec = frameToSeconds(window.end - window.start, rate);
  const join = buildJoinPlan(segments, rate, outputPath);
  return {
    segments,
    audio,
    join,
    frames: window.end - window.start,
    rate,
    durationSec,
    warnings: dedupeWarnings([...segments.flatMap((s) => s.plan.warnings), ...audio.plan.warnings]),
    output: { ...(first?.output ?? audio.plan.output), format: "mp4", audio: true },
  };
}

/**
 * The output frames of a render at its output frame rate: `window` is `[start, end)` of the
 * composition's frames (the requested `range`, or all of them).
 * @throws RenderError `INVALID_COMPOSITION` for an empty composition, and whatever
 *   `requestedWindow` throws for a range outside it.
 */
export function renderFrameWindow(
  composition: Timeline,
  output: RenderOutputOptions,
): { rate: FrameRate; window: { start: number; end: number } } {
  const rate = toFrameRate(output.fps ?? composition.canvas.fps);
  const totalFrames = secondsToFrame(compositionDuration(composition), rate);
  if (totalFrames <= 0) throw new RenderError("INVALID_COMPOSITION", "The composition is empty (duration 0)");
  const window = requestedWindow(output, totalFrames, rate);
  return { rate, window: { start: window.start, end: window.end } };
}

/** The base of a part's plan: `buildRenderPlan`'s input without the part's own names, variant and output file. */
export type SplitPartBase = Omit<BuildRenderPlanInput, "variant" | "names" | "outputPath">;

/** Options of {@link buildSegmentPlan}. */
export interface SegmentPlanOptions {
  /** Lossless H.264 (exactness tests). */
  lossless?: boolean;
  /** A piece of a smart render: encoded in the copied sources' format (`EncoderVariant.match`). */
  match?: EncoderVariant["match"];
  /** File name prefix (default `seg`): a smart render's pieces are `piece-<index>.mp4`. */
  prefix?: string;
  /**
   * Where the segment writes the whole render's poster when the poster's frame
   * (`posterFrameOf` of the whole output) is one of the segment's: the render made in one piece
   * writes it in its own run, so the join need not decode the output again.
   */
  posterPath?: string;
}

/**
 * The plan of video segment `index` of a split render: `buildRenderPlan` with the segment's
 * output frames as `output.range` (the whole graph is built, the frames are kept on the output
 * side), video only with closed GOPs, its first and last frames at a higher quality
 * (`EncoderVariant.partFrames`), writing `seg-<index>.mp4` with its own plan file names,
 * and the render's poster when it holds the poster's frame (`plan.output.posterPath` set).
 *
 * @param range - output frames of the whole render at the output frame rate.
 * @throws whatever `buildRenderPlan` throws.
 */
export function buildSegmentPlan(
  base: SplitPartBase,
  range: FrameRange,
  index: number,
  opts: SegmentPlanOptions = {},
): SegmentPlan {
  const { rate, window } = renderFrameWindow(base.composition, base.output);
  const tag = `${opts.prefix ? `${opts.prefix}-` : ""}${String(index).padStart(3, "0")}`;
  const file = `${opts.prefix ?? "seg"}-${String(index).padStart(3, "0")}.mp4`;
  const poster = window.start + posterFrameOf(window.end - window.start);
  const writesPoster = opts.posterPath !== undefined && poster >= range.startFrame && poster < range.endFrame;
  const plan = buildRenderPlan({
    ...base,
    output: segmentOutput(base.output, range, rate),
    outputPath: file,
    names: { assFile: `seg-${tag}.ass`, fontsDir: `fonts-${tag}`, graphFile: `graph-${tag}.txt` },
    variant: {
      streams: "video",
      partFrames: range.endFrame - range.startFrame,
      ...(opts.lossless ? { lossless: true } : {}),
      ...(opts.match ? { match: opts.match } : {}),
    },
    ...(writesPoster ? { posterPath: opts.posterPath, posterFrame: poster - range.startFrame } : {}),
  });
  return { startFrame: range.startFrame, endFrame: range.endFrame, file, plan };
}

/** The output options of a segment: the render's, with the segment's frames as `range`. */
function segmentOutput(output: RenderOutputOptions, range: FrameRange, rate: FrameRate): RenderOutputOptions {
  return {
    ...output,
    range: {
      start: frameToSeconds(range.startFrame, rate),
      duration: frameToSeconds(range.endFrame - range.startFrame, rate),
    },
  };
}

/**
 * The clips whose sources video segment `range` of a split render reads (ids): the media clips
 * (video, image, audio) that play in the frames its plan builds (`buildSegmentPlan`: the segment
 * widened over transitions across its boundaries), and every text and caption clip (their
 * subtitle files are small and read whole). A part resolves, and on remote storage fetches,
 * only these sources instead of every source of the composition.
 *
 * @param range - output frames of the whole render at the output frame rate.
 * @throws RenderError `INVALID_COMPOSITION` for an empty composition or a range after its end.
 */
export function segmentClipIds(
  base: Pick<SplitPartBase, "composition" | "output">,
  range: FrameRange,
): Set<string> {
  const { composition } = base;
  const { rate } = renderFrameWindow(composition, base.output);
  const totalFrames = secondsToFrame(compositionDuration(composition), rate);
  const request = requestedWindow(segmentOutput(base.output, range, rate), totalFrames, rate);
  const { windowed } = windowedTracks(composition, rate, totalFrames, request, []);
  const ids = new Set<string>();
  for (const laid of windowed) for (const s of laid.segments) if (s.clip) ids.add(s.clip.id);
  for (const track of composition.tracks) {
    for (const clip of track.clips) {
      if (clip.asset.type === "text" || clip.asset.type === "caption") ids.add(clip.id);
    }
  }
  return ids;
}

/**
 * The audio part of a split render: the whole timeline's sound (of `base.output.range` when
 * set) encoded once as AAC into {@link AUDIO_PART}.
 * @throws whatever `buildRenderPlan` throws.
 */
export function buildAudioPlan(base: SplitPartBase): { file: string; plan: RenderPlan } {
  return {
    file: AUDIO_PART,
    plan: buildRenderPlan({
      ...base,
      outputPath: AUDIO_PART,
      names: { graphFile: "graph-audio.txt" },
      variant: { streams: "audio" },
    }),
  };
}

/**
 * The join of a split render: the ffconcat list of `segments` (in order, each a file with its
 * output frames) and the ffmpeg arguments that read them with the concat demuxer and the
 * audio part, and copy both streams into `outputPath` (mp4) without re-encoding. With the
 * sound, the header is written before the media in the space {@link moovReserveBytes} keeps
 * for it (`-moov_size`), which spares `+faststart`'s second pass over the whole file; when that
 * space falls short ffmpeg says so ({@link MOOV_TOO_SMALL}) and the join is run again with
 * {@link withFaststart}'s arguments.
 * The files may be relative to the cwd or absolute (parts read in place from a local store):
 * the list is read with `-safe 0`; its entries are the server's own paths.
 *
 * @param rate - the output frame rate (the segments' frame ranges are at this rate).
 * @param audioPath - the audio part (default {@link AUDIO_PART} in the cwd); null joins the
 *   video alone (a smart render's pieces into one segment).
 * @param list - the concat list's file name (default {@link CONCAT_LIST}).
 */
export function buildJoinPlan(
  segments: readonly JoinEntry[],
  rate: FrameRate,
  outputPath: string,
  audioPath: string | null = AUDIO_PART,
  list: string = CONCAT_LIST,
): { args: string[]; files: PlanFile[] } {
  return {
    files: [{ path: list, content: concatList(segments, rate) }],
    args: [
      ...RUN_ARGS,
      ...["-f", "concat", "-safe", "0", "-i", list, ...(audioPath === null ? [] : ["-i", audioPath])],
      ...[
        "-map",
        "0:v:0",
        ...(audioPath === null ? ["-an"] : ["-map", "1:a:0"]),
        "-c",
        "copy",
        "-tag:v",
        "avc1",
      ],
      ...(audioPath === null
        ? ["-f", "mp4"]
        : ["-moov_size", String(moovReserveBytes(segments, rate)), "-f", "mp4"]),
      outputPath,
    ],
  };
}

/**
 * Bytes to keep for the mp4 header of a join of `segments` with its AAC sound (48 kHz, 1,024
 * samples a packet): 16 KiB plus 48 bytes for each video and audio packet. ffmpeg writes about
 * 17 bytes a packet (sizes, composition offsets, chunk offsets; measured: 729,441 bytes for
 * 17,176 video and 26,839 audio packets), so the bound holds with room; the unused rest is a
 * `free` box.
 */
export function moovReserveBytes(segments: readonly FrameRange[], rate: FrameRate): number {
  const frames = (segments.at(-1)?.endFrame ?? 0) - (segments[0]?.startFrame ?? 0);
  const audioPackets = Math.ceil((frameToSeconds(frames, rate) * 48_000) / 1024) + 2;
  return 16_384 + 48 * (frames + audioPackets);
}

/** What ffmpeg's mp4 muxer writes (and still exits 0) when the kept header space was too small. */
export const MOOV_TOO_SMALL = /reserved_moov_size is too small/;

/** A join's arguments (`buildJoinPlan`) with `+faststart` instead of a kept header space. */
export function withFaststart(args: readonly string[]): string[] {
  const at = args.indexOf("-moov_size");
  if (at < 0) return [...args];
  return [...args.slice(0, at), "-movflags", "+faststart", ...args.slice(at + 2)];
}

/**
 * The ffconcat list of the segments. Each entry carries its exact `duration`: the demuxer
 * offsets a file's timestamps by the sum of the durations before it (in microseconds), so
 * every duration is written as the difference of the rounded boundary times. The sum then
 * never drifts more than half a microsecond from the exact frame time, which rounds to the
 * exact tick of the stream time base.
 */
function concatList(segments: readonly JoinEntry[], rate: FrameRate): string {
  const micros = (frame: number) => Math.round((frame * rate.den * 1_000_000) / rate.num);
  const origin = segments[0]?.startFrame ?? 0;
  const lines = ["ffconcat version 1.0"];
  for (const s of segments) {
    const us = micros(s.endFrame - origin) - micros(s.startFrame - origin);
    lines.push(
      // ffconcat quoting: a quote inside single quotes is closed, escaped and reopened.
      `file '${s.file.replaceAll("'", "'\\''")}'`,
      ...(s.inpoint !== undefined ? [`inpoint ${s.inpoint.toFixed(6)}`] : []),
      ...(typeof s.outpoint === "number" ? [`outpoint ${s.outpoint.toFixed(6)}`] : []),
      `duration ${Math.floor(us / 1_000_000)}.${String(us % 1_000_000).padStart(6, "0")}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
