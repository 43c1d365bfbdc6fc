import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canvas,
  clip,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import type { Timeline } from "../composition/schema.ts";
import { encoderArgs, partEdgeZones, SEAM_CRF, SEAM_PRESET } from "./outputs.ts";
import {
  buildJoinPlan,
  buildSplitRenderPlan,
  CONCAT_LIST,
  planSegments,
  segmentClipIds,
  withFaststart,
} from "./segments.ts";
import { toFrameRate } from "./timeline.ts";
import { RenderError } from "./types.ts";

const assets = new Map([
  ["upl_a", resolvedVideo("/media/a.mp4", 60)],
  ["upl_b", resolvedVideo("/media/b.mp4", 60)],
]);

/** Two 5 s clips joined by a 1 s fade at 5 s, at `fps`. */
function twoClips(fps: number): Timeline {
  return {
    canvas: canvas(320, 180, fps),
    tracks: [
      track("video", [
        clip({ start: 0, duration: 5, asset: videoAsset("upl_a") }),
        clip({
          start: 5,
          duration: 5,
          asset: videoAsset("upl_b"),
          transition: { type: "fade", duration: 1 },
        }),
      ]),
    ],
  };
}

/** The arguments between the last `-map` pair and the output path: the encoder and muxer. */
const encoderOf = (args: string[]) => args.slice(args.lastIndexOf("-map") + 2, -1);

describe("planSegments", () => {
  it("tiles [0, total) with whole-frame segments of the asked length, the last one shorter", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.constantFrom(23.976, 24, 25, 29.97, 30, 50, 59.94, 60),
        fc.double({ min: 0.01, max: 120, noNaN: true }),
        (total, fps, segmentSec) => {
          const rate = toFrameRate(fps);
          const ranges = planSegments(total, rate, segmentSec);
          const length = Math.max(1, Math.round((segmentSec * rate.num) / rate.den));
          const last = ranges.length - 1;
          return (
            ranges[0]?.startFrame === 0 &&
            ranges[last]?.endFrame === total &&
            ranges.every(
              (r, i) =>
                (i === 0 || r.startFrame === ranges[i - 1]?.endFrame) &&
                (i === last
                  ? r.endFrame > r.startFrame && r.endFrame - r.startFrame <= length
                  : r.endFrame - r.startFrame === length),
            )
          );
        },
      ),
      { seed: 20261125, numRuns: 100 },
    );
  });

  it("rejects an empty render and a non-positive segment length", () => {
    expect(() => planSegments(0, toFrameRate(25), 1)).toThrow(RangeError);
    expect(() => planSegments(10, toFrameRate(25), 0)).toThrow(RangeError);
    expect(() => planSegments(10, toFrameRate(25), Number.NaN)).toThrow(RangeError);
  });
});

describe("buildSplitRenderPlan", () => {
  it("plans video-only segments with identical closed-GOP encoder settings (but for their edge zones), one audio part and a stream-copy join", () => {
    const split = buildSplitRenderPlan({
      composition: twoClips(25),
      assets,
      output: { format: "mp4", quality: "standard" },
      outputPath: "out.mp4",
      segmentSec: 5.2,
    });
    expect(split.frames).toBe(250);
    expect(split.durationSec).toBe(10);
    expect(split.segments.map((s) => [s.startFrame, s.endFrame, s.file])).toEqual([
      [0, 130, "seg-000.mp4"],
      [130, 250, "seg-001.mp4"],
    ]);
    const encoders = split.segments.map((s) => encoderOf(s.plan.args).join(" "));
    // Like the whole render, every segment encodes each graph frame as it is (`passthrough`):
    // the graph already yields exactly the segment's frames at regular timestamps. Only the x264
    // zones of its first and last 5 frames differ, by its frame count (130, 120).
    const encoder = (zones: string) =>
      `-c:v libx264 -preset veryfast -crf 23 -x264-params zones=${zones} -pix_fmt yuv420p -flags +cgop -an -f mp4 -r 25 -fps_mode passthrough`;
    expect(encoders).toEqual([encoder("0,4,b=1.15/125,129,b=1.15"), encoder("0,4,b=1.15/115,119,b=1.15")]);
    for (const s of split.segments) {
      expect(s.plan.output.audio).toBe(false);
      expect(s.plan.durationSec).toBeCloseTo((s.endFrame - s.startFrame) / 25, 9);
      expect(s.plan.args.at(-1)).toBe(s.file);
    }
    // Both segments render the whole transition across their boundary (frame 130, inside the
    // fade's frames 113..137) and keep their own frames on the output side.
    const graphs = split.segments.map((s) => s.plan.args[s.plan.args.indexOf("-filter_complex") + 1] ?? "");
    const kept = graphs.map((g) => /trim=start_frame=(\d+):end_frame=(\d+),setpts=PTS-STARTPTS/.exec(g));
    expect(graphs.every((g) => g.includes("xfade"))).toBe(true);
    expect(kept.map((m) => Number(m?.[2]) - Number(m?.[1]))).toEqual([130, 120]);
    expect(Number(kept[1]?.[1])).toBeGreaterThan(0);
    expect(encoderOf(split.audio.plan.args).join(" ")).toBe("-vn -c:a aac -b:a 192k -ar 48000 -f mp4");
    expect(split.audio.plan.args.join(" ")).not.toContain("-filter_complex_script");
    expect(split.audio.plan.durationSec).toBe(10);
    expect(split.join.args.slice(split.join.args.indexOf("-f"))).toEqual([
      ...["-f", "concat", "-safe", "0", "-i", CONCAT_LIST, "-i", "audio.m4a"],
      ...["-map", "0:v:0", "-map", "1:a:0", "-c", "copy", "-tag:v", "avc1"],
      // 250 frames and 471 AAC packets: 16 KiB + 48 bytes each for the header, written first.
      ...["-moov_size", "50992", "-f", "mp4", "out.mp4"],
    ]);
    expect(withFaststart(split.join.args).slice(-5)).toEqual([
      "-movflags",
      "+faststart",
      "-f",
      "mp4",
      "out.mp4",
    ]);
    expect(split.join.files).toEqual([
      {
        path: CONCAT_LIST,
        content:
          "ffconcat version 1.0\nfile 'seg-000.mp4'\nduration 5.200000\nfile 'seg-001.mp4'\nduration 4.800000\n",
      },
    ]);
    expect(split.output).toEqual({ format: "mp4", width: 320, height: 180, fps: 25, audio: true });
  });

  it("writes NTSC durations whose running sum stays on the exact frame times (no drift over many segments)", () => {
    const split = buildSplitRenderPlan({
      composition: twoClips(29.97),
      assets,
      output: { format: "mp4" },
      outputPath: "out.mp4",
      segmentSec: 0.1, // 3 frames each: 100 segments
    });
    const durations = [...(split.join.files[0]?.content ?? "").matchAll(/duration (\d+)\.(\d{6})/g)].map(
      (m) => Number(m[1]) * 1_000_000 + Number(m[2]),
    );
    expect(durations).toHaveLength(split.segments.length);
    let sum = 0;
    split.segments.forEach((s, i) => {
      sum += durations[i] ?? 0;
      // Exact end time of the segment in microseconds, within half a microsecond.
      expect(Math.abs(sum - (s.endFrame * 1001 * 1_000_000) / 30_000)).toBeLessThanOrEqual(0.5);
    });
  });

  it("splits only the requested range and renders the audio of that range", () => {
    const split = buildSplitRenderPlan({
      composition: twoClips(25),
      assets,
      output: { format: "mp4", range: { start: 3, duration: 5 } },
      outputPath: "out.mp4",
      segmentSec: 2,
    });
    expect(split.segments.map((s) => [s.startFrame, s.endFrame])).toEqual([
      [75, 125],
      [125, 175],
      [175, 200],
    ]);
    expect(split.frames).toBe(125);
    expect(split.audio.plan.durationSec).toBe(5);
  });

  it("uses lossless H.264 (x264 -qp 0) with the same preset when asked, for exactness tests", () => {
    const split = buildSplitRenderPlan({
      composition: twoClips(25),
      assets,
      output: { format: "mp4", quality: "draft" },
      outputPath: "out.mp4",
      segmentSec: 5,
      lossless: true,
    });
    expect(encoderOf(split.segments[0]?.plan.args ?? []).join(" ")).toContain(
      "-preset ultrafast -qp 0 -pix_fmt",
    );
  });

  it("refuses formats other than mp4", () => {
    expect(() =>
      buildSplitRenderPlan({
        composition: twoClips(25),
        assets,
        output: { format: "webm" },
        outputPath: "out.webm",
        segmentSec: 2,
      }),
    ).toThrow(RenderError);
  });
});

describe("segmentClipIds", () => {
  it("names every clip a segment's plan opens and none that plays outside its frames", () => {
    const doc = twoClips(25);
    const output = { format: "mp4", quality: "standard" } as const;
    const split = buildSplitRenderPlan({
      composition: doc,
      assets,
      output,
      outputPath: "out.mp4",
      segmentSec: 2,
    });
    const [a, b] = doc.tracks[0]?.clips.map((c) => c.id) ?? [];
    const ids = split.segments.map((s) => segmentClipIds({ composition: doc, output }, s));
    split.segments.forEach((s, i) => {
      for (const input of s.plan.inputs) expect(ids[i]?.has(input.clipId)).toBe(true);
    });
    // Only the segment across the fade (4.5–5.5 s) reads both sources.
    expect(ids.map((set) => [...set].sort())).toEqual([[a], [a], [a, b], [b], [b]]);
  });
});

describe("partEdgeZones", () => {
  it("zones a part's first and last 5 frames, a short part whole; not lossless or smart-render seam encodes", () => {
    expect(partEdgeZones(11)).toBe("0,4,b=1.15/6,10,b=1.15");
    expect(partEdgeZones(10)).toBe("0,9,b=1.15");
    expect(partEdgeZones(1)).toBe("0,0,b=1.15");
    const zoned = (args: string[]) => args.some((a) => a.startsWith("zones="));
    expect(zoned(encoderArgs("mp4", "standard", { streams: "video", partFrames: 30 }))).toBe(true);
    expect(zoned(encoderArgs("mp4", "standard", { streams: "video" }))).toBe(false);
    expect(zoned(encoderArgs("mp4", "standard", { streams: "video", partFrames: 30, lossless: true }))).toBe(
      false,
    );
    expect(zoned(encoderArgs("mp4", "lossless", { streams: "video", partFrames: 30 }))).toBe(false);
    const match = { profile: "high", level: 40, timescale: 15360, seam: true };
    expect(zoned(encoderArgs("mp4", "standard", { streams: "video", partFrames: 30, match }))).toBe(false);
  });
});

describe("smart-render seams", () => {
  it("encode at the seam preset and CRF in the copied sources' profile", () => {
    const args = (profile: string, seam = true, reorderDelay?: number) =>
      encoderArgs("mp4", "standard", {
        streams: "video",
        match: {
          profile,
          level: 40,
          timescale: 15360,
          seam,
          ...(reorderDelay !== undefined ? { reorderDelay } : {}),
        },
      });
    const valueAfter = (a: string[], flag: string) => a[a.indexOf(flag) + 1];
    for (const [profile, params] of [
      ["high", "8x8dct=1"],
      ["main", "cabac=1"],
      ["baseline", undefined],
    ] as const) {
      const a = args(profile);
      expect(valueAfter(a, "-preset")).toBe(SEAM_PRESET);
      expect(valueAfter(a, "-crf")).toBe(SEAM_CRF);
      expect(valueAfter(a, "-profile:v")).toBe(profile);
      expect(a.includes("-x264-params") ? valueAfter(a, "-x264-params") : undefined).toBe(params);
    }
    // An encoded piece that is not a seam keeps the quality's own preset and CRF.
    const piece = args("high", false);
    expect(valueAfter(piece, "-preset")).toBe("veryfast");
    expect(valueAfter(piece, "-crf")).toBe("23");
    expect(valueAfter(piece, "-x264-params")).toBe("8x8dct=1");
    // Every piece continues the sources' B-frame delay.
    expect(valueAfter(args("high", true, 2), "-x264-params")).toBe("8x8dct=1:bframes=3:b-pyramid=normal");
    // A Main seam with B-frames is Main without CABAC.
    expect(valueAfter(args("main", true, 1), "-x264-params")).toBe("bframes=3:b-pyramid=none");
    expect(valueAfter(args("main", false, 1), "-x264-params")).toBe("bframes=3:b-pyramid=none");
    expect(valueAfter(args("baseline", true, 0), "-x264-params")).toBe("bframes=0");
  });
});

describe("buildJoinPlan", () => {
  it("lists each file with its exact duration, and a copy read in place with its in and out points", () => {
    const rate = toFrameRate(30000 / 1001);
    const { files, args } = buildJoinPlan(
      [
        { startFrame: 10, endFrame: 23, file: "seam-000.mp4" },
        { startFrame: 23, endFrame: 83, file: "/media/it's.mp4", inpoint: 2.002, outpoint: 3.936933 },
        { startFrame: 83, endFrame: 90, file: "/media/b.mp4", inpoint: 12.012, outpoint: null },
      ],
      rate,
      "out.mp4",
      null,
      "pieces.ffconcat",
    );
    expect(files).toEqual([
      {
        path: "pieces.ffconcat",
        content: [
          "ffconcat version 1.0",
          "file 'seam-000.mp4'",
          "duration 0.433767",
          "file '/media/it'\\''s.mp4'",
          "inpoint 2.002000",
          "outpoint 3.936933",
          "duration 2.002000",
          "file '/media/b.mp4'",
          "inpoint 12.012000",
          "duration 0.233566",
          "",
        ].join("\n"),
      },
    ]);
    expect(args).toContain("pieces.ffconcat");
    expect(args).not.toContain("+faststart");
  });
});
