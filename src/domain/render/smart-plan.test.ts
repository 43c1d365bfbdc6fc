import { describe, expect, it } from "vitest";
import { type GopIndex, interpretGopProbe, keyframeIdrs } from "../../media/gop-index.ts";
import type { Clip, Timeline } from "../composition/schema.ts";
import { inPlaceCopy, minCopyFrames, planSmartRender } from "./smart-plan.ts";
import type { ResolvedAsset } from "./types.ts";

/**
 * A 30 fps H.264 High stream of `gops` closed GOPs of `g` frames with a B-frame pair after
 * every P-frame (decode order I P B B P B B …), time base 1/15360; every keyframe an IDR; the
 * decode times a muxer gives it (two frames before the first presentation time: a B-pyramid's).
 */
function stream(gops: number, g: number, over: Record<string, unknown> = {}): GopIndex {
  const packets: { pts: number; dts?: number; flags: string }[] = [];
  for (let k = 0; k < gops; k++) {
    const base = k * g;
    packets.push({ pts: base * 512, flags: "K__" });
    for (let f = 1; f < g; f += 3) {
      const p = Math.min(base + f + 2, base + g - 1);
      packets.push({ pts: p * 512, flags: "___" });
      for (let b = base + f; b < p; b++) packets.push({ pts: b * 512, flags: "___" });
    }
  }
  packets.forEach((p, i) => {
    p.dts = (i - 2) * 512;
  });
  const index = interpretGopProbe({
    streams: [
      {
        codec_name: "h264",
        profile: "High",
        level: 31,
        pix_fmt: "yuv420p",
        width: 64,
        height: 36,
        field_order: "progressive",
        time_base: "1/15360",
        ...over,
      },
    ],
    packets,
  });
  index.idr = index.key.slice();
  return index;
}

const clip = (id: string, start: number, duration: number, trim: number, more: Partial<Clip> = {}): Clip =>
  ({ id, start, duration, trim, asset: { type: "video", uploadId: "upl_a" }, ...more }) as Clip;

function composition(clips: Clip[], extra: Clip[] = []): Timeline {
  return {
    id: "cmp",
    name: "c",
    schemaVersion: 1,
    version: 1,
    canvas: { width: 64, height: 36, fps: 30, background: "#000000" },
    tracks: [
      { id: "v", kind: "video", name: "V", clips },
      ...(extra.length ? [{ id: "t", kind: "video", name: "T", clips: extra }] : []),
    ],
  } as unknown as Timeline;
}

const assets = new Map<string, ResolvedAsset>([
  ["upl_a", { path: "/a.mp4", type: "video", name: "take.mp4" }],
]);

function plan(doc: Timeline, gop: GopIndex, minCopy = 1) {
  const frames = Math.round(
    Math.max(...doc.tracks.flatMap((t) => t.clips.map((c) => c.start + c.duration))) * 30,
  );
  return planSmartRender({
    composition: doc,
    output: { format: "mp4" },
    assets,
    gops: new Map([["upl_a", gop]]),
    range: { startFrame: 0, endFrame: frames },
    minCopyFrames: minCopy,
  });
}

describe("GOP index", () => {
  it("finds clean points only where no B-frame run crosses, and IDR pictures in an Annex B stream", () => {
    const g = stream(2, 30);
    expect(g.frames).toBe(60);
    expect(g.frameTicks).toBe(512);
    expect(g.clean[0]).toBe(true);
    expect(g.clean[1]).toBe(true); // after the I-frame
    expect(g.clean[2]).toBe(false); // the P-frame is shown after two B-frames not yet decoded
    expect(g.clean[30]).toBe(true);
    const annexB = Buffer.from([
      0, 0, 1, 0x65, 0x88, 0, 0, 1, 0x41, 0x9a, 0, 0, 1, 0x41, 0x00, 0, 0, 1, 0x06, 0x80,
    ]);
    expect(keyframeIdrs(annexB)).toEqual([true, false]);
  });
});

describe("inPlaceCopy", () => {
  const timed = stream;

  it("reads whole GOPs in place up to the next packet's decode time, or to the end of the stream", () => {
    const g = timed(3, 30);
    // Packets 30..60: the next packet (60) decodes at tick 58 × 512, 1.933333 s rounded down.
    expect(inPlaceCopy(g, 30, 60)).toEqual({ inPlace: { outpointSec: 1.933333 } });
    expect(inPlaceCopy(g, 60, 90)).toEqual({ inPlace: { outpointSec: null } });
    // A plan's copy pieces carry it.
    const p = plan(composition([clip("a", 0, 3, 0)]), g);
    expect(p.pieces.map((x) => x.copy?.inPlace)).toEqual([{ outpointSec: null }]);
  });

  it("encodes sources whose decode times an encoded piece could not continue", () => {
    const doc = composition([clip("a", 0, 3, 0)]);
    const irregular = stream(3, 30);
    irregular.reorderDelay = null;
    expect(plan(doc, irregular).reasons.map((r) => r.reason)).toEqual([
      "decode times that do not step by one frame",
    ]);
    const deep = stream(3, 30);
    deep.reorderDelay = 3;
    expect(plan(doc, deep).copiedFrames).toBe(0);
    expect(plan(doc, deep).reasons[0]?.reason).toMatch(/3 frames after they decode/);
    // The index reads the delay off the decode times, and no delay from irregular ones.
    expect(stream(1, 30).reorderDelay).toBe(2);
    const g = stream(1, 30);
    const skewed = interpretGopProbe({
      streams: [{ codec_name: "h264", time_base: "1/15360" }],
      packets: g.pts.map((pts, i) => ({
        pts,
        dts: (g.dts[i] as number) + (i === 5 ? 100 : 0),
        flags: "___",
      })),
    });
    expect(skewed.reorderDelay).toBeNull();
  });

  it("copies to a file when the demuxer could not cut the stream there", () => {
    // Another stream comes first in the file: the concat demuxer matches streams by index.
    expect(inPlaceCopy({ ...timed(2, 30), streamIndex: 1 }, 0, 30)).toEqual({});
    // No decode times.
    const untimed = stream(2, 30);
    expect(inPlaceCopy({ ...untimed, dts: untimed.dts.map(() => Number.NaN) }, 0, 30)).toEqual({});
    // Decode times that do not increase.
    const g = timed(2, 30);
    g.dts[10] = g.dts[9] as number;
    expect(inPlaceCopy(g, 0, 30)).toEqual({});
    // One packet: the next one decodes before the first is shown (the outpoint before the inpoint).
    expect(inPlaceCopy(timed(2, 30), 30, 31)).toEqual({});
    // Two packets less than a microsecond apart cannot be told apart by an outpoint.
    const fine = { ...timed(2, 30), format: { ...g.format, timeBase: { num: 1, den: 90_000_000 } } };
    fine.dts = fine.dts.map((d, i) => (i === 29 ? (fine.dts[30] as number) - 10 : d));
    expect(inPlaceCopy(fine, 0, 30)).toEqual({});
  });
});

describe("planSmartRender", () => {
  it("copies only runs long enough to pay for their processes: a shorter run and its seams are one encoded piece", () => {
    const doc = composition([clip("a", 0, 2, 10 / 30), clip("b", 2, 1, 60 / 30)]);
    // Clip a could copy 40 frames, clip b 30: with a floor of 35, only a's run is copied.
    const p = plan(doc, stream(4, 30), 35);
    expect(p.pieces.filter((x) => x.copy).map((x) => [x.startFrame, x.endFrame])).toEqual([[20, 60]]);
    expect(p.pieces.at(-1)).toEqual({ startFrame: 60, endFrame: 90 });
    expect(p.reasons.at(-1)).toEqual({
      clip: "take.mp4 at 0:02",
      from: 2,
      to: 3,
      reason: "under 35 whole-GOP frames to copy: encoding them is faster",
    });
    // With nothing worth copying the render is planned as an ordinary one.
    const none = plan(doc, stream(4, 30), 1000);
    expect(none.copiedFrames).toBe(0);
    expect(none.format).toBeNull();
    expect(none.pieces).toEqual([{ startFrame: 0, endFrame: 90 }]);
  });

  it("asks more frames of a copy the cheaper a frame is to encode (smaller output, faster preset)", () => {
    const hd = minCopyFrames(1920, 1080, "standard");
    expect(hd).toBeGreaterThanOrEqual(20);
    expect(hd).toBeLessThanOrEqual(45);
    expect(minCopyFrames(640, 360, undefined)).toBeGreaterThan(hd);
    expect(minCopyFrames(160, 90, "standard")).toBeGreaterThan(minCopyFrames(640, 360, "standard"));
    expect(minCopyFrames(1920, 1080, "high")).toBeLessThan(hd);
    expect(minCopyFrames(1920, 1080, "draft")).toBeGreaterThan(hd);
  });

  it("copies whole GOPs between cuts off keyframes and encodes the seams, naming the clip", () => {
    const doc = composition([clip("a", 0, 2, 10 / 30), clip("b", 2, 1, 60 / 30)]);
    const p = plan(doc, stream(4, 30));
    // Clip a: source frames 10..69: 10..29 encoded, 30..69 copied (70 is a clean point: no
    // B-frame pair crosses it); clip b: source 60..89, one whole GOP.
    expect(p.pieces.filter((x) => x.copy).map((x) => [x.startFrame, x.endFrame, x.copy?.packet])).toEqual([
      [20, 60, 30],
      [60, 90, 60],
    ]);
    expect(p.copiedFrames).toBe(70);
    expect(p.encodedFrames).toBe(20);
    expect(p.reasons[0]).toEqual({
      clip: "take.mp4 at 0:00",
      from: 0,
      to: 20 / 30,
      reason: "from the cut to the next keyframe",
    });
    expect(p.format).toEqual({
      profile: "high",
      level: 31,
      timescale: 15360,
      width: 64,
      height: 36,
      reorderDelay: 2,
    });
  });

  it("encodes transitions, speed changes, text over a clip and other sources, and says why", () => {
    const gop = stream(4, 30);
    const cases: [Timeline, RegExp][] = [
      [
        composition([
          clip("a", 0, 2, 0),
          clip("b", 2, 1, 1, { transition: { type: "fade", duration: 0.5 } }),
        ]),
        /transition/,
      ],
      [composition([clip("a", 0, 3, 0, { speed: 2 })]), /speed change/],
      [composition([clip("a", 0, 3, 0, { freeze: true })]), /freeze frame/],
      [composition([clip("a", 0, 3, 0, { filter: "greyscale" })]), /filter/],
      [
        composition(
          [clip("a", 0, 3, 0)],
          [
            {
              id: "t",
              start: 1,
              duration: 1,
              asset: { type: "text", text: "Hi", style: { family: "sans" } },
            } as Clip,
          ],
        ),
        /text "Hi" at 0:01 is drawn over it/,
      ],
    ];
    for (const [doc, reason] of cases) {
      expect(
        plan(doc, gop)
          .reasons.map((r) => r.reason)
          .join("; "),
      ).toMatch(reason);
    }
    expect(
      plan(composition([clip("a", 0, 3, 0)]), stream(4, 30, { codec_name: "hevc" })).reasons[0]?.reason,
    ).toMatch(/HEVC/);
    const other = plan(composition([clip("a", 0, 3, 0)]), stream(4, 30, { width: 128 }));
    expect(other.copiedFrames).toBe(0);
    expect(other.format).toBeNull();
    expect(other.reasons[0]?.reason).toBe("source is 128×36, the output 64×36");
  });

  it("copies nothing out of an MPEG-TS: its seeks by time do not land on the keyframe", () => {
    const ts = planSmartRender({
      composition: composition([clip("a", 0, 3, 0)]),
      output: { format: "mp4" },
      assets: new Map([
        [
          "upl_a",
          {
            path: "/a.ts",
            type: "video",
            name: "take.ts",
            media: { duration: 4, hasAudio: false, formatName: "mpegts" },
          },
        ],
      ]),
      gops: new Map([["upl_a", stream(4, 30)]]),
      range: { startFrame: 0, endFrame: 90 },
      minCopyFrames: 1,
    });
    expect(ts.copiedFrames).toBe(0);
    expect(ts.reasons[0]?.reason).toMatch(/MPEG-TS/);
    expect(plan(composition([clip("a", 0, 3, 0)]), stream(4, 30)).copiedFrames).toBeGreaterThan(0);
  });
});
