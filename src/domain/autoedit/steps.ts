/**
 * The automated steps of an auto-edit. Each step is `(context, composition) → { composition,
 * summary, reasons? }` and is written as one version of the composition with its summary, so a
 * user can revert any one of them. {@link autoeditSteps} lists the steps a request runs, in
 * order; a step that changes nothing writes no version.
 *
 * Order: the cut (version 1) → the reframe to the target aspect on tracked faces → captions from speech (in step
 * with the video clip) → silence and filler removal (which recuts the captions in step and moves
 * markers) → music bed → the loudness target.
 *
 * A new step is one more {@link AutoeditStep} in {@link autoeditSteps}; a step that needs the
 * database, the blob store or scratch space finds them in `context.deps`.
 */

import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import type { FaceDetector } from "../../media/faces/detector.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { SourceRange } from "../composition/recut.ts";
import { removePauses } from "../composition/remove-pauses.ts";
import type { Canvas, Clip, Composition, TextStyle, Track } from "../composition/schema.ts";
import { CANVAS_FPS } from "../composition/value-lists.ts";
import { reframeComposition } from "../reframe/reframe-composition.ts";
import type { TranscriptResult } from "../transcription/types.ts";
import type { AutoeditAspectRatio, AutoeditCandidate, AutoeditRequest } from "./types.ts";

/** The upload a composition is cut from, as the steps need it. */
export interface AutoeditSource {
  uploadId: string;
  name: string;
  /** Display size of the picture, pixels. */
  width: number;
  height: number;
  /** Frame rate of the picture, frames/s (null: unknown). */
  fps: number | null;
  /** The succeeded transcription of its speech, and its transcript (word times, source seconds). */
  transcriptionId: string;
  transcript: TranscriptResult;
  /** Silences of its sound (source seconds) at least the request's `silenceMinDuration` long. */
  silences: SourceRange[];
}

/** What every step sees: the request, the candidate, its source and the music upload, if any. */
export interface AutoeditStepContext {
  /** The job's owner: every upload and composition a step touches is theirs. */
  userId: string;
  /** What a step may use beyond the composition: database, blob store, scratch space, clock, face detector. */
  deps: { db: Db; store: BlobStore; workRoot: string; clock: Clock; faces: FaceDetector };
  request: AutoeditRequest;
  candidate: AutoeditCandidate;
  source: AutoeditSource;
  music: { uploadId: string; name: string; duration: number } | null;
  /** Aborted when the job is cancelled: stop and throw. */
  signal: AbortSignal;
}

/** A composition as the steps edit it: the resource without its server fields. */
export type AutoeditDraft = Omit<Composition, "id" | "version" | "schemaVersion" | "createdAt" | "updatedAt">;

/** What a step did: the new composition, its version's summary and why it did what it did. */
export interface AutoeditStepOutput {
  composition: AutoeditDraft;
  summary: string;
  reasons?: string[];
}

/** One automated step (see the module doc). */
export interface AutoeditStep {
  /** Short name, recorded with the version it writes (`cut`, `canvas`, `captions`, …). */
  name: string;
  run(context: AutoeditStepContext, composition: AutoeditDraft): Promise<AutoeditStepOutput>;
}

/** Silence kept beside speech when a silence is cut, seconds at each end. */
export const SILENCE_PAD = 0.15;
/** Shortest piece a silence cut leaves, seconds of timeline. */
const MIN_PIECE = 0.1;
/** Gain of the music bed under speech (linear; ducked further while speech plays). */
const MUSIC_GAIN = 0.5;
/** How far the music ducks under speech, dB. */
const MUSIC_DUCK_DB = 12;

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const even = (x: number) => Math.max(16, 2 * Math.floor(x / 2));

/** The frame rate a canvas takes for a source: the allowed one nearest to it (30 when unknown). */
export function canvasFps(fps: number | null): Canvas["fps"] {
  if (!fps) return 30;
  return CANVAS_FPS.reduce((best, f) => (Math.abs(f - fps) < Math.abs(best - fps) ? f : best), 30);
}

/**
 * The largest even-sized frame of aspect `ratio` inside a `width`×`height` picture: a centre
 * crop at the source's own pixel scale (never upscaled), pixels.
 */
export function cropCanvasSize(
  ratio: AutoeditAspectRatio,
  width: number,
  height: number,
): { width: number; height: number } {
  const [w, h] = ratio.split(":").map(Number) as [number, number];
  if (width / height > w / h) return { width: even((height * w) / h), height: even(height) };
  return { width: even(width), height: even((width * h) / w) };
}

/** The video track of the cut (the first video track with a clip of the source). */
function pictureTrack(c: AutoeditDraft, uploadId: string): Track | undefined {
  return c.tracks.find(
    (t) => t.kind === "video" && t.clips.some((x) => "uploadId" in x.asset && x.asset.uploadId === uploadId),
  );
}

/** The cut: one video clip playing the candidate's stretch of its upload on a source-sized canvas. */
export const cutToCandidate: AutoeditStep = {
  name: "cut",
  async run(ctx, composition) {
    const { candidate: c, source } = ctx;
    const duration = r3(c.end - c.start);
    const clip = {
      name: source.name,
      start: 0,
      duration,
      trim: r3(c.start),
      asset: { type: "video", uploadId: source.uploadId },
    } as Clip;
    return {
      composition: {
        ...composition,
        canvas: {
          width: even(source.width),
          height: even(source.height),
          fps: canvasFps(source.fps),
          background: "#000000",
        },
        tracks: [{ name: "Video", kind: "video", clips: [clip] } as Track],
      },
      summary: `cut to ${r3(c.start)}–${r3(c.end)} s of ${source.name}: ${c.title}`,
      reasons: c.reasons,
    };
  },
};

/**
 * Reframe on faces ({@link reframeComposition}): the canvas takes the target aspect ratio and
 * each video clip a crop window that follows the faces in it, shot by shot (two people far apart:
 * two stacked windows; no face: the most active region or the centre, said in the reasons). The
 * canvas is the largest frame of that shape at the source's own pixel scale (never upscaled).
 */
export const reframeOnFaces: AutoeditStep = {
  name: "reframe",
  async run(ctx, composition) {
    const aspectRatio = ctx.request.target.aspectRatio;
    const done = await reframeComposition({ ...ctx.deps, userId: ctx.userId }, composition, {
      aspectRatio,
      signal: ctx.signal,
    });
    const size = cropCanvasSize(aspectRatio, ctx.source.width, ctx.source.height);
    return {
      composition: { ...done.composition, canvas: { ...done.composition.canvas, ...size } },
      summary: done.summary,
      reasons: done.reasons,
    };
  },
};

/**
 * Caption style for a canvas: larger, bolder type on vertical and square frames (read on a
 * phone), a heavy outline and a highlighted spoken word for karaoke.
 */
export function captionStyle(canvas: Pick<Canvas, "width" | "height">): TextStyle {
  const vertical = canvas.height > canvas.width;
  const square = canvas.height === canvas.width;
  // Pixels at canvas height: about 7 % of the width on vertical frames, 5.5 % of the height otherwise.
  const size = Math.round(
    vertical ? canvas.width * 0.07 : square ? canvas.height * 0.06 : canvas.height * 0.055,
  );
  return {
    family: "DejaVu Sans",
    size: Math.max(12, size),
    weight: 700,
    color: "#ffffff",
    align: "center",
    valign: vertical ? "center" : "bottom",
    stroke: { color: "#000000", width: Math.max(2, Math.round(size / 12)) },
    highlightColor: "#ffd400",
  };
}

/** Captions from speech: word-timed karaoke from the transcription, in step with the video clip. */
export const captionsFromSpeech: AutoeditStep = {
  name: "captions",
  async run(ctx, composition) {
    const track = pictureTrack(composition, ctx.source.uploadId);
    const clip = track?.clips.find((x) => "uploadId" in x.asset && x.asset.uploadId === ctx.source.uploadId);
    if (!clip) return { composition, summary: "no clip of the source to caption" };
    const caption = {
      name: "Captions",
      start: clip.start,
      duration: clip.duration,
      ...(clip.trim !== undefined ? { trim: clip.trim } : {}),
      ...(clip.speed !== undefined && clip.speed !== 1 ? { speed: clip.speed } : {}),
      asset: {
        type: "caption",
        mode: "karaoke",
        style: captionStyle(composition.canvas),
        source: { transcriptionId: ctx.source.transcriptionId },
      },
    } as Clip;
    const captions = { name: "Captions", kind: "video", clips: [caption] } as unknown as Track;
    return {
      composition: { ...composition, tracks: [...composition.tracks, captions] },
      summary: "captions from speech",
      reasons: [
        `karaoke captions from transcription ${ctx.source.transcriptionId}, each word highlighted as it is spoken`,
        `styled for ${composition.canvas.width}×${composition.canvas.height}: ${caption.asset.type === "caption" ? caption.asset.style.size : 0} px bold type`,
      ],
    };
  },
};

/**
 * Silence and filler removal ({@link removePauses}): every silence of the source longer than
 * `silenceMinDuration` inside the cut, and with `removeFillers` every hesitation of the
 * transcript's language ("um", "uh", …), goes, but {@link SILENCE_PAD} beside the speech; later
 * clips, caption clips in step and markers move left with the cut.
 */
export const removeSilencesAndFillers: AutoeditStep = {
  name: "silences",
  async run(ctx, composition) {
    const { request, source } = ctx;
    const done = removePauses(composition, {
      uploadId: source.uploadId,
      words: source.transcript.segments.flatMap((s) => s.words),
      silences: source.silences,
      removeSilences: request.removeSilences,
      minSilence: request.silenceMinDuration,
      fillers: request.removeFillers,
      language: source.transcript.language,
      pad: SILENCE_PAD,
      minPiece: MIN_PIECE,
    });
    if (done.removed.count === 0) return { composition, summary: done.summary };
    return {
      composition: done.composition,
      summary: done.summary,
      reasons: [
        ...(request.removeSilences
          ? [`silences longer than ${request.silenceMinDuration} s (below -35 dBFS)`]
          : []),
        ...(request.removeFillers ? [`fillers of the ${source.transcript.language} filler list`] : []),
        `${SILENCE_PAD} s kept beside the speech; captions and markers moved with the cut`,
      ],
    };
  },
};

/** Loudness: the composition's `audio.loudness` target, met by every render of it (EBU R128). */
export const loudnessTarget: AutoeditStep = {
  name: "loudness",
  async run(ctx, composition) {
    const integrated = ctx.request.loudness;
    if (integrated === null) return { composition, summary: "loudness left as recorded" };
    return {
      composition: {
        ...composition,
        audio: { ...composition.audio, loudness: { integrated, truePeak: -1 } },
      },
      summary: `loudness ${integrated} LUFS, true peak -1 dBTP`,
      reasons: [`renders are measured (EBU R128) and brought to ${integrated} LUFS integrated`],
    };
  },
};

/** Timeline length of a composition: the end of its last clip, seconds. */
function timelineEnd(c: AutoeditDraft): number {
  return c.tracks.reduce((m, t) => t.clips.reduce((n, x) => Math.max(n, x.start + x.duration), m), 0);
}

/** Music bed: the music upload on its own audio track under the whole cut, ducked under the speech. */
export const musicBed: AutoeditStep = {
  name: "music",
  async run(ctx, composition) {
    const music = ctx.music;
    const picture = pictureTrack(composition, ctx.source.uploadId);
    if (!music || !picture) return { composition, summary: "no music" };
    const length = r3(Math.min(music.duration, timelineEnd(composition)));
    const fade = r3(Math.min(1, length / 4));
    const track = {
      name: "Music",
      kind: "audio",
      volume: MUSIC_GAIN,
      ducking: { under: [picture.id], amountDb: MUSIC_DUCK_DB },
      clips: [
        {
          name: music.name,
          start: 0,
          duration: length,
          fadeIn: fade,
          fadeOut: fade,
          asset: { type: "audio", uploadId: music.uploadId },
        },
      ],
    } as unknown as Track;
    return {
      composition: { ...composition, tracks: [...composition.tracks, track] },
      summary: `music bed from ${music.name}, ducked under speech`,
      reasons: [
        `${length} s of ${music.name} at gain ${MUSIC_GAIN}, ducking ${MUSIC_DUCK_DB} dB while the speech plays`,
      ],
    };
  },
};

/**
 * The steps a request runs, in order. The cut always runs first (it writes version 1); the
 * others follow the request's options.
 */
export function autoeditSteps(request: AutoeditRequest): AutoeditStep[] {
  return [
    cutToCandidate,
    reframeOnFaces,
    ...(request.captions ? [captionsFromSpeech] : []),
    ...(request.removeSilences || request.removeFillers ? [removeSilencesAndFillers] : []),
    ...(request.musicUploadId ? [musicBed] : []),
    ...(request.loudness !== null ? [loudnessTarget] : []),
  ];
}
