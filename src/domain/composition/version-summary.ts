/**
 * The one-line summary of a version: what changed between two states of a composition, in words
 * ("renamed to …", "moved clip … to 12.5 s", "3 changes to tracks").
 */
import { isDeepStrictEqual } from "node:util";
import type { VersionState } from "../../db/schema/composition-versions.ts";

interface Item {
  area: string;
  text: string;
}

interface ClipLike {
  id?: string;
  start?: number;
  [key: string]: unknown;
}

interface TrackLike {
  id?: string;
  kind?: string;
  clips?: ClipLike[];
  [key: string]: unknown;
}

const MAX_SUMMARY = 200;

const short = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function clipsById(tracks: TrackLike[]): Map<string, { clip: ClipLike; trackId: string }> {
  const map = new Map<string, { clip: ClipLike; trackId: string }>();
  for (const track of tracks) {
    for (const clip of track.clips ?? []) map.set(String(clip.id), { clip, trackId: String(track.id) });
  }
  return map;
}

function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !isDeepStrictEqual(a[k], b[k]));
}

function trackItems(before: TrackLike[], after: TrackLike[]): Item[] {
  const items: Item[] = [];
  const tracksBefore = new Map(before.map((t) => [String(t.id), t]));
  const tracksAfter = new Map(after.map((t) => [String(t.id), t]));
  for (const [id, t] of tracksAfter) {
    if (tracksBefore.has(id)) continue;
    const clips = t.clips?.length ?? 0;
    const what = clips === 1 ? ` with clip ${t.clips?.[0]?.id}` : clips > 1 ? ` with ${clips} clips` : "";
    items.push({ area: "tracks", text: `added ${t.kind ?? ""} track ${id}${what}` });
  }
  for (const [id] of tracksBefore) {
    if (!tracksAfter.has(id)) items.push({ area: "tracks", text: `removed track ${id}` });
  }
  for (const [id, t] of tracksAfter) {
    const old = tracksBefore.get(id);
    if (!old) continue;
    const { clips: _a, ...restBefore } = old;
    const { clips: _b, ...restAfter } = t;
    if (changedKeys(restBefore, restAfter).length > 0)
      items.push({ area: "tracks", text: `changed track ${id}` });
  }
  if (
    !isDeepStrictEqual(
      before.map((t) => t.id),
      after.map((t) => t.id),
    ) &&
    items.length === 0
  ) {
    items.push({ area: "tracks", text: "reordered the tracks" });
  }
  const clipsBefore = clipsById(before);
  const clipsAfter = clipsById(after);
  for (const [id, { clip }] of clipsAfter) {
    const old = clipsBefore.get(id);
    if (!old) {
      if (tracksBefore.has(clipsAfter.get(id)?.trackId ?? ""))
        items.push({ area: "tracks", text: `added clip ${id} at ${clip.start} s` });
      continue;
    }
    const keys = changedKeys(old.clip, clip);
    if (old.trackId !== clipsAfter.get(id)?.trackId) {
      items.push({ area: "tracks", text: `moved clip ${id} to track ${clipsAfter.get(id)?.trackId}` });
    } else if (keys.length === 1 && keys[0] === "start") {
      items.push({ area: "tracks", text: `moved clip ${id} to ${clip.start} s` });
    } else if (keys.length > 0) {
      items.push({ area: "tracks", text: `changed ${keys.join(", ")} of clip ${id}` });
    }
  }
  for (const [id, { trackId }] of clipsBefore) {
    if (!clipsAfter.has(id) && tracksAfter.has(trackId))
      items.push({ area: "tracks", text: `removed clip ${id}` });
  }
  return items;
}

function joinAreas(areas: string[]): string {
  if (areas.length <= 1) return areas.join("");
  return `${areas.slice(0, -1).join(", ")} and ${areas[areas.length - 1]}`;
}

/**
 * A one-line summary of the change from `before` to `after` (version states): the change itself
 * when there is one ("renamed to "Teaser"", "moved clip clp_… to 12.5 s", "changed duration of
 * clip clp_…"), else the count and the areas ("3 changes to tracks", "2 changes to name and
 * canvas"). At most 200 characters.
 */
export function summarizeChange(before: VersionState, after: VersionState): string {
  const items: Item[] = [];
  for (const key of changedKeys(before, after)) {
    if (key === "name") items.push({ area: "name", text: `renamed to "${short(String(after.name ?? ""))}"` });
    else if (key === "tracks") {
      items.push(...trackItems((before.tracks as TrackLike[]) ?? [], (after.tracks as TrackLike[]) ?? []));
    } else if (key === "canvas") {
      const canvasKeys = changedKeys(
        (before.canvas as Record<string, unknown>) ?? {},
        (after.canvas as Record<string, unknown>) ?? {},
      );
      const only = canvasKeys.length === 1 ? canvasKeys[0] : undefined;
      const value = only ? (after.canvas as Record<string, unknown>)[only] : undefined;
      items.push({
        area: "canvas",
        text:
          only && value !== undefined
            ? `set canvas ${only} to ${JSON.stringify(value)}`
            : "changed the canvas",
      });
    } else if (key === "audio") {
      const loudness = (after.audio as { loudness?: { integrated: number; truePeak?: number } } | undefined)
        ?.loudness;
      items.push({
        area: "audio",
        text: loudness
          ? `set loudness to ${loudness.integrated} LUFS, true peak ${loudness.truePeak ?? -1} dBTP`
          : "removed the loudness target",
      });
    } else if (key === "projectId") {
      items.push({
        area: "project",
        text: after.projectId ? `moved to project ${after.projectId}` : "left its project",
      });
    } else items.push({ area: key, text: `changed ${key}` });
  }
  if (items.length === 0) return "no changes";
  if (items.length === 1) return short(items[0]?.text ?? "", MAX_SUMMARY);
  const areas = [...new Set(items.map((i) => i.area))];
  return short(`${items.length} changes to ${joinAreas(areas)}`, MAX_SUMMARY);
}
