import type { KeyframeIndex } from "../../media/keyframes.ts";
import type { CaptionCue } from "../transcription/exports.ts";
import type { UploadType } from "../uploads/upload-type.ts";

/** Output containers/formats of a render: video, animated GIF, audio only, one still frame. */
export const OUTPUT_FORMATS = ["mp4", "webm", "gif", "mp3", "wav", "jpg", "png"] as const;

/** Output container/format of a render. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Encoder effort/size trade-offs: draft (fastest), standard, high (slowest, best), and lossless
 * (mp4, wav and png only: every decoded frame and sample equals what the render's graph made, a
 * master for further editing; see `LOSSLESS_FORMATS`).
 */
export const RENDER_QUALITIES = ["draft", "standard", "high", "lossless"] as const;

/** Encoder effort/size trade-off of a render (one of {@link RENDER_QUALITIES}). */
export type RenderQuality = (typeof RENDER_QUALITIES)[number];

/**
 * Output options of `POST /api/render` (docs/composition.md, Renders). Sizes in pixels, times in seconds.
 * `range` renders a window of the timeline; `frameAt` picks the still of jpg/png (default 0).
 */
export interface RenderOutputOptions {
  format: OutputFormat;
  width?: number;
  height?: number;
  fps?: number;
  quality?: RenderQuality;
  range?: { start: number; duration: number };
  frameAt?: number;
  /** `false`: render every part afresh, neither copying from nor adding to the render cache. */
  reuse?: boolean;
  /**
   * Smart rendering of an mp4 (default `auto`): the stretches whose frames are one source's
   * frames unchanged are copied from the source GOP by GOP, only the rest is encoded; `off`
   * encodes every frame.
   */
  smartRender?: SmartRenderMode;
}

/** Smart rendering modes of `RenderOutputOptions.smartRender`. */
export const SMART_RENDER_MODES = ["auto", "off"] as const;

/** A smart rendering mode (one of {@link SMART_RENDER_MODES}). */
export type SmartRenderMode = (typeof SMART_RENDER_MODES)[number];

/** Why a stretch of a smart render's output was encoded rather than copied (`Render.smartRender.reasons`). */
export interface SmartRenderReason {
  /** The clip as messages name it ("take1.mp4 at 0:06"), null where no clip is shown. */
  clip: string | null;
  /** Output time of the stretch, seconds: `[from, to)`. */
  from: number;
  to: number;
  reason: string;
}

/**
 * The coding format every copied GOP of a smart render shares (the first copyable source's):
 * every encoded piece of the render is made with it, so that copied and encoded GOPs form one
 * valid stream.
 */
export interface SmartStreamFormat {
  /** x264 `-profile:v` (`baseline`, `main`, `high`). */
  profile: "baseline" | "main" | "high";
  /** `level_idc` (31 = level 3.1). */
  level: number;
  /** The mp4 track time base of every piece (ticks per second). */
  timescale: number;
  width: number;
  height: number;
  /**
   * B-frame reorder delay of the copied sources, frames (0–2): every encoded piece is coded
   * with it, so that decode times step by one frame across copied and encoded pieces. Absent
   * in plans stored before it was recorded (encoded pieces then keep the preset's B-frames).
   */
  reorderDelay?: number;
}

/** What a render stores as `smartRender`: the summary and the stream format its pieces share (internal; null when nothing is copied). */
export interface StoredSmartRender extends SmartRenderSummary {
  format: SmartStreamFormat | null;
}

/** What a smart render copied and why it encoded the rest (`Render.smartRender`). */
export interface SmartRenderSummary {
  /** Output video frames copied from their sources' packets. */
  copiedFrames: number;
  /** Output video frames encoded. */
  encodedFrames: number;
  reasons: SmartRenderReason[];
}

/** Probed facts of a resolved media file (seconds, pixels). */
export interface ResolvedMedia {
  duration: number | null;
  hasAudio: boolean;
  hasVideo?: boolean;
  /** ffmpeg codec name of the video stream (`h264`, `prores`…): lets the plan know it has no alpha. */
  videoCodec?: string | null;
  width?: number | null;
  height?: number | null;
  fps?: number | null;
  /** ffmpeg's demuxer name (`mpegts`, `mov,mp4,m4a,3gp,3g2,mj2`…): how input seeks land (`containerSeekOf`). */
  formatName?: string;
}

/**
 * A media source the worker has fetched to local disk: keyed in `BuildRenderPlanInput.assets` by
 * `uploadId`, by the asset's `src` URL, or by a caption's `transcriptionId`. `path` is absolute or
 * relative to the ffmpeg cwd (empty for a transcription: no file). Subtitle uploads carry their
 * decoded `text` (SRT or WebVTT) and transcriptions their caption `cues` (with word times), so
 * that planning stays pure.
 */
export interface ResolvedAsset {
  path: string;
  type: UploadType;
  /** The upload's file name, as messages name its clips (`clipLabel`). */
  name?: string;
  media?: ResolvedMedia | null;
  text?: string;
  /** Caption cues of a transcription, seconds of the transcribed media, each with its words. */
  cues?: CaptionCue[];
  /**
   * A video upload's preview proxy (given to previews only, never to renders): a local file
   * with the same frames at the same times, square pixels, rotation applied, `width`×`height`
   * pixels (the asset's display size scaled down). A clip's picture reads it instead of `path`
   * when it has pixels enough at the render's size (`openSourceInput`).
   */
  proxy?: { path: string; width: number; height: number };
  /** A video upload's keyframe index as the upload keeps it (`uploads.keyframes`), when it has one. */
  keyframes?: KeyframeIndex;
}

/** A font uploaded by the caller (upload type `font`); `family` as read with `readFontFamilyNames`. */
export interface UploadedFont {
  family: string;
  path: string;
  weight?: number;
  italic?: boolean;
  uploadId?: string;
}

/** A non-fatal problem recorded on the render (`Render.warnings`). */
export interface RenderWarning {
  code: string;
  message: string;
  clipId?: string;
  /** The upload the warning is about, when it is about a source file. */
  uploadId?: string;
}

/** Render error codes (docs/composition.md, The render resource). */
export type RenderErrorCode =
  | "INVALID_COMPOSITION"
  | "ASSET_NOT_FOUND"
  | "ASSET_FETCH_FAILED"
  | "ASSET_UNSUPPORTED"
  | "FONT_NOT_FOUND"
  | "FFMPEG_FAILED"
  | "TIMEOUT"
  | "WORKER_LOST"
  | "OUTPUT_UPLOAD_FAILED"
  | "INTERNAL";

const RETRYABLE: ReadonlySet<RenderErrorCode> = new Set([
  "ASSET_FETCH_FAILED",
  "WORKER_LOST",
  "OUTPUT_UPLOAD_FAILED",
]);

/**
 * A typed render failure, stored as `Render.error` (`{ code, message, retryable, clipId?, uploadId? }`).
 * Thrown by plan building (e.g. `FONT_NOT_FOUND`, `ASSET_NOT_FOUND`) and by `runFfmpeg`
 * (`FFMPEG_FAILED`, `TIMEOUT`).
 */
export class RenderError extends Error {
  readonly code: RenderErrorCode;
  readonly clipId: string | undefined;
  readonly uploadId: string | undefined;
  readonly retryable: boolean;
  /**
   * Further problems found in the same pass (e.g. every missing or unusable source, not only
   * the first): a render reports this error, a preflight lists it and these.
   */
  readonly more: readonly RenderError[];

  constructor(
    code: RenderErrorCode,
    message: string,
    opts: { clipId?: string; uploadId?: string; retryable?: boolean; more?: readonly RenderError[] } = {},
  ) {
    super(message);
    this.name = "RenderError";
    this.code = code;
    this.clipId = opts.clipId;
    this.uploadId = opts.uploadId;
    this.retryable = opts.retryable ?? RETRYABLE.has(code);
    this.more = opts.more ?? [];
  }

  /** The `Render.error` object. */
  toJSON(): {
    code: RenderErrorCode;
    message: string;
    retryable: boolean;
    clipId?: string;
    uploadId?: string;
  } {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.clipId ? { clipId: this.clipId } : {}),
      ...(this.uploadId ? { uploadId: this.uploadId } : {}),
    };
  }
}

/** The file a render produced, as stored on the render (`renders.output`); `Render.output` shows it with signed URLs in place of the keys. */
export interface RenderOutput {
  url?: string;
  expiresAt?: string;
  format: OutputFormat;
  width?: number;
  height?: number;
  fps?: number;
  duration: number;
  size: number;
  sha256: string;
  /** Storage keys (not exposed; URLs are signed on read). */
  key: string;
  posterKey?: string;
}

/** Where a render is (`Render.progress`, the `renders.progress` column). */
export interface RenderProgress {
  /** 0..1 of the whole render; never goes backwards. */
  ratio: number;
  phase: "queued" | "preparing" | "rendering" | "finalizing" | "done";
  /** Encoding speed, multiple of real time. */
  speed?: number;
  /** Estimated seconds left. */
  etaSeconds?: number;
  /** ISO 8601 time of this progress. */
  updatedAt: string;
}

/** A render failure as stored (`Render.error`): what {@link RenderError.toJSON} returns, or a worker-lost error. */
export interface RenderErrorJson {
  code: string;
  message: string;
  retryable: boolean;
  clipId?: string;
  uploadId?: string;
}
