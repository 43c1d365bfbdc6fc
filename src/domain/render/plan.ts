import { POSTER_ENCODER_ARGS, posterFilters } from "../../media/poster.ts";
import { compositionDuration } from "../composition/duration.ts";
import type { Timeline, Track } from "../composition/schema.ts";
import { type AssClipInput, buildAss, type GlyphUse } from "./ass.ts";
import { buildAudioMix, type LaidOutTrack } from "./audio-branch.ts";
import { conformToCanvas } from "./conform.ts";
import { even, FilterGraph, ffColor, sec } from "./graph.ts";
import { type LoudnessGain, loudnessFilters, loudnessMeasureFilters } from "./loudness.ts";
import {
  type EncoderVariant,
  encoderArgs,
  FORMAT_TRAITS,
  finalAudioFilters,
  finalVideoFilters,
} from "./outputs.ts";
import {
  clipSegmentsToWindow,
  type FrameRate,
  frameToSeconds,
  layoutTrack,
  rateString,
  type Segment,
  secondsToFrame,
  snapClip,
  toFrameRate,
  widenWindow,
} from "./timeline.ts";
import { type BuiltSegment, joinSegments } from "./transitions.ts";
import {
  RenderError,
  type RenderOutputOptions,
  type RenderWarning,
  type ResolvedAsset,
  type UploadedFont,
} from "./types.ts";
import {
  type BranchContext,
  buildBlank,
  buildPlacedClip,
  buildVisualClip,
  isOpaqueFullFrame,
  type SourceKeyframes,
  STILL_SEEK_PREROLL_SEC,
} from "./video-branch.ts";

/** Inputs of `buildRenderPlan`. */
export interface BuildRenderPlanInput {
  /** The frozen, normalised composition (ids present). */
  composition: Timeline;
  /** Local files of media and subtitle assets, keyed by `uploadId` or by `src` URL. */
  assets: ReadonlyMap<string, ResolvedAsset>;
  output: RenderOutputOptions;
  /** Where ffmpeg writes the result (relative to the cwd the plan runs in, or absolute). */
  outputPath: string;
  /** The caller's uploaded fonts (family read from the file's name table). */
  uploadedFonts?: readonly UploadedFont[];
  /** File names the plan refers to, relative to the cwd (defaults: `render.ass`, `fonts`, `graph.txt`). */
  names?: { assFile?: string; fontsDir?: string; graphFile?: string };
  /**
   * Decoding threads per video input (`-threads N` before its `-i`); default: ffmpeg's choice
   * (about one per core, for every input). Every input is open for the whole render, so on
   * small machines a low number bounds memory (each frame-threaded decoder holds frames per thread).
   */
  decoderThreads?: number;
  /**
   * Keyframes of video sources by asset key (`uploadId` or `src`), where they are known (a smart
   * render read its sources' GOP indexes). An input then seeks to the keyframe its first
   * needed frame decodes from, when that is later than the usual preroll would reach (see
   * `inputSeekTime`): frames before it are never decoded. Used by video-only plans
   * (`variant.streams` `video`: split segments, smart pieces) only.
   */
  sourceKeyframes?: ReadonlyMap<string, SourceKeyframes>;
  /**
   * Threads of the filter graph (`-filter_complex_threads N`, for slice-threaded filters such as
   * scaling, `xfade` and `overlay`); default: ffmpeg's choice (one per core). Each thread keeps
   * its own scaling buffers, so on small machines a low number bounds memory.
   */
  filterThreads?: number;
  /**
   * One part of a split render (segments.ts): only the video or only the audio of the format,
   * closed GOPs, or lossless H.264 for exactness tests. Default: the whole format as is.
   */
  variant?: EncoderVariant;
  /**
   * Also write the output's JPEG poster to this path (relative to the cwd) in the same run: the
   * first frame at or after 10 % of the output, as it goes to the encoder, fitted like every
   * poster (`posterFilters`). Only for formats that move (mp4, webm, gif); ignored otherwise.
   */
  posterPath?: string;
  /**
   * The frame of this run's output (0-based) the poster shows, instead of the first at or after
   * 10 % of it: a segment of a split render writes the whole render's poster
   * ({@link posterFrameOf} of the whole output) when that frame is one of its own.
   */
  posterFrame?: number;
  /**
   * Loudness normalisation of the soundtrack (loudness.ts), after the mix and the window's trim:
   * `gain` applies a measured gain and the true-peak limiter; `measureFile` measures the result
   * with `ebur128` into that file (relative to the cwd) instead of encoding anything: the plan
   * then renders only the sound, to a null output.
   */
  loudness?: { gain?: LoudnessGain; measureFile?: string };
}

/**
 * The frame of an output of `frames` frames its poster shows (0-based): ffmpeg's `-ss` poster,
 * the first frame whose time is at or after 10 % of the output's length.
 */
export function posterFrameOf(frames: number): number {
  return Math.max(0, Math.min(frames - 1, Math.ceil(frames / 10)));
}

/** A file the worker writes into the cwd before running the plan. */
export interface PlanFile {
  path: string;
  content: string;
}

/** A font file the worker links (or copies) into the per-render fontsdir. */
export interface PlanFont {
  /** Destination relative to the cwd, e.g. `fonts/DejaVuSans.ttf`. */
  path: string;
  /** Absolute source file. */
  source: string;
}

/** One media input of a plan: the clip it serves and its ffmpeg input arguments (seek, length, `-i`). */
export interface PlanInput {
  /** ffmpeg's input index (`#index:stream` in its messages). */
  index: number;
  clipId: string;
  /** The source file (`ResolvedAsset.path`, or its preview proxy's with `proxy`). */
  path: string;
  /** The input reads the source's preview proxy (previews only). */
  proxy: boolean;
  /** A clip's picture reads the input (else only its sound). */
  picture: boolean;
  /** This input's arguments, as in `args` (e.g. `["-ss", "1", "-t", "2", "-i", path]`). */
  args: string[];
}

/**
 * One ffmpeg invocation, ready to run with `runFfmpeg({ args, cwd, durationSec, … })` once
 * `files` are written and `fonts` linked into the cwd (`writePlanFiles` does both).
 */
export interface RenderPlan {
  /** ffmpeg arguments (without the `ffmpeg` binary), ending with the output path. */
  args: string[];
  /** The generated ASS subtitles file, when the composition has text or captions. */
  assFile?: PlanFile;
  /** Every file to write (the ASS file, the filtergraph script of very large graphs). */
  files: PlanFile[];
  /** Fonts the ASS file uses: exactly these go into the per-render fontsdir. */
  fonts: PlanFont[];
  /** The per-render fonts directory (relative to the cwd), when text is rendered. */
  fontsDir?: string;
  /** The characters each text clip draws with each font (`writePlanFiles` warns about missing glyphs). */
  glyphs: GlyphUse[];
  /** Length of the output in seconds (frame-snapped), for progress and expiry. */
  durationSec: number;
  /** The media inputs of `args`, in ffmpeg input-index order: one per clip that reads a source. */
  inputs: PlanInput[];
  /**
   * Filter instance tag → clip id: the filters working for one clip are named `filter@tag`
   * in the graph (and in ffmpeg's messages, `[xfade@tag @ 0x…]`).
   */
  clipTags: Record<string, string>;
  warnings: RenderWarning[];
  /** What the output will be. Sizes in pixels, fps as a number. */
  output: {
    format: RenderOutputOptions["format"];
    width?: number;
    height?: number;
    fps?: number;
    audio: boolean;
    /** Where the run writes the output's poster (`BuildRenderPlanInput.posterPath`), when it does. */
    posterPath?: string;
  };
}

/** How every render's ffmpeg runs: quiet, overwriting, never reading stdin, progress on stdout (`runFfmpeg`). */
export const RUN_ARGS = [
  "-hide_banner",
  "-nostdin",
  "-y",
  "-loglevel",
  "error",
  "-progress",
  "pipe:1",
  "-nostats",
];

/** Longest filtergraph passed inline; longer graphs go through `-filter_complex_script` (argv strings are limited to 128 KiB). */
const MAX_INLINE_GRAPH = 100_000;
/** ASS times stop at 9:59:59.99; bands must fit below that. */
const MAX_ASS_SECONDS = 35_000;
/**
 * Microseconds added to a frame's timestamp while libass draws it (and taken off after). The
 * `subtitles` filter hands libass `pts · time_base · 1000` truncated to whole milliseconds, and
 * in microseconds that product lands just below the integer for many frames (93 · 40 000 µs
 * gives 3719.99… ms): a frame on an event's end (times are whole centiseconds, frame starts
 * at 25 and 50 fps) then still showed the text, or a frame on its start not yet, depending on
 * where the window (range, split segment) began. Half a millisecond puts every frame safely
 * inside its own millisecond and, at ≤ 60 fps (frames ≥ 16.7 ms apart, event times within
 * 10 ms before their frame), still before the next event time.
 */
const TEXT_PTS_NUDGE_US = 500;

/**
 * Builds the single ffmpeg invocation that renders a composition (docs/composition.md, How a render runs):
 * one process, one `-filter_complex` graph (decode → filter → encode). Video: a background
 * colour, then each enabled video track bottom → top, each track's text drawn by libass right
 * after it (its ASS band). A track with transitions is one canvas-size stream (clips and
 * transparent blanks joined by `concat`, only transition frames through `xfade`) overlaid on
 * what is below; a track without transitions overlays each clip's own picture at its place
 * while it plays. The topmost track that covers the canvas opaquely for the whole window
 * (`isOpaqueFullFrame` clips, no gaps) is the base instead: no background, no alpha, no
 * overlay, and nothing under it is drawn. Audio: `buildAudioMix`. Timing is snapped to
 * the output frame rate; `range`/`frameAt` render a window (widened so no transition is cut,
 * then trimmed exactly). Output size defaults to the canvas (a GIF: longer side at most 480 px,
 * at most 15 fps; see {@link gifDefaultSize}); a width/height override renders
 * natively at that size (keeping the canvas aspect; a different aspect is letterboxed).
 * Pure: reads no files and spawns nothing.
 *
 * @throws RenderError `INVALID_COMPOSITION` (empty timeline, range outside it), `ASSET_NOT_FOUND`
 *   (an asset missing from `assets`), `ASSET_UNSUPPORTED`, `FONT_NOT_FOUND` (with `clipId`).
 */
export function buildRenderPlan(input: BuildRenderPlanInput): RenderPlan {
  const { composition, output } = input;
  const canvas = composition.canvas;
  const measureFile = input.loudness?.measureFile;
  const streams = measureFile !== undefined ? "audio" : input.variant?.streams;
  const formatTraits = FORMAT_TRAITS[output.format];
  const traits = {
    ...formatTraits,
    video: formatTraits.video && streams !== "audio",
    audio: formatTraits.audio && streams !== "video",
  };
  const quality = output.quality ?? "standard";
  const names = {
    assFile: input.names?.assFile ?? "render.ass",
    fontsDir: input.names?.fontsDir ?? "fonts",
    graphFile: input.names?.graphFile ?? "graph.txt",
  };
  const gif = output.format === "gif";
  const rate = toFrameRate(output.fps ?? (gif && canvas.fps > GIF_MAX_FPS ? GIF_MAX_FPS : canvas.fps));
  const size = outputSize(
    canvas.width,
    canvas.height,
    ...(gif && output.width === undefined && output.height === undefined
      ? gifDefaultSize(canvas.width, canvas.height)
      : [output.width, output.height]),
  );
  const warnings: RenderWarning[] = [];

  const totalFrames = secondsToFrame(compositionDuration(composition), rate);
  if (totalFrames <= 0) throw new RenderError("INVALID_COMPOSITION", "The composition is empty (duration 0)");
  const request = requestedWindow(output, totalFrames, rate);

  const { window, windowed } = windowedTracks(composition, rate, totalFrames, request, warnings);

  const graph = new FilterGraph();
  const ctx: BranchContext = {
    graph,
    rate,
    width: size.renderWidth,
    height: size.renderHeight,
    scale: size.renderHeight / canvas.height,
    assets: input.assets,
    warnings,
    inputs: new Map(),
    ...(input.decoderThreads ? { decoderThreads: input.decoderThreads } : {}),
    ...(traits.still ? { seekPreroll: STILL_SEEK_PREROLL_SEC } : {}),
    // Video-only plans (segments, smart pieces) seek to keyframes; sound seeks sample-exactly.
    ...(input.sourceKeyframes && input.variant?.streams === "video"
      ? { sourceKeyframes: input.sourceKeyframes }
      : {}),
  };
  const maps: string[] = [];
  let posterOutput: string[] = [];
  let assFile: PlanFile | undefined;
  let fonts: PlanFont[] = [];
  let glyphs: GlyphUse[] = [];
  const trimStart = request.start - window.start;
  const trimEnd = request.end - window.start;
  const needsTrim = trimStart !== 0 || trimEnd !== window.end - window.start;

  if (traits.video) {
    const text = planText(ctx, windowed, window, input.uploadedFonts ?? [], warnings);
    if (text) {
      glyphs = text.glyphs;
      assFile = { path: names.assFile, content: text.content };
      const taken = new Set<string>();
      fonts = text.fonts.map((source, i) => {
        const name = taken.has(basename(source)) ? `${i}-${basename(source)}` : basename(source);
        taken.add(name);
        return { path: `${names.fontsDir}/${name}`, source };
      });
    }
    const frames = window.end - window.start;
    // The background is made only when something shows through to it.
    const background = () =>
      graph.chain(
        [],
        [
          `color=c=${ffColor(canvas.background)}:s=${ctx.width}x${ctx.height}:r=${rateString(rate)}`,
          `trim=end_frame=${frames}`,
          ...conformToCanvas(rate, { width: ctx.width, height: ctx.height }, "yuv420p", { rated: true }),
        ],
        "bg",
      );
    // The topmost track that covers the whole canvas with opaque pixels for the whole window
    // hides everything below it: it becomes the base (no background, no alpha, no overlay) and
    // the tracks under it are not drawn at all.
    const base = windowed.findLastIndex(
      (laid) =>
        laid.track.kind === "video" &&
        laid.segments.length > 0 &&
        laid.segments.every((s) => s.kind === "clip" && s.clip && isOpaqueFullFrame(ctx, s.clip)),
    );
    let video: string | undefined;
    windowed.forEach((laid, t) => {
      if (laid.track.kind !== "video" || t < base) return;
      if (t === base) {
        const built = laid.segments.map((segment) => ({
          segment,
          label: buildVisualClip(ctx, segment, { opaque: true }),
        }));
        video = joinSegments(graph, built, rate, "yuv420p");
      } else if (laid.segments.some((s) => s.kind === "clip")) {
        if (!laid.segments.some((s) => s.transition)) {
          // No transitions: overlay each clip's own picture where and while it shows.
          for (const segment of laid.segments) {
            if (segment.kind !== "clip") continue;
            const placed = buildPlacedClip(ctx, segment, window.start);
            if (!placed) continue;
            video = graph.chain(
              [video ?? background(), placed.label],
              [`overlay=x=${placed.x}:y=${placed.y}:eof_action=pass:format=yuv420:repeatlast=0`],
              "ov",
              segment.clip?.id,
            );
          }
        } else {
          const built: BuiltSegment[] = laid.segments.map((segment) => ({
            segment,
            label:
              segment.kind === "clip"
                ? buildVisualClip(ctx, segment)
                : buildBlank(ctx, segment.endFrame + segment.tail - (segment.startFrame - segment.lead)),
          }));
          const track = joinSegments(graph, built, rate, "yuva420p");
          video = graph.chain(
            [video ?? background(), track],
            ["overlay=x=0:y=0:eof_action=pass:format=yuv420:repeatlast=0"],
            "ov",
          );
        }
      }
      const band = text?.bandOfTrack.get(t);
      if (band !== undefined && text) {
        // The band's shift plus the nudge, in ticks of the AV time base (microseconds), where
        // both are whole ticks: in the `fps` filter's 1001/24000 time base 12 s is 287.7 ticks,
        // and the rounded shift there and back put two frames on one timestamp (ffmpeg then
        // dropped one and repeated the last: the picture ran a frame early at 23.976, 29.97 and
        // 59.94 fps).
        const ticks = band * text.bandSeconds * 1_000_000 + TEXT_PTS_NUDGE_US;
        const draw = `subtitles=filename=${names.assFile}:fontsdir=${names.fontsDir}`;
        video = graph.chain(
          [video ?? background()],
          ["settb=AVTB", `setpts=PTS+${ticks}`, draw, `setpts=PTS-${ticks}`],
          "txt",
        );
      }
    });
    if (video === undefined) video = background();
    const framed: string[] = [];
    if (needsTrim) framed.push(`trim=start_frame=${trimStart}:end_frame=${trimEnd}`, "setpts=PTS-STARTPTS");
    if (size.padded) {
      framed.push(
        `pad=${size.width}:${size.height}:(ow-iw)/2:(oh-ih)/2:color=${ffColor(canvas.background)}`,
        "setsar=1",
      );
    }
    const encoded = finalVideoFilters(output.format);
    if (output.format === "gif") {
      // One palette from every pixel of every frame (`full`): with `diff` (only what changed
      // since the previous frame) a cut to a solid colour after moving video lost that colour
      // from the palette (#20c040 came out #005800).
      encoded.push(
        "split[gifa][gifb];[gifa]palettegen=stats_mode=full[gifp];[gifb][gifp]paletteuse=dither=bayer:bayer_scale=5",
      );
    }
    if (input.posterPath && !traits.still) {
      if (framed.length > 0) video = graph.chain([video], framed, "vout");
      const [main, still] = [graph.label("vout"), graph.label("poster")];
      graph.chains.push(`[${video}]split=2[${main}][${still}]`);
      const frame = input.posterFrame ?? posterFrameOf(request.end - request.start);
      const poster = graph.chain(
        [still],
        [`trim=start_frame=${frame}:end_frame=${frame + 1}`, ...posterFilters()],
        "poster",
      );
      posterOutput = [
        "-map",
        `[${poster}]`,
        ...POSTER_ENCODER_ARGS,
        "-update",
        "1",
        "-f",
        "image2",
        input.posterPath,
      ];
      video = encoded.length > 0 ? graph.chain([main], encoded, "vout") : main;
    } else if (framed.length + encoded.length > 0) {
      video = graph.chain([video], [...framed, ...encoded], "vout");
    }
    maps.push("-map", `[${video}]`);
  }

  if (traits.audio) {
    let audio = buildAudioMix(ctx, windowed, window.start, window.end);
    if (needsTrim) {
      audio = graph.chain(
        [audio],
        [
          `atrim=start=${sec(frameToSeconds(trimStart, rate))}:end=${sec(frameToSeconds(trimEnd, rate))}`,
          "asetpts=PTS-STARTPTS",
        ],
        "aout",
      );
    }
    const loudness = [
      ...(input.loudness?.gain ? loudnessFilters(input.loudness.gain) : []),
      ...(measureFile !== undefined ? loudnessMeasureFilters(measureFile) : []),
    ];
    if (loudness.length > 0) audio = graph.chain([audio], loudness, "loud");
    const last = measureFile === undefined ? finalAudioFilters(output.format) : [];
    if (last.length > 0) audio = graph.chain([audio], last, "aout");
    maps.push("-map", `[${audio}]`);
  }

  const graphText = graph.toString();
  const files: PlanFile[] = assFile ? [assFile] : [];
  let graphArgs = ["-filter_complex", graphText];
  if (graphText.length > MAX_INLINE_GRAPH) {
    files.push({ path: names.graphFile, content: graphText });
    graphArgs = ["-filter_complex_script", names.graphFile];
  }
  const durationSec = frameToSeconds(request.end - request.start, rate);
  const args = [
    ...RUN_ARGS,
    ...graph.inputs.flat(),
    ...(input.filterThreads ? ["-filter_complex_threads", String(input.filterThreads)] : []),
    ...graphArgs,
    ...maps,
    ...(measureFile !== undefined
      ? ["-f", "null", "-"]
      : [
          ...encoderArgs(output.format, quality, input.variant),
          // The graph already yields exactly the frames of the output at regular timestamps: encode
          // every one as it is (`passthrough`). Left to its default for WebM (vfr), ffmpeg dropped the
          // last frame of some renders.
          ...(traits.video && !traits.still ? ["-r", rateString(rate), "-fps_mode", "passthrough"] : []),
          input.outputPath,
          ...posterOutput,
        ]),
  ];
  return {
    args,
    ...(assFile ? { assFile, fontsDir: names.fontsDir } : {}),
    files,
    fonts,
    glyphs,
    durationSec,
    clipTags: Object.fromEntries(graph.clipTags),
    inputs: [...ctx.inputs.values()]
      .map((source) => ({
        index: source.index,
        clipId: source.clipId,
        path: source.path,
        proxy: source.proxy,
        picture: source.picture,
        args: graph.inputs[source.index] ?? [],
      }))
      .sort((a, b) => a.index - b.index),
    warnings: dedupeWarnings(warnings),
    output: {
      format: output.format,
      ...(traits.video ? { width: size.width, height: size.height } : {}),
      ...(traits.video && !traits.still ? { fps: rate.num / rate.den } : {}),
      audio: traits.audio,
      ...(posterOutput.length > 0 ? { posterPath: posterOutput.at(-1) } : {}),
    },
  };
}

/**
 * The enabled tracks of `composition` laid out at `rate` over its `totalFrames` frames and cut
 * to `request` (output frames `[start, end)`) widened so that no transition is cut: the frames
 * a render of `request` builds (`window`) and what plays in them (`windowed`). Layout warnings
 * go to `warnings`.
 */
export function windowedTracks(
  composition: Timeline,
  rate: FrameRate,
  totalFrames: number,
  request: { start: number; end: number },
  warnings: RenderWarning[],
): { window: { start: number; end: number }; windowed: LaidOutTrack[] } {
  const layouts = layoutTracks(composition, rate, totalFrames, warnings);
  const window = widenWindow(
    layouts.map((l) => l.segments),
    request.start,
    request.end,
  );
  const windowed = layouts.map((l) => ({
    track: l.track,
    segments: clipSegmentsToWindow(l.segments, window.start, window.end),
  }));
  return { window, windowed };
}

/**
 * The enabled tracks of `composition` laid out (`layoutTrack`) at `rate` over its `totalFrames`
 * frames, in track order. Layout warnings go to `warnings`.
 */
export function layoutTracks(
  composition: Timeline,
  rate: FrameRate,
  totalFrames: number,
  warnings: RenderWarning[],
): LaidOutTrack[] {
  return composition.tracks
    .filter((t) => t.enabled !== false)
    .map((track) => ({ track, segments: layoutTrack(track, rate, totalFrames, warnings) }));
}

/** Frame rate cap of a GIF output without `fps` (frames/s); a slower canvas keeps its own. */
export const GIF_MAX_FPS = 15;
/** Longer side of a GIF output without `width`/`height` (pixels); smaller canvases keep their size. */
export const GIF_MAX_SIDE = 480;

/**
 * Default size of a GIF output without `width`/`height`: the canvas scaled down (never up) so
 * that its longer side is at most {@link GIF_MAX_SIDE} pixels, keeping its aspect. A full-size
 * 720p GIF is tens of megabytes; 480 px keeps it a few.
 */
function gifDefaultSize(width: number, height: number): [number | undefined, number | undefined] {
  if (Math.max(width, height) <= GIF_MAX_SIDE) return [undefined, undefined];
  return width >= height ? [GIF_MAX_SIDE, undefined] : [undefined, GIF_MAX_SIDE];
}

/**
 * The requested window in output frames `[start, end)`: `frameAt` (stills, default 0), `range`,
 * else everything (`totalFrames` at `rate`).
 *
 * @throws RenderError `INVALID_COMPOSITION` when `range` starts after the end.
 */
export function requestedWindow(output: RenderOutputOptions, totalFrames: number, rate: FrameRate) {
  if (FORMAT_TRAITS[output.format].still) {
    const at = Math.min(secondsToFrame(output.frameAt ?? output.range?.start ?? 0, rate), totalFrames - 1);
    return { start: Math.max(0, at), end: Math.max(0, at) + 1 };
  }
  if (output.range) {
    const start = secondsToFrame(output.range.start, rate);
    if (start >= totalFrames) {
      throw new RenderError(
        "INVALID_COMPOSITION",
        `range starts at ${output.range.start} s, after the end of the composition`,
      );
    }
    const end = Math.min(totalFrames, start + Math.max(1, secondsToFrame(output.range.duration, rate)));
    return { start, end };
  }
  return { start: 0, end: totalFrames };
}

/**
 * Output and render sizes (pixels, even). Without overrides: the canvas. With one side: the
 * other follows the canvas aspect. With both and another aspect: render the canvas aspect
 * inside and pad (`padded`).
 */
export function outputSize(canvasWidth: number, canvasHeight: number, width?: number, height?: number) {
  const aspect = canvasWidth / canvasHeight;
  let w = width ?? (height ? height * aspect : canvasWidth);
  let h = height ?? (width ? width / aspect : canvasHeight);
  w = even(w);
  h = even(h);
  let renderWidth = w;
  let renderHeight = h;
  if (Math.abs(w / h - aspect) > 0.01) {
    if (w / h > aspect) renderWidth = even(h * aspect);
    else renderHeight = even(w / aspect);
  }
  return { width: w, height: h, renderWidth, renderHeight, padded: renderWidth !== w || renderHeight !== h };
}

interface PlannedText {
  content: string;
  fonts: string[];
  glyphs: GlyphUse[];
  bandOfTrack: Map<number, number>;
  bandSeconds: number;
}

/** Collects text/caption clips of visible video tracks and builds the ASS document and bands. */
function planText(
  ctx: BranchContext,
  tracks: readonly LaidOutTrack[],
  window: { start: number; end: number },
  uploadedFonts: readonly UploadedFont[],
  warnings: RenderWarning[],
): PlannedText | undefined {
  const clips: AssClipInput[] = [];
  const bandOfTrack = new Map<number, number>();
  const textTracks = tracks
    .map((laid, index) => ({ laid, index }))
    .filter(({ laid }) => laid.track.kind === "video" && laid.track.clips.some(isText));
  if (textTracks.length === 0) return undefined;
  const windowSeconds = frameToSeconds(window.end - window.start, ctx.rate);
  const bandSeconds = Math.ceil(windowSeconds) + 10;
  const flatten = textTracks.length * bandSeconds > MAX_ASS_SECONDS;
  if (flatten) {
    warnings.push({
      code: "TEXT_LAYERING_FLATTENED",
      message: "too many text tracks for this length: all text is drawn above every track",
    });
  }
  textTracks.forEach(({ laid, index }, band) => {
    const targetTrack = flatten ? (textTracks.at(-1)?.index ?? index) : index;
    bandOfTrack.set(targetTrack, flatten ? 0 : band);
    for (const clip of laid.track.clips.filter(isText)) {
      const snapped = snapClip(clip, ctx.rate, Number.MAX_SAFE_INTEGER);
      const seg = findSegment(laid.segments, clip.id);
      clips.push({
        clip,
        band: flatten ? 0 : band,
        startFrame: snapped.startFrame,
        endFrame: snapped.endFrame,
        lead: seg?.transition ? seg.lead : 0,
        tail: 0,
      });
    }
  });
  const doc = buildAss({
    width: ctx.width,
    height: ctx.height,
    scale: ctx.scale,
    rate: ctx.rate,
    window,
    bandSeconds: flatten ? 0 : bandSeconds,
    clips,
    assets: ctx.assets,
    uploadedFonts,
  });
  const used = new Set(doc.bands);
  if (used.size === 0) return undefined;
  for (const [track, band] of bandOfTrack) if (!used.has(band)) bandOfTrack.delete(track);
  return {
    content: doc.content,
    fonts: doc.fonts.map((f) => f.path),
    glyphs: doc.glyphs,
    bandOfTrack,
    bandSeconds: flatten ? 0 : bandSeconds,
  };
}

const isText = (clip: Track["clips"][number]) => clip.asset.type === "text" || clip.asset.type === "caption";

function findSegment(segments: readonly Segment[], clipId: string): Segment | undefined {
  return segments.find((s) => s.clip?.id === clipId);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Warnings with the same code, clip and message once each, in order. */
export function dedupeWarnings(warnings: readonly RenderWarning[]): RenderWarning[] {
  const seen = new Set<string>();
  return warnings.filter((w) => {
    const key = `${w.code}|${w.clipId ?? ""}|${w.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
