import { CANVAS_FPS } from "../../src/domain/composition/value-lists.ts";
import type { Composition, CompositionInput, Upload } from "./api/client";

/** The writable part of a composition (what `POST /api/compositions` takes). */
export type CompositionDraft = CompositionInput;
type TrackDraft = CompositionInput["tracks"][number];
type ClipDraft = TrackDraft["clips"][number];

/** Common canvas sizes offered for a new, empty composition. */
export const CANVAS_PRESETS = [
  { label: "16:9 landscape (1920×1080)", width: 1920, height: 1080 },
  { label: "9:16 vertical (1080×1920)", width: 1080, height: 1920 },
  { label: "1:1 square (1080×1080)", width: 1080, height: 1080 },
] as const;

/** Seconds an image clip lasts when put on a timeline. */
export const STILL_SECONDS = 5;

/** The allowed canvas rate nearest to `fps` (30 without one). */
export function nearestCanvasFps(fps: number | null | undefined): Composition["canvas"]["fps"] {
  if (!fps) return 30;
  return CANVAS_FPS.reduce((best, f) => (Math.abs(f - fps) < Math.abs(best - fps) ? f : best), 30);
}

const even = (n: number) => Math.max(16, Math.min(4096, Math.round(n / 2) * 2));

/** An empty composition of a preset size with one video and one audio track. */
export function emptyComposition(
  projectId: string,
  name: string,
  width: number,
  height: number,
): CompositionDraft {
  return {
    projectId,
    name,
    canvas: { width, height, fps: 30, background: "#000000" },
    tracks: [
      { kind: "video", clips: [] },
      { kind: "audio", clips: [] },
    ],
  };
}

/** How long an upload plays on a timeline: its duration, or {@link STILL_SECONDS} for a still. */
export function clipSeconds(u: Upload): number {
  return u.media?.duration && u.media.duration > 0 ? u.media.duration : STILL_SECONDS;
}

/** The clip an upload becomes when placed at `start` seconds, or null for a font. */
export function clipFor(u: Upload, start: number): ClipDraft | null {
  if (u.type === "video" || u.type === "image" || u.type === "audio") {
    return { name: u.name, start, duration: clipSeconds(u), asset: { type: u.type, uploadId: u.id } };
  }
  if (u.type === "subtitle") {
    return {
      name: u.name,
      start,
      duration: 10,
      asset: {
        type: "caption" as const,
        style: { family: "DejaVu Sans", size: 48, color: "#ffffff", valign: "bottom" as const },
        source: { uploadId: u.id },
      },
    };
  }
  return null;
}

/**
 * A composition playing `uploads` one after another: pictures (video, images) on a video track,
 * sound-only uploads on an audio track, subtitles as captions over the whole length. The canvas
 * takes the first picture's size (even pixels) and nearest allowed frame rate, else 1920×1080 at 30.
 */
export function compositionFromUploads(projectId: string, name: string, uploads: Upload[]): CompositionDraft {
  const picture = uploads.find((u) => (u.type === "video" || u.type === "image") && u.media?.width);
  const video: TrackDraft = { kind: "video", clips: [] };
  const audio: TrackDraft = { kind: "audio", clips: [] };
  let pictureEnd = 0;
  let audioEnd = 0;
  for (const u of uploads) {
    if (u.type === "video" || u.type === "image") {
      const clip = clipFor(u, pictureEnd);
      if (clip) video.clips.push(clip);
      pictureEnd += clipSeconds(u);
    } else if (u.type === "audio") {
      const clip = clipFor(u, audioEnd);
      if (clip) audio.clips.push(clip);
      audioEnd += clipSeconds(u);
    }
  }
  const length = Math.max(pictureEnd, audioEnd, STILL_SECONDS);
  const captions: TrackDraft = { kind: "video", name: "Captions", clips: [] };
  for (const u of uploads.filter((x) => x.type === "subtitle")) {
    const clip = clipFor(u, 0);
    if (clip) captions.clips.push({ ...clip, duration: length });
    break; // one caption source fills the length; more would overlap
  }
  const tracks = [video, ...(captions.clips.length > 0 ? [captions] : []), audio];
  return {
    projectId,
    name,
    canvas: {
      width: picture?.media?.width ? even(picture.media.width) : 1920,
      height: picture?.media?.height ? even(picture.media.height) : 1080,
      fps: nearestCanvasFps(picture?.media?.fps),
      background: "#000000",
    },
    tracks,
  };
}
