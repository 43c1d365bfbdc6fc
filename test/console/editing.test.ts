// The editor's arithmetic-free editing (console/src/timecode.ts, snap.ts, ripple.ts) over the
// frame rates real footage has and odd clip lengths: timecode round trips on the exact frame
// grid, snapped drags land exactly on an edge or on a frame, and the magnetic edits leave clips
// touching exactly with their lengths kept.
import fc from "fast-check";
import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import type { Composition } from "../../clients/typescript/src/types.ts";
import { readNumberText, readTimeText, refusedFields } from "../../console/src/field-values.ts";
import {
  closeGapOps,
  closeTrackGapsOps,
  insertOps,
  rippleDeleteOps,
  trackGaps,
  transitionDropOps,
} from "../../console/src/ripple.ts";
import { snapMove, snapPoints, snapTime } from "../../console/src/snap.ts";
import {
  formatTimecode,
  frameSeconds,
  frameStart,
  parseTime,
  toFrameGrid,
} from "../../console/src/timecode.ts";

type Clip = Composition["tracks"][number]["clips"][number];
const RATES = [20, 23.976, 25, 29.97, 59.94] as const;
const RUNS = { seed: 34, numRuns: 150 };

const exactFps = (fps: number) =>
  Math.abs(fps - Math.round(fps)) < 1e-6 ? fps : (Math.round(fps) * 1000) / 1001;
/** Whether `t` is a frame start at `fps` (to the microsecond the editor stores). */
const onGrid = (t: number, fps: number) => Math.abs(t * exactFps(fps) - Math.round(t * exactFps(fps))) < 1e-4;

/** A track of clips with odd lengths (4.171 s and the like) and gaps from none to a few seconds. */
const trackArb = fc
  .array(
    fc.record({
      gap: fc.oneof(
        fc.constant(0),
        fc.constantFrom(0.08, 0.001, 0.49),
        fc.double({ min: 0, max: 3, noNaN: true }),
      ),
      duration: fc.oneof(
        fc.constantFrom(4.171, 11.011, 2.002, 0.7),
        fc.double({ min: 0.3, max: 9, noNaN: true }),
      ),
    }),
    { minLength: 1, maxLength: 7 },
  )
  .map((parts) => {
    let t = 0;
    return parts.map((p, i): Clip => {
      const clip: Clip = {
        id: `c${i}`,
        start: t + p.gap,
        duration: p.duration,
        asset: { type: "video", uploadId: "upl_1" },
      };
      t = clip.start + clip.duration;
      return clip;
    });
  });

function composition(clips: Clip[], fps = 25, others: Clip[] = []): Composition {
  return {
    id: "cmp_1",
    projectId: null,
    name: "c",
    schemaVersion: 1,
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    canvas: { width: 320, height: 180, fps: fps as Composition["canvas"]["fps"], background: "#000000" },
    tracks: [
      { id: "v", kind: "video", clips },
      { id: "o", kind: "video", clips: others },
    ],
  };
}

/** Applies a patch the way the server does (then sorts each track by start, as it stores them). */
function apply(c: Composition, ops: unknown[]): Composition {
  const next = jsonPatch.applyPatch(
    structuredClone(c),
    ops as jsonPatch.Operation[],
    true,
    false,
  ).newDocument;
  for (const t of next.tracks) t.clips.sort((a, b) => a.start - b.start);
  return next;
}

/** No clip of a track starts before the one before it ends (the server's overlap rule). */
function expectNoOverlap(c: Composition) {
  for (const t of c.tracks)
    for (let i = 1; i < t.clips.length; i++) {
      const a = t.clips[i - 1] as Clip;
      expect((t.clips[i] as Clip).start).toBeGreaterThanOrEqual(a.start + a.duration - 1e-9);
    }
}

describe("timecode", () => {
  it("reads back every frame it writes, as timecode and as frames, on the exact frame grid", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RATES), fc.integer({ min: 0, max: 400_000 }), (fps, n) => {
        const t = frameStart(n, fps);
        const tc = formatTimecode(t, fps);
        expect(tc).toMatch(/^(\d+:)?\d+:\d\d\.\d\d$/);
        expect(parseTime(tc, fps)).toEqual({ ok: true, seconds: t });
        expect(parseTime(`${n}f`, fps)).toEqual({ ok: true, seconds: t });
        expect(parseTime(String(t), fps)).toEqual({ ok: true, seconds: t });
      }),
      RUNS,
    );
  });

  it("rounds typed seconds of any precision to the nearest frame", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RATES), fc.double({ min: 0, max: 5000, noNaN: true }), (fps, s) => {
        const read = parseTime(s.toFixed(6), fps);
        if (!read.ok) throw new Error(read.error);
        expect(onGrid(read.seconds, fps)).toBe(true);
        expect(Math.abs(read.seconds - s)).toBeLessThanOrEqual(frameSeconds(fps) / 2 + 1e-6);
      }),
      RUNS,
    );
  });

  it("writes the frames within the second, and says why a frame or a time cannot be read", () => {
    expect(formatTimecode(4.171, 23.976)).toBe("0:04.04");
    expect(formatTimecode(5.964583, 23.976)).toBe("0:05.23");
    expect(formatTimecode(3725.48, 25)).toBe("1:02:05.12");
    expect(parseTime("0:04.04", 23.976)).toEqual({ ok: true, seconds: frameStart(100, 23.976) });
    expect(parseTime("1:00.00", 20)).toEqual({ ok: true, seconds: 60 });
    const frame = parseTime("0:04.24", 23.976);
    expect(frame.ok).toBe(false);
    if (!frame.ok) expect(frame.error).toMatch(/frames 00 to 23/);
    for (const bad of ["", "-1", "abc", "1:75.00", "4,5"]) expect(parseTime(bad, 25).ok).toBe(false);
  });
});

describe("snapping", () => {
  it("a dragged clip lands exactly on a neighbour's edge within the threshold, else on a frame", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RATES),
        trackArb,
        fc.double({ min: 0, max: 40, noNaN: true }),
        fc.double({ min: 0.3, max: 6, noNaN: true }),
        fc.boolean(),
        (fps, clips, start, duration, free) => {
          const c = composition(clips, fps);
          const points = snapPoints(c, 2.5, null);
          const threshold = 0.2;
          const s = snapMove(start, duration, points, threshold, fps, free);
          expect(s.time).toBeGreaterThanOrEqual(0);
          if (s.point) {
            expect(free).toBe(false);
            const touches =
              Math.abs(s.time - s.point.time) < 1e-12 || Math.abs(s.time + duration - s.point.time) < 1e-9;
            expect(touches).toBe(true);
            expect(
              Math.min(Math.abs(start - s.point.time), Math.abs(start + duration - s.point.time)),
            ).toBeLessThanOrEqual(threshold + 1e-9);
          } else {
            expect(s.time).toBe(toFrameGrid(start, fps));
            if (!free)
              for (const p of points)
                expect(
                  Math.min(Math.abs(start - p.time), Math.abs(start + duration - p.time)),
                ).toBeGreaterThan(threshold);
          }
        },
      ),
      RUNS,
    );
  });

  it("snaps an edge or the playhead to clip edges of every track, the playhead and markers", () => {
    const c = composition(
      [{ id: "a", start: 0, duration: 4.171, asset: { type: "video", uploadId: "u" } }],
      20,
      [{ id: "b", start: 6.3, duration: 1, asset: { type: "video", uploadId: "u" } }],
    );
    c.markers = [{ id: "m", time: 9, label: "m" }];
    const points = snapPoints(c, 2, null);
    expect(snapTime(4.2, points, 0.1, 20)).toEqual({ time: 4.171, point: { time: 4.171, kind: "clip" } });
    expect(snapTime(6.25, points, 0.1, 20).time).toBe(6.3);
    expect(snapTime(7.33, points, 0.1, 20).point?.time).toBe(7.3);
    expect(snapTime(8.95, points, 0.1, 20).point?.kind).toBe("marker");
    expect(snapTime(2.04, points, 0.1, 20).point?.kind).toBe("playhead");
    expect(snapTime(4.2, points, 0.1, 20, true)).toEqual({ time: 4.2, point: null });
    expect(snapTime(5.52, points, 0.1, 20)).toEqual({ time: 5.5, point: null });
    expect(snapPoints(c, null, "a").map((p) => p.time)).toEqual([6.3, 7.3, 9]);
    expect(snapPoints(c, null, "m").map((p) => p.time)).toEqual([0, 4.171, 6.3, 7.3]);
  });
});

describe("magnetic edits", () => {
  it("close gap and close all gaps leave the clips touching exactly, lengths kept", () => {
    fc.assert(
      fc.property(trackArb, fc.nat(), (clips, pick) => {
        const c = composition(clips);
        const gaps = trackGaps(c.tracks[0] as Composition["tracks"][number]);
        const all = apply(c, closeTrackGapsOps(c, 0));
        const after = all.tracks[0]?.clips ?? [];
        expect(trackGaps(all.tracks[0] as Composition["tracks"][number])).toEqual([]);
        expect(after.map((x) => x.duration)).toEqual(clips.map((x) => x.duration));
        expect(after[0]?.start).toBe(clips[0]?.start);
        for (let i = 1; i < after.length; i++) {
          const a = after[i - 1] as Clip;
          expect(Math.abs((after[i] as Clip).start - (a.start + a.duration))).toBeLessThanOrEqual(1e-9);
        }
        const gap = gaps[pick % Math.max(1, gaps.length)];
        if (!gap) return;
        const one = apply(c, closeGapOps(c, 0, gap.clip));
        const clip = one.tracks[0]?.clips[gap.clip] as Clip;
        expect(clip.start).toBe(gap.start);
        expect(trackGaps(one.tracks[0] as Composition["tracks"][number])).toHaveLength(gaps.length - 1);
        expectNoOverlap(one);
      }),
      RUNS,
    );
  });

  it("ripple delete moves the later clips earlier by the deleted clip's length", () => {
    fc.assert(
      fc.property(trackArb, fc.nat(), (clips, pick) => {
        const i = pick % clips.length;
        const c = composition(clips);
        const after = apply(c, rippleDeleteOps(c, 0, i)).tracks[0]?.clips ?? [];
        const gone = clips[i] as Clip;
        expect(after.map((x) => x.id)).toEqual(clips.filter((x) => x.id !== gone.id).map((x) => x.id));
        for (const x of after) {
          const was = clips.find((y) => y.id === x.id) as Clip;
          expect(x.start).toBeCloseTo(was.start < gone.start ? was.start : was.start - gone.duration, 9);
        }
        expectNoOverlap(composition(after));
      }),
      RUNS,
    );
  });

  it("insert at the playhead never overlaps and leaves no sliver of a gap before the new clip", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RATES),
        trackArb,
        fc.double({ min: 0, max: 40, noNaN: true }),
        fc.constantFrom(4.171, 2.5, 11.011),
        (fps, clips, at, duration) => {
          const c = composition(clips, fps);
          const tolerance = 0.25;
          const { ops, start } = insertOps(
            c,
            0,
            { start: 0, duration, asset: { type: "video", uploadId: "upl_2" } },
            toFrameGrid(at, fps),
            tolerance,
          );
          const next = apply(c, ops);
          expectNoOverlap(next);
          const track = next.tracks[0]?.clips ?? [];
          const added = track.find((x) => !("id" in x) || x.id === undefined) as Clip;
          expect(added.start).toBe(start);
          const before = track.filter((x) => x !== added && x.start < start);
          const end = Math.max(0, ...before.map((x) => x.start + x.duration));
          const gap = start - end;
          expect(gap < 1e-9 || gap > tolerance).toBe(true);
          // The clips after it keep their order and the gaps between them.
          const later = track.filter((x) => x !== added && x.start >= start);
          const was = clips.filter((x) => later.some((y) => y.id === x.id));
          for (let k = 1; k < later.length; k++)
            expect((later[k] as Clip).start - (later[k - 1] as Clip).start).toBeCloseTo(
              (was[k] as Clip).start - (was[k - 1] as Clip).start,
              9,
            );
        },
      ),
      RUNS,
    );
  });

  it("a transition dropped near a cut makes the two clips touch and lasts whole frames that fit both", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RATES), trackArb, fc.nat(), (fps, clips, pick) => {
        fc.pre(clips.length >= 2);
        const i = 1 + (pick % (clips.length - 1));
        const c = composition(clips, fps);
        const cut = (clips[i] as Clip).start;
        const drop = transitionDropOps(c, 0, cut, "dissolve", 0.5);
        const gap = cut - ((clips[i - 1] as Clip).start + (clips[i - 1] as Clip).duration);
        if (gap > 0.5) {
          expect(drop.ok).toBe(false);
          return;
        }
        if (!drop.ok) throw new Error(drop.error);
        const next = apply(c, drop.ops);
        const track = next.tracks[0]?.clips ?? [];
        const into = track.find((x) => x.id === drop.clipId) as Clip;
        const prev = track[track.indexOf(into) - 1] as Clip;
        expect(Math.abs(into.start - (prev.start + prev.duration))).toBeLessThanOrEqual(1e-9);
        expect(into.transition).toEqual({ type: "dissolve", duration: drop.duration });
        expect(drop.duration).toBeLessThanOrEqual(
          Math.min(0.5 + frameSeconds(fps) / 2, into.duration, prev.duration),
        );
        expect(onGrid(drop.duration, fps) || drop.duration === Math.min(into.duration, prev.duration)).toBe(
          true,
        );
        expect(drop.duration).toBeGreaterThan(0);
        expectNoOverlap(next);
      }),
      RUNS,
    );
  });
});

describe("form fields", () => {
  it("take back any value the editor wrote, untouched, and say why a typed one cannot be applied", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RATES), fc.double({ min: 0, max: 3600, noNaN: true }), (fps, t) => {
        const shown = formatTimecode(t, fps);
        expect(readTimeText(shown, fps, { min: 0 }, t)).toEqual({ ok: true, value: t });
        expect(readNumberText(String(t), { min: 0 }, t)).toEqual({ ok: true, value: t });
      }),
      RUNS,
    );
    expect(readNumberText("0,5", { min: 0, max: 1 })).toEqual({ ok: true, value: 0.5 });
    expect(readNumberText("5.991992", {})).toEqual({ ok: true, value: 5.991992 });
    expect(readNumberText("2", { max: 1 })).toEqual({ ok: false, error: "Must be at most 1." });
    expect(readNumberText("1.2.3", {}).ok).toBe(false);
    expect(readNumberText("", {})).toEqual({ ok: true, value: undefined });
    expect(readNumberText("", { required: true }).ok).toBe(false);
    expect(readTimeText("1f", 23.976, { min: frameSeconds(23.976) })).toEqual({ ok: true, value: 0.041708 });
    const short = readTimeText("0", 25, { min: 0.04, required: true });
    expect(short).toEqual({ ok: false, error: "Must be at least 0:00.01 (0.04 s)." });
    expect(readTimeText("", 25, { required: true }).ok).toBe(false);
  });

  it("find the clip fields a refused write names, with the server's sentence", () => {
    const body = {
      error: {
        message: "Composition is invalid: …",
        details: [
          {
            path: "/tracks/0/clips/2/transition/duration",
            message: "must not exceed the 0.49 s gap before the clip",
          },
          { path: "/tracks/0/clips/1/start", message: "overlaps" },
          { path: "/tracks/0/clips/2/start", message: "overlaps cam.mp4 at 0:04." },
        ],
      },
    };
    expect([...refusedFields(body, 0, 2)]).toEqual([
      ["transition.duration", "Must not exceed the 0.49 s gap before the clip."],
      ["start", "Overlaps cam.mp4 at 0:04."],
    ]);
    expect(refusedFields(body, 1, 2).size).toBe(0);
    expect(refusedFields("oops", 0, 2).size).toBe(0);
  });
});
