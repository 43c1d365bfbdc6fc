import { findUploadsByIds } from "../../db/repositories/uploads.ts";
import { compositionDuration } from "../composition/duration.ts";
import type { Clip, Composition, Track } from "../composition/schema.ts";
import type { ToolContext } from "./tool-context.ts";

/** One clip in a {@link CompositionSummary}; times in seconds. */
export interface ClipSummary {
  /** 1-based number in summary order (tracks bottom to top, clips by start): "clip 2". */
  n: number;
  id: string;
  track: string;
  type: string;
  start: number;
  duration: number;
  end: number;
  /** Upload name, text, colour or caption source. */
  source: string;
  transition?: string;
}

/** The compact view of a composition the model reads (system prompt and `get_composition`). */
export interface CompositionSummary {
  id: string;
  name: string;
  version: number;
  canvas: string;
  /** Seconds. */
  duration: number;
  tracks: { id: string; name?: string; kind: string; volume?: number; muted?: boolean; ducking?: string[] }[];
  clips: ClipSummary[];
  markers: { time: number; label: string }[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Clips in summary order with their track: tracks bottom to top, clips by start. */
export function orderedClips(c: Pick<Composition, "tracks">): { clip: Clip; track: Track }[] {
  return c.tracks.flatMap((track) =>
    [...track.clips].sort((a, b) => a.start - b.start).map((clip) => ({ clip, track })),
  );
}

/**
 * Summarises a composition: tracks, numbered clips with ids, types, start/duration/end
 * (seconds) and source names (upload names looked up for the caller), markers, version.
 */
export async function summarizeComposition(
  ctx: Pick<ToolContext, "db" | "userId">,
  c: Composition,
): Promise<CompositionSummary> {
  const uploadIds = new Set<string>();
  for (const t of c.tracks)
    for (const clip of t.clips) {
      const a = clip.asset as { uploadId?: string; source?: { uploadId?: string } };
      if (a.uploadId) uploadIds.add(a.uploadId);
      if (a.source?.uploadId) uploadIds.add(a.source.uploadId);
    }
  const names = new Map(
    (await findUploadsByIds(ctx.db, ctx.userId, [...uploadIds])).map((u) => [u.id, u.name]),
  );
  const clips = orderedClips(c).map(({ clip, track }, i): ClipSummary => {
    const a = clip.asset;
    let source: string;
    if (a.type === "text") source = `"${a.text.slice(0, 60)}"`;
    else if (a.type === "color") source = a.color;
    else if (a.type === "caption")
      source =
        "uploadId" in a.source
          ? (names.get(a.source.uploadId) ?? a.source.uploadId)
          : "transcriptionId" in a.source
            ? `transcription ${a.source.transcriptionId}`
            : `${a.source.cues.length} cues`;
    else source = a.uploadId ? (names.get(a.uploadId) ?? a.uploadId) : (a.src ?? "");
    return {
      n: i + 1,
      id: clip.id,
      track: track.id,
      type: a.type,
      start: round(clip.start),
      duration: round(clip.duration),
      end: round(clip.start + clip.duration),
      source,
      ...(clip.transition ? { transition: `${clip.transition.type} ${clip.transition.duration}s` } : {}),
    };
  });
  return {
    id: c.id,
    name: c.name,
    version: c.version,
    canvas: `${c.canvas.width}x${c.canvas.height} ${c.canvas.fps} fps`,
    duration: round(compositionDuration(c)),
    tracks: c.tracks.map((t) => ({
      id: t.id,
      ...(t.name ? { name: t.name } : {}),
      kind: t.kind,
      ...(t.volume !== undefined ? { volume: t.volume } : {}),
      ...(t.muted ? { muted: true } : {}),
      ...(t.ducking ? { ducking: t.ducking.under } : {}),
    })),
    clips,
    markers: (c.markers ?? []).map((m) => ({ time: round(m.time), label: m.label })),
  };
}
