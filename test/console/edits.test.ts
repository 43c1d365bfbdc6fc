// The editor's patch builders (console/src/edits.ts) against fast-json-patch applying them:
// trimming and splitting keep every picture where it was on the timeline, and the patch
// between two states undoes an edit exactly.
import fc from "fast-check";
import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import type { Composition } from "../../clients/typescript/src/types.ts";
import {
  addMarkerOps,
  deleteMarkerOps,
  findClip,
  findMarker,
  markerEditOps,
  patchBetween,
  shareUnchanged,
  splitOps,
  trimOps,
} from "../../console/src/edits.ts";

type Clip = Composition["tracks"][number]["clips"][number];

const FRAME = 1 / 25;

function composition(clip: Clip): Composition {
  return {
    id: "cmp_1",
    projectId: null,
    name: "c",
    schemaVersion: 1,
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
    tracks: [{ id: "t", kind: "video", clips: [clip] }],
  };
}

const apply = (c: Composition, ops: unknown[]) =>
  jsonPatch.applyPatch(structuredClone(c), ops as jsonPatch.Operation[], true, false).newDocument;

/** Source seconds shown at timeline time `at` by a media clip. */
const sourceAt = (clip: Clip, at: number) => (clip.trim ?? 0) + (at - clip.start) * (clip.speed ?? 1);

const mediaClip = fc.record({
  start: fc.double({ min: 0, max: 100, noNaN: true }),
  duration: fc.double({ min: 0.2, max: 50, noNaN: true }),
  trim: fc.double({ min: 0, max: 20, noNaN: true }),
  speed: fc.constantFrom(0.5, 1, 2),
});

describe("editor patches", () => {
  it("trimming the start edge keeps the end and the picture at every remaining time", () => {
    fc.assert(
      fc.property(mediaClip, fc.double({ min: -30, max: 30, noNaN: true }), (c, delta) => {
        const clip: Clip = { id: "a", ...c, asset: { type: "video", uploadId: "upl_1" } };
        const comp = composition(clip);
        const ref = findClip(comp, "a");
        if (!ref) throw new Error("no clip");
        const next = apply(comp, trimOps(ref, clip, "start", delta, FRAME)).tracks[0]?.clips[0] as Clip;
        expect(next.start + next.duration).toBeCloseTo(clip.start + clip.duration, 5);
        expect(next.duration).toBeGreaterThanOrEqual(FRAME - 1e-6);
        expect(next.start).toBeGreaterThanOrEqual(0);
        expect(next.trim ?? 0).toBeGreaterThanOrEqual(-1e-6);
        const mid = next.start + next.duration / 2;
        expect(sourceAt(next, mid)).toBeCloseTo(sourceAt(clip, mid), 4);
      }),
      { seed: 20261125, numRuns: 300 },
    );
  });

  it("splitting makes two clips that cover the original and show the same pictures; the inverse patch undoes it", () => {
    fc.assert(
      fc.property(mediaClip, fc.double({ min: 0.01, max: 0.99, noNaN: true }), (c, where) => {
        const clip: Clip = { id: "a", ...c, asset: { type: "video", uploadId: "upl_1" } };
        const comp = composition(clip);
        const at = clip.start + clip.duration * where;
        const ref = findClip(comp, "a");
        if (!ref) throw new Error("no clip");
        const ops = splitOps(ref, clip, at);
        if (!ops) return; // the cut rounded onto an edge
        const after = apply(comp, ops);
        const [first, second] = (after.tracks[0] as Composition["tracks"][number]).clips as [Clip, Clip];
        expect(first.start + first.duration).toBeCloseTo(second.start, 5);
        expect(second.start + second.duration).toBeCloseTo(clip.start + clip.duration, 5);
        expect(sourceAt(second, second.start)).toBeCloseTo(sourceAt(clip, second.start), 4);
        const undone = apply({ ...after, version: 2 }, patchBetween({ ...after, version: 2 }, comp));
        expect(undone.tracks).toEqual(comp.tracks);
      }),
      { seed: 20261125, numRuns: 300 },
    );
  });

  it("adds, moves, renames and deletes markers; the patch between two states undoes each", () => {
    const clip: Clip = { id: "a", start: 0, duration: 4, asset: { type: "color", color: "#000000" } };
    const bare = composition(clip);
    // The first marker starts the list; the next is appended.
    const one = apply(bare, addMarkerOps(bare, { time: 1.5, label: "Intro" }));
    expect(one.markers).toEqual([{ time: 1.5, label: "Intro" }]);
    const withIds: Composition = { ...one, version: 2, markers: [{ id: "m1", time: 1.5, label: "Intro" }] };
    const two = apply(withIds, addMarkerOps(withIds, { time: -3, label: "Start" }));
    expect(two.markers?.[1]).toEqual({ time: 0, label: "Start" });
    // Move and rename: only what changed is in the patch.
    const found = findMarker(withIds, "m1");
    if (!found) throw new Error("no marker");
    const ops = markerEditOps(found.index, found.value, { ...found.value, time: 2.25, label: "Verse" });
    expect(ops.map((o) => o.path).sort()).toEqual(["/markers/0/label", "/markers/0/time"]);
    const moved = { ...apply(withIds, ops), version: 3 };
    expect(moved.markers).toEqual([{ id: "m1", time: 2.25, label: "Verse" }]);
    expect(apply(moved, patchBetween(moved, withIds)).markers).toEqual(withIds.markers);
    // Delete, and undo the very first add: no markers list at all again.
    expect(apply(moved, deleteMarkerOps(0)).markers).toEqual([]);
    const undone = apply(withIds, patchBetween(withIds, bare));
    expect(undone).not.toHaveProperty("markers");
  });

  it("shares the clips, tracks and markers an edit left alone with the composition shown before", () => {
    const clip = (id: string, start: number): Clip => ({
      id,
      start,
      duration: 2,
      asset: { type: "color", color: "#102030" },
    });
    const shown: Composition = {
      ...composition(clip("a", 0)),
      tracks: [
        { id: "t1", kind: "video", clips: [clip("a", 0), clip("b", 2)] },
        { id: "t2", kind: "video", clips: [clip("c", 0)] },
      ],
      markers: [{ id: "m1", time: 1, label: "Intro" }],
    };
    // The server's answer to moving clip b: every object new, one value changed.
    const answered = structuredClone({ ...shown, version: 2 });
    (answered.tracks[0]?.clips[1] as Clip).start = 3;
    const next = shareUnchanged(shown, answered);
    expect(next).toEqual(answered);
    expect(next.tracks[0]?.clips[0]).toBe(shown.tracks[0]?.clips[0]);
    expect(next.tracks[0]?.clips[1]).not.toBe(shown.tracks[0]?.clips[1]);
    expect(next.tracks[0]).not.toBe(shown.tracks[0]);
    expect(next.tracks[1]).toBe(shown.tracks[1]);
    expect(next.markers).toBe(shown.markers);
    // Nothing changed but the version: the same tracks list; no markers stays no markers.
    expect(shareUnchanged(next, structuredClone({ ...next, version: 3 })).tracks).toBe(next.tracks);
    const { markers: _gone, ...bare } = answered;
    expect(shareUnchanged(next, bare)).not.toHaveProperty("markers");
    expect(shareUnchanged(null, answered)).toBe(answered);
  });
});
