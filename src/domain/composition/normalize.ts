import { newId } from "../../ids.ts";
import type { CompositionAudio, CompositionWrite, Marker, Track } from "./schema.ts";

/**
 * A composition body after `normalizeComposition`: every track, clip and marker has an `id`,
 * clips are sorted by `start`, and the read-only fields a client may echo back
 * (`id`, `version`, `schemaVersion`, `createdAt`, `updatedAt`) are gone.
 */
export interface NormalizedComposition {
  name: string;
  projectId: string | null;
  canvas: CompositionWrite["canvas"];
  tracks: Track[];
  markers?: Marker[];
  audio?: CompositionAudio;
  metadata?: Record<string, unknown>;
}

/**
 * Returns a normalised deep copy of a (structurally valid) composition body: assigns missing
 * ids with `newId("trk" | "clp" | "mrk")`, keeps existing ids, sorts each track's clips by
 * `start` (stable, so equal starts keep their order) and markers by `time`. Pure apart from
 * id generation; never throws on a schema-valid body. Run `validateComposition` on the body
 * the client sent (so that error paths use the client's indices) before or after this.
 */
export function normalizeComposition(doc: CompositionWrite): NormalizedComposition {
  const copy = structuredClone(doc);
  const tracks: Track[] = copy.tracks.map((track) => ({
    ...track,
    id: track.id ?? newId("trk"),
    clips: track.clips
      .map((clip) => ({ ...clip, id: clip.id ?? newId("clp") }))
      .sort((a, b) => a.start - b.start),
  }));
  const out: NormalizedComposition = {
    name: copy.name,
    projectId: copy.projectId ?? null,
    canvas: copy.canvas,
    tracks,
  };
  if (copy.markers) {
    out.markers = copy.markers
      .map((m) => ({ ...m, id: m.id ?? newId("mrk") }))
      .sort((a, b) => a.time - b.time);
  }
  if (copy.audio) out.audio = copy.audio;
  if (copy.metadata) out.metadata = copy.metadata;
  return out;
}
