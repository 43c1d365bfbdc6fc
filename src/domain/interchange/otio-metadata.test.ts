import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Composition, MediaAsset } from "../composition/schema.ts";
import { compositionToOtio } from "./otio-export.ts";
import { listOtioMedia, otioToComposition, parseOtio, type ResolvedUse } from "./otio-import.ts";
import { parseOtioJson } from "./otio-json.ts";
import { METADATA_ITEM_MAX_BYTES } from "./otio-metadata.ts";

const SAMPLES = path.join(import.meta.dirname, "../../../test/fixtures/interchange/otio-samples");

// biome-ignore lint/suspicious/noExplicitAny: walks arbitrary OTIO JSON
type Json = Record<string, any>;

/** Imports a document (every medium a fake video upload) and gives the composition as stored. */
function imported(doc: unknown) {
  const parsed = parseOtio(doc);
  const ids = new Map(listOtioMedia(parsed).map((u) => [u.path, `upl_${u.name}`]));
  const { body, warnings } = otioToComposition(
    parsed,
    (p): ResolvedUse => ({ uploadId: ids.get(p) ?? "?", uploadType: "video" }),
  );
  const composition = {
    ...body,
    id: "cmp_x",
    projectId: null,
    schemaVersion: 1,
    version: 1,
    createdAt: "",
    updatedAt: "",
    tracks: body.tracks.map((t, i) => ({
      ...t,
      id: t.id ?? `trk_${i}`,
      clips: t.clips.map((c, j) => ({ ...c, id: c.id ?? `clp_${i}_${j}` })),
    })),
    markers: (body.markers ?? []).map((m, k) => ({ ...m, id: m.id ?? `mrk_${k}` })),
  } as Composition;
  return { composition, warnings };
}

/** The upload `upl_<name>` as a file of that name. */
const exportMedia = (asset: MediaAsset) => {
  const name = (asset.uploadId ?? "").replace(/^upl_/, "");
  return { name, targetUrl: `file:///${name}`, path: null, duration: null };
};
/** An exported item's metadata as another application reads it (without Cutroom's namespace). */
const theirs = (metadata: Json) => {
  const { cutroom: _ours, ...rest } = metadata;
  return rest;
};
const activeRef = (clip: Json) =>
  clip.media_reference ?? clip.media_references?.[clip.active_media_reference_key ?? "DEFAULT_MEDIA"];
const clipsOf = (track: Json) => (track.children as Json[]).filter((c) => /^Clip\./.test(c.OTIO_SCHEMA));

describe("other applications' metadata", () => {
  it("a Premiere export keeps its metadata on the timeline, tracks, clips, media and markers through import and export", () => {
    const original = parseOtioJson(readFileSync(path.join(SAMPLES, "premiere_example.otio"), "utf8")) as Json;
    const { composition, warnings } = imported(original);
    expect(warnings.filter((w) => /metadata/.test(w.message))).toEqual([]);
    expect(composition.metadata?.otio).toEqual(original.metadata);
    const back = JSON.parse(JSON.stringify(compositionToOtio(composition, exportMedia))) as Json;
    expect(theirs(back.metadata)).toEqual(original.metadata);
    (original.tracks.children as Json[]).forEach((track, j) => {
      const out = back.tracks.children[j];
      expect(theirs(out.metadata), `track ${j}`).toEqual(track.metadata);
      // Clips straight on the track (nested stacks are flattened into their inner clips).
      const exported = clipsOf(out).map((c) => [theirs(c.metadata), theirs(activeRef(c).metadata)]);
      // A generator other than a solid colour leaves its time empty (a warning): nothing to keep.
      for (const clip of clipsOf(track).filter((c) => activeRef(c)?.OTIO_SCHEMA !== "GeneratorReference.1"))
        expect(exported, `track ${j} clip ${clip.name}`).toContainEqual([
          clip.metadata,
          activeRef(clip).metadata,
        ]);
    });
    // Every marker ends on the stack (the clip's too): the stack's keep theirs, in order.
    const markers = (back.tracks.markers as Json[]).map((m) => [m.name, theirs(m.metadata)]);
    expect(markers).toEqual(
      expect.arrayContaining((original.tracks.markers as Json[]).map((m) => [m.name, m.metadata])),
    );
    // And a second pass gives the same composition.
    expect(imported(back).composition.tracks).toEqual(composition.tracks);
  });

  it("leaves out metadata larger than Cutroom keeps, with a warning naming the item", () => {
    const rt = (value: number) => ({ OTIO_SCHEMA: "RationalTime.1", rate: 24, value });
    const doc = {
      OTIO_SCHEMA: "Timeline.1",
      name: "big",
      metadata: { tool: { small: true } },
      tracks: {
        OTIO_SCHEMA: "Stack.1",
        children: [
          {
            OTIO_SCHEMA: "Track.1",
            kind: "Video",
            children: [
              {
                OTIO_SCHEMA: "Clip.2",
                name: "a",
                source_range: { OTIO_SCHEMA: "TimeRange.1", start_time: rt(0), duration: rt(24) },
                media_references: {
                  DEFAULT_MEDIA: { OTIO_SCHEMA: "ExternalReference.1", target_url: "file:///a.mov" },
                },
                metadata: { tool: { thumbnail: "x".repeat(METADATA_ITEM_MAX_BYTES) } },
              },
            ],
          },
        ],
      },
    };
    const { composition, warnings } = imported(doc);
    expect(warnings).toEqual([
      {
        path: "/otio/tracks/children/0/children/0/metadata",
        message: expect.stringMatching(
          /^metadata of \d+ bytes not carried: Cutroom keeps up to 64 KiB per item/,
        ),
      },
    ]);
    expect(composition.tracks[0]?.clips[0]?.metadata).toBeUndefined();
    expect(composition.metadata).toEqual({ otio: { tool: { small: true } } });
  });
});
