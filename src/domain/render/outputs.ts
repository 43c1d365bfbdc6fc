import type { OutputFormat, RenderQuality } from "./types.ts";

/** What a format carries. */
export interface FormatTraits {
  video: boolean;
  audio: boolean;
  still: boolean;
}

/** Streams of each output format. */
export const FORMAT_TRAITS: Record<OutputFormat, FormatTraits> = {
  mp4: { video: true, audio: true, still: false },
  webm: { video: true, audio: true, still: false },
  gif: { video: true, audio: false, still: false },
  mp3: { video: false, audio: true, still: false },
  wav: { video: false, audio: true, still: false },
  jpg: { video: true, audio: false, still: true },
  png: { video: true, audio: false, still: true },
};

/** MIME type of each output format (for the stored object). */
export const FORMAT_MIME: Record<OutputFormat, string> = {
  mp4: "video/mp4",
  webm: "video/webm",
  gif: "image/gif",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  jpg: "image/jpeg",
  png: "image/png",
};

/** Formats a `lossless` render can be made in (the others only have lossy encoders here). */
export const LOSSLESS_FORMATS: readonly OutputFormat[] = ["mp4", "wav", "png"];

/** The lossy preset whose tables a `lossless` render uses for what it does not encode losslessly. */
const lossy = (quality: RenderQuality) => (quality === "lossless" ? "high" : quality);

const X264 = { draft: ["ultrafast", "28"], standard: ["veryfast", "23"], high: ["slow", "18"] } as const;
const VP9 = {
  draft: ["realtime", "8", "40"],
  standard: ["good", "4", "33"],
  high: ["good", "2", "28"],
} as const;
const AAC = { draft: "128k", standard: "192k", high: "256k" } as const;
const OPUS = { draft: "96k", standard: "128k", high: "192k" } as const;
const MP3 = { draft: "128k", standard: "192k", high: "320k" } as const;
const JPEG_Q = { draft: "6", standard: "3", high: "2" } as const;

/**
 * Which streams an output carries and how its video is encoded (split rendering, segments.ts):
 * `streams` keeps only the video (`-an`) or only the audio (`-vn`) of the format; a video-only
 * mp4 also closes every GOP (`-flags +cgop`) so that segments join by stream copy. `lossless`
 * encodes H.264 losslessly (x264 `-qp 0`, same preset): internal, for exactness tests only.
 * A `lossless` render is lossless throughout, not only this variant (see {@link encoderArgs}).
 * `fragmented` (mp4 only) writes a fragmented MP4 that plays while it is written (a stream to an
 * HTTP response, "Play from here"): the header first (`empty_moov`), then one fragment per
 * keyframe, instead of `+faststart`. The first fragment holds {@link FIRST_FRAGMENT_SECONDS} s
 * (so a player has a picture early), the next ones {@link FRAGMENT_SECONDS} s each.
 */
export interface EncoderVariant {
  streams?: "video" | "audio";
  lossless?: boolean;
  fragmented?: boolean;
  /**
   * A piece of a smart render (mp4 video only): encoded with the copied sources' coding
   * format so that copied and encoded GOPs form one stream: x264 `profile` and `level`
   * (`level_idc`, 31 = 3.1), the parameter sets repeated in band before every keyframe
   * (`dump_extra`), the sources' mp4 `timescale` (ticks per second); `seam` encodes at
   * {@link SEAM_CRF} (frames next to copied ones, indistinguishable from the source);
   * `reorderDelay` the sources' B-frame delay ({@link smartX264Params}).
   */
  match?: {
    profile: string;
    level: number;
    timescale: number;
    seam?: boolean;
    reorderDelay?: number;
    /** Ticks of `timescale` per frame (with `reorderDelay`: decode times are set from it). */
    frameTicks?: number;
  };
  /**
   * The frame count of a split part (mp4 video only): its first and last frames are encoded at
   * a higher quality ({@link partEdgeZones}) so that its seams with the parts around it look as
   * the same frames do in one encode. Ignored for lossless and smart-render seam encodes.
   */
  partFrames?: number;
}

/** Frames at each end of a split part that {@link partEdgeZones} encodes at a higher quality. */
export const PART_EDGE_FRAMES = 5;
/**
 * x264 zone bitrate factor of a split part's edge frames: their quantiser scale is divided by it
 * (1.15 ≈ 1.2 QP lower; x264 applies a zone's `b=` in CRF mode too).
 */
export const PART_EDGE_BITRATE = 1.15;

/**
 * The x264 `zones` of a split part of `frames` frames: its first and last
 * {@link PART_EDGE_FRAMES} frames (one zone over all of them when the part is that short) at
 * bitrate factor {@link PART_EDGE_BITRATE}. Zones use frame numbers of the part itself, so a
 * part's encode depends only on its own frames and boundaries (the render cache reuses parts).
 *
 * Why: each part is its own x264 run. Its last frames have no later frames to refer to them, so
 * the macroblock tree (which lowers the QP of what later frames reference) and the lookahead
 * stop short and code them at a higher QP than one encode would; its first frames start from
 * a cold IDR frame, whose quality the rest of the part inherits (a still picture keeps it for
 * seconds). Measured against a lossless master (`bench/render/split-seams.ts`, reference
 * composition at `standard`), over the ±5 frames around every seam, PSNR of the split render
 * minus the render in one piece: without zones −0.83 dB (30 s in 5 s parts; the loss in the 5
 * frames before a seam and from the seam on for about 70 frames) and −0.35 dB (60 s in 10 s
 * parts); with these zones −0.09 and +0.35 dB (target: ≥ −0.5 dB), for 0.5–0.9 % more video
 * bytes than the same parts without them and no measurable x264 CPU time. Also tried at 30 s
 * (parts encoded from the master's frames): b=1.1 −0.34 dB; b=1.2 +0.10 dB for 1.2 % more
 * bytes; 8 frames at each end at b=1.15 −0.03 dB for 1.2 %; the last 8 frames alone at b=1.5
 * +0.06 dB for 1.7 % (the frames after the seam stayed 0.9 dB down).
 */
export function partEdgeZones(frames: number): string {
  const b = `b=${PART_EDGE_BITRATE}`;
  if (frames <= 2 * PART_EDGE_FRAMES) return `0,${Math.max(0, frames - 1)},${b}`;
  return `0,${PART_EDGE_FRAMES - 1},${b}/${frames - PART_EDGE_FRAMES},${frames - 1},${b}`;
}

/**
 * x264 CRF of a smart render's seams: the frames re-encoded between a cut and the copied GOPs.
 * Low enough that a re-encoded frame stays within 45 dB PSNR of the decoded source frame also
 * for grainy camera footage (CRF 10 gave 41 dB there, CRF 4 46 dB); seams are short, so their
 * extra bytes are few.
 */
export const SEAM_CRF = "4";

/**
 * x264 preset of a smart render's seams, with {@link smartX264Params}. At {@link SEAM_CRF} the
 * quantiser, not the preset's search, decides a seam frame's fidelity: on 30 frames of grainy
 * 1080p camera footage (88 Mbit/s), against the source frames, `ultrafast` with the 8×8
 * transform and B-frames (CAVLC) encoded in 0.8 CPU s at 55.4 dB PSNR, the same with CABAC in
 * 2.0 CPU s at 55.4 dB, `veryfast` in 3.5 CPU s at 53.7 dB.
 */
export const SEAM_PRESET = "ultrafast";

/**
 * x264 options (`-x264-params` items) of a smart render's encoded piece, so that it continues
 * the copied sources' stream. `reorderDelay` (frames, 0–2) sets the B-frames: none, B-frames
 * without a pyramid (x264 then presents each packet one frame after it decodes) or a B-pyramid
 * (two frames), so that decode times step by one frame across copied and encoded pieces.
 * Every piece also uses a tool of the sources' `profile`, since x264 writes the lowest profile
 * its tools need (`ultrafast`, the seams' and `draft`'s preset, alone needs only Constrained
 * Baseline): the 8×8 transform for High; for Main, B-frames or else CABAC (the entropy coder
 * that costs most at a seam's bit rates). So one profile describes the whole stream.
 */
export function smartX264Params(match: NonNullable<EncoderVariant["match"]>): string[] {
  const params: string[] = [];
  if (match.profile === "high") params.push("8x8dct=1");
  if (match.profile === "main" && !match.reorderDelay) params.push("cabac=1");
  if (match.reorderDelay === 0) params.push("bframes=0");
  if (match.reorderDelay === 1) params.push("bframes=3", "b-pyramid=none");
  if (match.reorderDelay === 2) params.push("bframes=3", "b-pyramid=normal");
  return params;
}

/**
 * The bitstream filters of a smart render's encoded piece: the parameter sets repeated before
 * every keyframe (`dump_extra`) and, with `reorderDelay` and `frameTicks`, decode times set to
 * one frame apart from `reorderDelay` frames before the first presentation time (`setts`).
 * x264 writes them so itself, except for a piece of fewer frames than its delay plus one, whose
 * decode times it leaves equal to the presentation times: joined to GOPs copied from a B-frame
 * source, such a piece would break the decode times' one-frame steps.
 */
function smartBitstreamFilters(match: NonNullable<EncoderVariant["match"]>): string {
  const filters = ["dump_extra=freq=keyframe"];
  if (match.reorderDelay !== undefined && match.frameTicks)
    filters.push(`setts=pts=PTS:dts=STARTPTS+(N-${match.reorderDelay})*${match.frameTicks}`);
  return filters.join(",");
}

/** `-x264-params` with `items` joined, or nothing when there are none. */
const x264Params = (items: readonly string[]): string[] =>
  items.length ? ["-x264-params", items.join(":")] : [];

/** Seconds between the keyframes, hence the fragments, of a `fragmented` mp4 (after the first). */
export const FRAGMENT_SECONDS = 0.5;
/** Length of the first fragment of a `fragmented` mp4, seconds. */
export const FIRST_FRAGMENT_SECONDS = 0.1;

/**
 * Encoder and muxer arguments for a format and quality preset (placed after the `-map`s):
 * mp4 = H.264 (x264 preset/CRF ultrafast/28, veryfast/23, slow/18) + AAC, `+faststart`;
 * webm = VP9 (CRF 40/33/28, realtime/good) + Opus; gif = palette from the graph, looping;
 * mp3 = LAME CBR 128/192/320k; wav = PCM 16-bit (24-bit for high); jpg/png = one frame.
 * Quality `lossless` (only for {@link LOSSLESS_FORMATS}): mp4 = lossless H.264 (x264 `-qp 0`,
 * preset veryfast: the High 4:4:4 Predictive profile, which ffmpeg and editors decode but
 * browsers do not play) + ALAC 24-bit; wav = PCM 24-bit; png is lossless anyway.
 * `variant` (mp4 only) narrows the streams of one part of a split render; see {@link EncoderVariant}.
 */
export function encoderArgs(
  format: OutputFormat,
  quality: RenderQuality,
  variant: EncoderVariant = {},
): string[] {
  const q = lossy(quality);
  switch (format) {
    case "mp4": {
      const lossless = quality === "lossless";
      const [preset, crf] = X264[lossless ? "standard" : q];
      const seam = Boolean(variant.match?.seam) && !(variant.lossless || lossless);
      const video = [
        "-c:v",
        "libx264",
        "-preset",
        seam ? SEAM_PRESET : preset,
        ...(variant.lossless || lossless ? ["-qp", "0"] : ["-crf", seam ? SEAM_CRF : crf]),
        ...x264Params([
          ...(variant.match && !(variant.lossless || lossless) ? smartX264Params(variant.match) : []),
          ...(variant.partFrames && !(variant.lossless || lossless || variant.match?.seam)
            ? [`zones=${partEdgeZones(variant.partFrames)}`]
            : []),
        ]),
        "-pix_fmt",
        "yuv420p",
        ...(variant.match
          ? [
              ...["-profile:v", variant.match.profile, "-level:v", (variant.match.level / 10).toFixed(1)],
              ...["-bsf:v", smartBitstreamFilters(variant.match), "-tag:v", "avc1"],
              ...["-video_track_timescale", String(variant.match.timescale)],
            ]
          : []),
      ];
      const audio = [
        ...(lossless ? ["-c:a", "alac", "-sample_fmt", "s32p"] : ["-c:a", "aac", "-b:a", AAC[q]]),
        "-ar",
        "48000",
      ];
      if (variant.streams === "video") return [...video, "-flags", "+cgop", "-an", "-f", "mp4"];
      if (variant.streams === "audio") return ["-vn", ...audio, "-f", "mp4"];
      if (variant.fragmented) {
        return [
          ...video,
          "-force_key_frames",
          // Keyframes at 0, at FIRST_FRAGMENT_SECONDS, then every FRAGMENT_SECONDS.
          `expr:if(lt(n_forced,2),gte(t,n_forced*${FIRST_FRAGMENT_SECONDS}),gte(t,prev_forced_t+${FRAGMENT_SECONDS}))`,
          ...audio,
          "-movflags",
          "frag_keyframe+empty_moov+default_base_moof",
          "-f",
          "mp4",
        ];
      }
      return [...video, ...audio, "-movflags", "+faststart", "-f", "mp4"];
    }
    case "webm": {
      const [deadline, cpu, crf] = VP9[q];
      return [
        "-c:v",
        "libvpx-vp9",
        "-b:v",
        "0",
        "-crf",
        crf,
        "-deadline",
        deadline,
        "-cpu-used",
        cpu,
        "-row-mt",
        "1",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "libopus",
        "-b:a",
        OPUS[q],
        "-ar",
        "48000",
        "-f",
        "webm",
      ];
    }
    case "gif":
      return ["-loop", "0", "-f", "gif"];
    case "mp3":
      return ["-c:a", "libmp3lame", "-b:a", MP3[q], "-ar", "48000", "-f", "mp3"];
    case "wav":
      return ["-c:a", q === "high" ? "pcm_s24le" : "pcm_s16le", "-ar", "48000", "-f", "wav"];
    case "jpg":
      return ["-frames:v", "1", "-c:v", "mjpeg", "-q:v", JPEG_Q[q], "-update", "1", "-f", "image2"];
    case "png":
      return ["-frames:v", "1", "-c:v", "png", "-update", "1", "-f", "image2"];
  }
}

/** Last filters of the video chain for a format (pixel format; gif palette is added by the plan). */
export function finalVideoFilters(format: OutputFormat): string[] {
  switch (format) {
    case "jpg":
      return ["scale=out_range=full", "format=yuvj420p"];
    case "png":
      return ["format=rgb24"];
    case "gif":
      return [];
    default:
      return ["format=yuv420p"];
  }
}

/** Samples per Opus frame at 48 kHz (20 ms, libopus's default frame duration). */
const OPUS_FRAME_SAMPLES = 960;

/**
 * Last filters of the audio chain for a format. WebM: frames of exactly one Opus frame
 * (`asetnsamples`): libopus refuses a larger frame, and when the graph has no audio input (a
 * composition without sound: `anullsrc`) ffmpeg configures it before opening the encoder, so
 * nothing else cuts its 1024-sample frames to size and the render failed.
 */
export function finalAudioFilters(format: OutputFormat): string[] {
  return format === "webm" ? [`asetnsamples=n=${OPUS_FRAME_SAMPLES}:p=0`] : [];
}
