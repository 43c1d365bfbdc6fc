import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listOtioMedia, otioToComposition, parseOtio, type ResolvedUse } from "./otio-import.ts";

// Tracks with a source_range (OpenTimelineIO: it trims the track's children in the track's own
// time), written by hand; the expectations come from the JSON alone, without importer code.
const FILE = path.join(import.meta.dirname, "../../../test/fixtures/interchange/track-source-range.otio");

// biome-ignore lint/suspicious/noExplicitAny: the reader walks arbitrary OTIO JSON
type Json = Record<string, any>;
const secs = (t: Json) => t.value / t.rate;

/** Clips (start, duration, trim; seconds) and markers each track shows through its range. */
function independentReading(doc: Json) {
  const markers: { time: number; label: string }[] = [];
  const tracks = (doc.tracks.children as Json[]).map((track) => {
    const length = (track.children as Json[]).reduce(
      (sum, c) => sum + (c.OTIO_SCHEMA === "Transition.1" ? 0 : secs(c.source_range.duration)),
      0,
    );
    const range = track.source_range && {
      start: secs(track.source_range.start_time),
      end: secs(track.source_range.start_time) + secs(track.source_range.duration),
    };
    // A range that misses every child is not applied (the importer warns).
    const applied = range && range.start < length && range.end > 0 ? range : null;
    const from = applied?.start ?? 0;
    const to = applied?.end ?? Number.POSITIVE_INFINITY;
    for (const m of track.markers ?? []) {
      const at = secs(m.marked_range.start_time);
      if (at >= from && at <= to) markers.push({ time: at - from, label: m.name });
    }
    const clips: { name: string; start: number; duration: number; trim: number }[] = [];
    let cursor = 0;
    for (const item of track.children as Json[]) {
      if (item.OTIO_SCHEMA === "Transition.1") continue;
      const length = secs(item.source_range.duration);
      const a = Math.max(cursor, from);
      const b = Math.min(cursor + length, to);
      if (item.OTIO_SCHEMA === "Clip.2" && b > a) {
        const sourceIn = secs(item.source_range.start_time) + (a - cursor);
        clips.push({ name: item.name, start: a - from, duration: b - a, trim: sourceIn });
        for (const m of item.markers ?? []) {
          const at = secs(m.marked_range.start_time);
          if (at >= sourceIn && at < sourceIn + (b - a))
            markers.push({ time: a - from + at - sourceIn, label: m.name });
        }
      }
      cursor += length;
    }
    return clips;
  });
  return { tracks, markers };
}

const round = (n: number) => Math.round(n * 1e4) / 1e4;

describe("a track's source_range", () => {
  it("trims the track's children in the track's time, as an independent reading of the file does", () => {
    const doc = JSON.parse(readFileSync(FILE, "utf8"));
    const parsed = parseOtio(doc);
    const ids = new Map(listOtioMedia(parsed).map((u) => [u.path, `upl_${u.name}`]));
    const { body, warnings } = otioToComposition(
      parsed,
      (p): ResolvedUse => ({ uploadId: ids.get(p) ?? "?", uploadType: "video" }),
    );
    const want = independentReading(doc);
    expect(
      body.tracks.map((t) =>
        t.clips.map((c) => ({
          name: c.name,
          start: round(c.start),
          duration: round(c.duration),
          trim: round(c.trim ?? 0),
        })),
      ),
    ).toEqual(
      want.tracks.map((clips) =>
        clips.map((c) => ({ ...c, start: round(c.start), duration: round(c.duration), trim: round(c.trim) })),
      ),
    );
    // The dissolve's cut (A → B) lies inside V1's range: kept, onto the piece of A left.
    expect(body.tracks[0]?.clips[1]?.transition).toEqual({ type: "fade", duration: 0.5 });
    expect((body.markers ?? []).map((m) => ({ time: round(m.time), label: m.label }))).toEqual(
      want.markers.map((m) => ({ time: round(m.time), label: m.label })),
    );
    expect(warnings).toEqual([
      { path: "/otio/tracks/children/0/markers/1", message: expect.stringContaining("outside") },
      {
        path: "/otio/tracks/children/4/source_range",
        message: expect.stringContaining("lies outside its children (0 to 1 s): not applied"),
      },
    ]);
    // Before its first item, a range shows empty time: H starts half a second in.
    expect(body.tracks[3]?.clips[0]).toMatchObject({ name: "H", start: 0.5, duration: 1 });
  });
});
