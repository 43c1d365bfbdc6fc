import type { Clip, Composition, Track } from "../../composition/schema.ts";

/** A new track as tools add it (the server assigns its id on write). */
type NewTrack = Omit<Track, "id"> & { id?: string };

const isOverlay = (c: Clip) => c.asset.type === "text" || c.asset.type === "caption";

/** True when [start, end) seconds is free on the track. */
export function isFree(track: Pick<Track, "clips">, start: number, end: number, except?: string): boolean {
  return track.clips.every(
    (c) => c.id === except || c.start >= end - 1e-6 || c.start + c.duration <= start + 1e-6,
  );
}

/** End of the last clip on a track, seconds (0 when empty). */
export function trackEnd(track: Pick<Track, "clips">): number {
  return track.clips.reduce((m, c) => Math.max(m, c.start + c.duration), 0);
}

/**
 * The main picture track: the lowest video track holding video, image or colour clips, else
 * the lowest video track without text, else a new bottom track "Video".
 */
export function mainVideoTrack(draft: Composition): Track {
  const video = draft.tracks.filter((t) => t.kind === "video");
  const found =
    video.find((t) => t.clips.some((c) => !isOverlay(c))) ?? video.find((t) => !t.clips.some(isOverlay));
  if (found) return found;
  const track: NewTrack = { name: "Video", kind: "video", clips: [] };
  draft.tracks.unshift(track as Track);
  return track as Track;
}

/**
 * A track of `kind` named `name` where [start, end) is free (topmost first for video, so
 * overlays stay above the picture), else a new one (video on top, audio at the end).
 */
export function freeTrack(
  draft: Composition,
  kind: "video" | "audio",
  name: string,
  start: number,
  end: number,
): Track {
  const named = draft.tracks.filter(
    (t) => t.kind === kind && (t.name ?? "").toLowerCase() === name.toLowerCase(),
  );
  const hit = [...named].reverse().find((t) => isFree(t, start, end));
  if (hit) return hit;
  const track: NewTrack = { name, kind, clips: [] };
  draft.tracks.push(track as Track);
  return track as Track;
}
