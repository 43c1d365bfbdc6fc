import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { matrixSeed, randomComposition } from "../../../test/fixtures/render/arbitraries.ts";
import { type MatrixMedia, matrixMedia } from "../../../test/fixtures/render/matrix-media.ts";
import { type Composition, isMediaAsset, type MediaAsset, type Timeline } from "../composition/schema.ts";
import { baseName, type ResolvedMedia } from "./common.ts";
import { parseEdl } from "./edl.ts";
import { compositionToEdl, edlToComposition } from "./edl-convert.ts";
import { compositionToOtio } from "./otio-export.ts";
import { listOtioMedia, otioToComposition, parseOtio, type ResolvedUse } from "./otio-import.ts";

/** Compositions the render matrix's generator draws per run (seeded: the same every run). */
const RUNS = 40;

let media: MatrixMedia;
beforeAll(async () => {
  media = await matrixMedia();
}, 300_000);

/** A drawn timeline as the store keeps it: ids on tracks, clips and markers, clips by start. */
function stored(timeline: Timeline): Composition {
  return {
    id: "cmp_roundtrip",
    projectId: null,
    name: "Round trip",
    schemaVersion: 1,
    version: 1,
    createdAt: "",
    updatedAt: "",
    ...timeline,
    tracks: timeline.tracks.map((t, i) => ({
      ...t,
      id: t.id ?? `trk_${i}`,
      clips: [...t.clips]
        .sort((a, b) => a.start - b.start)
        .map((c, j) => ({ ...c, id: c.id ?? `clp_${i}_${j}` })),
    })),
    ...(timeline.markers
      ? { markers: timeline.markers.map((m, k) => ({ ...m, id: m.id ?? `mrk_${k}` })) }
      : {}),
  } as Composition;
}

const exportMedia = (asset: MediaAsset): ResolvedMedia =>
  asset.uploadId
    ? {
        name: `${asset.uploadId}.bin`,
        targetUrl: `file:///media/${asset.uploadId}`,
        path: null,
        duration: null,
        uploadId: asset.uploadId,
      }
    : { name: baseName(asset.src ?? ""), targetUrl: asset.src ?? "", path: null, duration: null };

/** Exports as OTIO JSON text and imports it back, resolving media by the ids the export recorded. */
function throughOtio(composition: Composition) {
  const text = JSON.stringify(compositionToOtio(composition, exportMedia));
  const parsed = parseOtio(JSON.parse(text));
  const kinds = new Map(media.sources.map((s) => [s.id, s.kind]));
  const uses = new Map(listOtioMedia(parsed).map((u) => [u.path, u]));
  const resolve = (path: string): ResolvedUse => {
    const use = uses.get(path);
    if (use?.uploadIdHint)
      return { uploadId: use.uploadIdHint, uploadType: kinds.get(use.uploadIdHint) ?? "video" };
    return { src: use?.targetUrl ?? "" };
  };
  return otioToComposition(parsed, resolve).body;
}

/** JSON as it is stored (no undefined fields), defaults written or not alike (`trim` 0, `speed` 1). */
const plain = (value: unknown) =>
  JSON.parse(JSON.stringify(value), (key, v) =>
    (key === "trim" && v === 0) || (key === "speed" && v === 1) ? undefined : v,
  );

describe("interchange round trips over the render matrix's generator", () => {
  it(`${RUNS} drawn compositions → OTIO → import give the same timeline`, () => {
    fc.assert(
      fc.property(randomComposition(media.sources), (timeline) => {
        const composition = stored(timeline);
        const back = throughOtio(composition);
        expect(plain(back.canvas)).toEqual(plain(composition.canvas));
        expect(plain(back.tracks)).toEqual(plain(composition.tracks));
        expect(plain(back.markers ?? [])).toEqual(plain(composition.markers ?? []));
      }),
      { seed: matrixSeed(), numRuns: RUNS },
    );
  });

  it(`${RUNS} drawn compositions, one video track each → EDL → import give the same cut list`, () => {
    let carried = 0;
    fc.assert(
      fc.property(randomComposition(media.sources), (timeline) => {
        const full = stored(timeline);
        const track = full.tracks.find((t) => t.kind === "video");
        // An EDL carries media clips: the cut list is the first video track's.
        // A source cannot start before its first frame in an EDL: a clip with a transition gets
        // the handle it needs (Cutroom would hold the edge frame instead).
        const clips = (track?.clips ?? [])
          .filter((c) => isMediaAsset(c.asset) && c.asset.uploadId)
          .map((c) =>
            c.transition ? { ...c, trim: Math.max(c.trim ?? 0, c.transition.duration * (c.speed ?? 1)) } : c,
          );
        const composition = {
          ...full,
          tracks: [{ ...(track ?? full.tracks[0]), kind: "video", clips }],
        } as Composition;
        if (clips.length === 0) return; // nothing an EDL holds
        carried += 1;
        const fps = composition.canvas.fps;
        const edl = parseEdl(compositionToEdl(composition, exportMedia, 0), fps);
        const kinds = new Map(media.sources.map((s) => [s.id, s.kind]));
        const names = new Map(edl.events.map((e) => [`event ${e.number}`, e.clipName.replace(/\.bin$/, "")]));
        const back =
          edlToComposition(
            edl,
            fps,
            (path) => {
              const id = names.get(path) ?? "";
              return { uploadId: id, uploadType: kinds.get(id) ?? "video" };
            },
            {},
          ).body.tracks[0]?.clips ?? [];
        const frame = 1 / fps + 1e-6;
        expect(back).toHaveLength(clips.length);
        clips.forEach((c, i) => {
          const b = back[i];
          const touching =
            i > 0 && Math.abs((clips[i - 1]?.start ?? 0) + (clips[i - 1]?.duration ?? 0) - c.start) < 1e-6;
          const where = `clip ${i} of ${JSON.stringify(clips)}`;
          const asset = c.asset as MediaAsset;
          expect(b?.asset, where).toEqual({
            type: kinds.get(asset.uploadId ?? "") === "image" ? "image" : "video",
            uploadId: asset.uploadId,
          });
          expect(Math.abs((b?.start ?? 0) - c.start), where).toBeLessThanOrEqual(frame);
          expect(Math.abs((b?.duration ?? 0) - c.duration), where).toBeLessThanOrEqual(2 * frame);
          expect(Math.abs((b?.trim ?? 0) - (c.trim ?? 0)), where).toBeLessThanOrEqual(2 * frame);
          expect(b?.speed ?? 1, where).toBeCloseTo(c.speed ?? 1, 1);
          const transition = c.transition && touching ? c.transition : undefined;
          expect(b?.transition?.duration ?? 0, where).toBeCloseTo(transition?.duration ?? 0, 1);
          if (transition)
            expect(b?.transition?.type).toBe(
              transition.type.startsWith("wipe") ? transition.type : "dissolve",
            );
          if (!transition && c.fadeIn) expect(b?.fadeIn ?? 0, where).toBeCloseTo(c.fadeIn, 1);
          // A fade-out is a dissolve to black unless the next clip's transition overlaps it.
          const next = clips[i + 1];
          const nextTransition =
            next?.transition &&
            Math.abs(c.start + c.duration - next.start) < 1e-6 &&
            Math.round(next.transition.duration * fps) >= 2;
          const fadeFrames = Math.round((c.fadeOut ?? 0) * fps);
          const carriedFade = fadeFrames > 0 && !nextTransition && fadeFrames < Math.round(c.duration * fps);
          expect(b?.fadeOut ?? 0, where).toBeCloseTo(carriedFade ? fadeFrames / fps : 0, 1);
        });
      }),
      { seed: matrixSeed(), numRuns: RUNS },
    );
    expect(carried).toBeGreaterThan(RUNS / 4);
  });
});
