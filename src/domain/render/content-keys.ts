/**
 * Content keys of a split render's parts: a SHA-256 of a canonical JSON of everything that
 * decides a part's bytes, so that a part rendered once can be reused by a later render whose
 * part has the same key (docs/architecture.md, Incremental renders).
 */
import { createHash } from "node:crypto";
import { compositionDuration } from "../composition/duration.ts";
import type { Clip, Timeline, Track } from "../composition/schema.ts";
import { requestedWindow, windowedTracks } from "./plan.ts";
import { type FrameRange, renderFrameWindow } from "./segments.ts";
import { type FrameRate, frameToSeconds, planTransition, secondsToFrame, snapClip } from "./timeline.ts";
import type { RenderOutputOptions, SmartRenderMode, SmartStreamFormat } from "./types.ts";

/**
 * Version of what the plan builder and the encoder settings make of a composition: bump it
 * whenever `buildSegmentPlan` or `buildAudioPlan` would write other bytes for the same input,
 * so that no part cached by an older engine is reused.
 */
export const RENDER_ENGINE_VERSION = 3;

/** What a part's content key is made of, besides the composition. */
export interface ContentKeyInput {
  composition: Timeline;
  /** The render's output options (`reuse` is ignored). */
  output: RenderOutputOptions & { reuse?: boolean };
  /**
   * Identity of the bytes of every upload the composition reads (media, subtitle files and the
   * account's fonts): upload id → its SHA-256. A part reading an upload missing here gets no key.
   */
  sources: ReadonlyMap<string, string>;
  /** The account's uploaded fonts (ids, also in `sources`): text may use any of them. */
  fontUploadIds: readonly string[];
  /**
   * Settings of the worker that change the encoded bytes: lossless test encoding, and the
   * thread count x264 picks by itself (frame threads change its output).
   */
  encoder: {
    lossless?: boolean;
    threads: number;
    /**
     * Smart rendering of an mp4: its mode and the stream format every part is encoded in (null
     * when nothing is copied): a part copies or encodes with it.
     */
    smart?: { mode: SmartRenderMode; format: SmartStreamFormat | null };
  };
}

/** One part's key and the uploads whose bytes it depends on. */
export interface PartContentKey {
  /** Lowercase hex SHA-256. */
  key: string;
  /** Every upload id the part reads (sorted): deleting one invalidates the part's cache entry. */
  uploadIds: string[];
}

/**
 * The content keys of a split render's parts: one per video segment of `ranges` (same order)
 * and one for the audio of the whole render. A video segment's key covers the engine version,
 * the canvas, the output's format, size, frame rate and quality, the encoder settings, the
 * segment's frames, and every clip it shows in the frames its plan builds (the segment widened
 * over transitions across its boundaries, as `buildSegmentPlan` builds it), in layering order,
 * with everything of the clip but its id, name and metadata, its track's switches, and the
 * SHA-256 of the upload it reads; text and caption clips count when their frames meet those
 * frames, with the account's fonts. The audio's key covers every track's audio settings and
 * every clip that can sound, and the composition's loudness target. Names, markers, metadata and clips outside a segment's frames do
 * not change its key. A part is `null` (never reused) when it reads a source other than an
 * upload (an https `src`) or an upload missing from `sources`.
 *
 * Pure.
 *
 * @param ranges - video segments, output frames of the whole composition (`planSplitSegments`).
 * @throws RenderError `INVALID_COMPOSITION` for an empty composition or a range after its end.
 */
export function partContentKeys(
  input: ContentKeyInput,
  ranges: readonly FrameRange[],
): { video: (PartContentKey | null)[]; audio: PartContentKey | null } {
  const { composition } = input;
  const { rate } = renderFrameWindow(composition, input.output);
  const totalFrames = secondsToFrame(compositionDuration(composition), rate);
  const { format, width, height, fps, quality } = input.output;
  const common = {
    engine: RENDER_ENGINE_VERSION,
    canvas: composition.canvas,
    output: { format, width, height, fps, quality },
    encoder: input.encoder,
  };
  const video = ranges.map((range) => {
    const request = requestedWindow(
      {
        format,
        range: {
          start: frameToSeconds(range.startFrame, rate),
          duration: frameToSeconds(range.endFrame - range.startFrame, rate),
        },
      },
      totalFrames,
      rate,
    );
    const { window, windowed } = windowedTracks(composition, rate, totalFrames, request, []);
    const shown = new Set<Clip>();
    for (const laid of windowed) {
      if (laid.track.kind !== "video") continue;
      for (const s of laid.segments) if (s.clip) shown.add(s.clip);
    }
    const clips: { track: Track; clip: Clip }[] = [];
    for (const track of composition.tracks) {
      if (track.kind !== "video") continue;
      for (const clip of track.clips) {
        const at = snapClip(clip, rate, totalFrames);
        if (shown.has(clip) || (isText(clip) && at.startFrame < window.end && at.endFrame > window.start)) {
          clips.push({ track, clip: withoutFarTransition(clip, rate, totalFrames, window) });
        }
      }
    }
    const hasText = clips.some((c) => isText(c.clip));
    // A clip running past the composition's end is cut there: the length matters at the end only.
    const atEnd = window.end >= totalFrames || clips.some((c) => clipEndFrame(c.clip, rate) > totalFrames);
    return keyOf(
      {
        ...common,
        part: "video",
        frames: [range.startFrame, range.endFrame],
        ...(atEnd ? { totalFrames } : {}),
        layers: layered(clips),
        // Text is drawn in bands, one per video track holding text, throughout the composition.
        ...(hasText ? { textTracks: textTracksOf(composition) } : {}),
      },
      clips.map((c) => c.clip),
      hasText ? input.fontUploadIds : [],
      input.sources,
    );
  });
  const sounding = composition.tracks.flatMap((track) =>
    track.clips
      .filter((c) => c.asset.type === (track.kind === "video" ? "video" : "audio"))
      .map((clip) => ({ track, clip })),
  );
  const audible = composition.tracks.filter((t) => sounding.some((s) => s.track === t));
  const audio = keyOf(
    {
      ...common,
      part: "audio",
      range: input.output.range ?? null,
      totalFrames,
      // The loudness target changes every sample (the gain measured from the mix follows from the rest).
      loudness: composition.audio?.loudness,
      tracks: audible.map((t) => ({
        kind: t.kind,
        enabled: t.enabled,
        muted: t.muted,
        volume: t.volume,
        // Which tracks it ducks under, by position among the tracks that sound (ids are names).
        ducking: t.ducking && {
          ...t.ducking,
          under: t.ducking.under.map((id) => audible.findIndex((u) => u.id === id)),
        },
        clips: sounding.filter((s) => s.track === t).map((s) => soundContent(s.clip)),
      })),
    },
    sounding.map((s) => s.clip),
    [],
    input.sources,
  );
  return { video, audio };
}

const isText = (clip: Clip) => clip.asset.type === "text" || clip.asset.type === "caption";

/** For each video track holding text, its position among all tracks. */
const textTracksOf = (composition: Timeline) =>
  composition.tracks.flatMap((t, i) => (t.kind === "video" && t.clips.some(isText) ? [i] : []));

/**
 * The clip without its incoming transition when the transition's frames (centred on the
 * clip's start) are outside `window`: the transition then changes none of the window's pixels.
 */
function withoutFarTransition(
  clip: Clip,
  rate: FrameRate,
  totalFrames: number,
  window: { start: number; end: number },
): Clip {
  if (!clip.transition) return clip;
  const cut = snapClip(clip, rate, totalFrames).startFrame;
  const t = planTransition(clip.transition.type, clip.transition.duration, rate);
  if (cut - t.before < window.end && cut + t.after > window.start) return clip;
  const { transition: _transition, ...rest } = clip;
  return rest;
}

/** The clip's last timeline frame (exclusive) before the composition's end cuts it. */
const clipEndFrame = (clip: Clip, rate: FrameRate) => secondsToFrame(clip.start + clip.duration, rate);

/**
 * The clips in layering order, each with its track's switches and the position of its track
 * among the tracks of these clips (which clip is drawn over which), not among all tracks.
 */
function layered(clips: readonly { track: Track; clip: Clip }[]) {
  const tracks: Track[] = [];
  return clips.map(({ track, clip }) => {
    if (!tracks.includes(track)) tracks.push(track);
    return {
      layer: tracks.indexOf(track),
      track: { kind: track.kind, enabled: track.enabled },
      clip: clipContent(clip),
    };
  });
}

/** Everything of a clip that shows or sounds: all but its id, name and metadata. */
function clipContent(clip: Clip) {
  const { id: _id, name: _name, metadata: _metadata, ...content } = clip;
  return content;
}

/** Everything of a clip that may change its sound: all but what only places or colours its picture. */
function soundContent(clip: Clip) {
  const {
    fit: _fit,
    transform: _transform,
    crop: _crop,
    reframe: _reframe,
    motion: _motion,
    filter: _filter,
    ...sound
  } = clipContent(clip);
  return sound;
}

/** The upload a clip reads (media or a subtitle file), a `src` URL, or nothing. */
function clipSource(clip: Clip): { uploadId?: string; src?: string } {
  const a = clip.asset;
  if (a.type === "video" || a.type === "image" || a.type === "audio") {
    return a.uploadId ? { uploadId: a.uploadId } : { src: a.src ?? "" };
  }
  if (a.type === "caption" && "uploadId" in a.source) return { uploadId: a.source.uploadId };
  return {};
}

/** The key of `content` with the bytes of the clips' and fonts' uploads, or null when one is unknown. */
function keyOf(
  content: object,
  clips: readonly Clip[],
  fontUploadIds: readonly string[],
  sources: ReadonlyMap<string, string>,
): PartContentKey | null {
  const ids = new Set(fontUploadIds);
  for (const clip of clips) {
    const source = clipSource(clip);
    if (source.src !== undefined) return null;
    if (source.uploadId) ids.add(source.uploadId);
  }
  const uploadIds = [...ids].sort();
  const bytes: Record<string, string> = {};
  for (const id of uploadIds) {
    const sha = sources.get(id);
    if (!sha) return null;
    bytes[id] = sha;
  }
  const json = canonicalJson({ ...content, bytes });
  return { key: createHash("sha256").update(json).digest("hex"), uploadIds };
}

/** JSON with every object's keys sorted (and `undefined` members left out, as JSON does). */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
