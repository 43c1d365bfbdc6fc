import { describe, expect, it } from "vitest";
import { removeSourceRanges, splitAtSourceTimes } from "./recut.ts";
import type { Clip, Marker, Track } from "./schema.ts";
import { validateComposition } from "./validate.ts";

const video = (uploadId = "upl_v") => ({ type: "video" as const, uploadId });

function track(clips: Omit<Clip, "asset">[]): Track {
  return { id: "trk_main", kind: "video", clips: clips.map((c) => ({ ...c, asset: video() }) as Clip) };
}

/** The track still validates as a composition (no overlaps, transitions that fit). */
async function expectValid(t: Track, markers: Marker[] = []): Promise<void> {
  await expect(
    validateComposition(
      {
        name: "recut",
        canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
        tracks: [t],
        markers,
      },
      {
        lookupUpload: async (ids) =>
          new Map(ids.map((id) => [id, { type: "video", media: { duration: 60, hasAudio: true } }])),
        lookupTranscription: async () => new Map(),
      },
    ),
  ).resolves.toBeUndefined();
}

const timing = (t: Track) =>
  t.clips.map((c) => ({
    start: c.start,
    duration: c.duration,
    trim: c.trim,
    transition: c.transition?.duration,
  }));

describe("splitAtSourceTimes", () => {
  it("cuts a trimmed, sped-up clip at source times into consecutive clips playing the same source", async () => {
    // Source 2..12 s at speed 2 from timeline 10 s.
    const t = track([
      {
        id: "clp_a",
        start: 10,
        duration: 5,
        trim: 2,
        speed: 2,
        transition: { type: "fade", duration: 0.5 },
        fadeIn: 0.25,
        fadeOut: 0.5,
        volume: 0.5,
      },
    ]);
    t.clips.unshift({ id: "clp_before", start: 0, duration: 10, asset: video() } as Clip);
    // 1 is before the trim, 4.05 leaves a piece under 0.1 s of timeline, 12 is the clip's end.
    const pieces = splitAtSourceTimes(t, "clp_a", [8, 1, 4, 4.05, 12], 0.1);
    expect(pieces.map((p) => ({ start: p.start, duration: p.duration, trim: p.trim }))).toEqual([
      { start: 10, duration: 1, trim: 2 },
      { start: 11, duration: 2, trim: 4 },
      { start: 13, duration: 2, trim: 8 },
    ]);
    // The first keeps the id, incoming transition and fade-in; the last the fade-out; all the rest.
    expect(pieces[0]).toMatchObject({
      id: "clp_a",
      transition: { type: "fade", duration: 0.5 },
      fadeIn: 0.25,
    });
    expect(pieces[0]?.fadeOut).toBeUndefined();
    expect(pieces[1]?.transition).toBeUndefined();
    expect(pieces[2]).toMatchObject({ fadeOut: 0.5, speed: 2, volume: 0.5 });
    expect(pieces[2]?.fadeIn).toBeUndefined();
    expect(new Set(pieces.map((p) => p.id)).size).toBe(3);
    expect(t.clips.map((c) => c.id)).toEqual(["clp_before", ...pieces.map((p) => p.id)]);
    await expectValid(t);
  });

  it("leaves a clip alone when no cut falls inside it", () => {
    const t = track([{ id: "clp_a", start: 0, duration: 4, trim: 3 }]);
    expect(splitAtSourceTimes(t, "clp_a", [1, 7, 9], 0.1).map((p) => p.id)).toEqual(["clp_a"]);
    expect(timing(t)).toEqual([{ start: 0, duration: 4, trim: 3, transition: undefined }]);
  });

  it("never splits a frozen clip: it holds one frame", () => {
    const t = track([{ id: "clp_a", start: 0, duration: 4, trim: 3, freeze: true }]);
    expect(splitAtSourceTimes(t, "clp_a", [4, 5], 0.1).map((p) => p.id)).toEqual(["clp_a"]);
    expect(t.clips).toHaveLength(1);
  });
});

describe("removeSourceRanges", () => {
  it("cuts silences out of a trimmed, sped-up clip and ripples the clips after it", async () => {
    // A plays source 1..9 at speed 2 (timeline 0..4); B touches it with a fade; C after a 2 s gap.
    const t = track([
      { id: "clp_a", start: 0, duration: 4, trim: 1, speed: 2, fadeIn: 0.5, fadeOut: 0.5 },
      { id: "clp_b", start: 4, duration: 2, transition: { type: "fade", duration: 0.5 } },
      { id: "clp_c", start: 8, duration: 1 },
    ]);
    const markers: Marker[] = [
      { id: "mrk_1", time: 1.5, label: "inside a removed stretch" },
      { id: "mrk_2", time: 3, label: "in a kept part of A" },
      { id: "mrk_3", time: 5, label: "in B" },
      { id: "mrk_4", time: 0.5, duration: 3, label: "a chapter across A" },
    ];
    // Source silences: 0..1.5 (starts before the trim), 3..5, 8.9..10 (ends after the clip).
    const done = removeSourceRanges(
      t,
      markers,
      new Map([
        [
          "clp_a",
          [
            { start: 3, end: 5 },
            { start: 0, end: 1.5 },
            { start: 8.9, end: 10 },
          ],
        ],
      ]),
      0.1,
    );
    // Kept source 1.5..3 (0.75 s) and 5..8.9 (1.95 s): 1.3 s of timeline removed in 3 stretches.
    expect(done).toMatchObject({ removedSeconds: 1.3, cuts: 3 });
    expect(timing(t)).toEqual([
      { start: 0, duration: 0.75, trim: 1.5, transition: undefined },
      { start: 0.75, duration: 1.95, trim: 5, transition: undefined },
      { start: 2.7, duration: 2, trim: undefined, transition: 0.5 },
      { start: 6.7, duration: 1, trim: undefined, transition: undefined },
    ]);
    expect(t.clips[0]).toMatchObject({ id: "clp_a", fadeIn: 0.5, speed: 2 });
    expect(t.clips[1]).toMatchObject({ fadeOut: 0.5, speed: 2 });
    expect(done.pieces.get("clp_a")).toEqual([t.clips[0]?.id, t.clips[1]?.id]);
    // Markers move with the track; one inside a removed stretch goes to the cut.
    expect(markers.map((m) => [m.time, m.duration])).toEqual([
      [0.75, undefined],
      [1.75, undefined],
      [3.7, undefined],
      [0.25, 2],
    ]);
    await expectValid(t, markers);
  });

  it("cuts slivers shorter than the minimum, removes a wholly silent clip and fits transitions", async () => {
    const t = track([
      { id: "clp_a", start: 0, duration: 3 },
      { id: "clp_b", start: 3, duration: 2, transition: { type: "fade", duration: 1 } },
      { id: "clp_c", start: 5, duration: 2, trim: 10, transition: { type: "wipeleft", duration: 0.5 } },
      { id: "clp_d", start: 7, duration: 2, transition: { type: "fade", duration: 1 } },
    ]);
    const done = removeSourceRanges(
      t,
      undefined,
      new Map([
        // A keeps 0..0.5 and a 0.05 s sliver at 1.0..1.05 (cut too): 0.5 s left, shorter than B's fade.
        [
          "clp_a",
          [
            { start: 0.5, end: 1 },
            { start: 1.05, end: 3 },
          ],
        ],
        // C is silent throughout: removed; D then follows B directly.
        ["clp_c", [{ start: 9, end: 13 }]],
      ]),
      0.1,
    );
    expect(done.removedSeconds).toBe(4.5);
    expect(done.pieces.get("clp_c")).toEqual([]);
    expect(timing(t)).toEqual([
      { start: 0, duration: 0.5, trim: undefined, transition: undefined },
      { start: 0.5, duration: 2, trim: undefined, transition: 0.5 },
      { start: 2.5, duration: 2, trim: undefined, transition: 1 },
    ]);
    await expectValid(t);
  });
});
