import { describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { Composition } from "../composition/schema.ts";
import { toFrameRate } from "../render/timeline.ts";
import type { ResolvedMedia } from "./common.ts";
import { resolveExportMedia } from "./media.ts";
import { compositionToOtio, rationalTime, timeRange } from "./otio-export.ts";
import {
  listOtioMedia,
  otioToComposition,
  parseOtio,
  type ResolvedUse,
  withProbedDurations,
} from "./otio-import.ts";

const R = 24;
const rt = (frames: number, rate = R) => ({ OTIO_SCHEMA: "RationalTime.1", rate, value: frames });
const range = (start: number, duration: number, rate = R) => ({
  OTIO_SCHEMA: "TimeRange.1",
  start_time: rt(start, rate),
  duration: rt(duration, rate),
});
const clip = (name: string, start: number, duration: number, extra: Record<string, unknown> = {}) => ({
  OTIO_SCHEMA: "Clip.2",
  name,
  source_range: range(start, duration),
  media_references: {
    DEFAULT_MEDIA: {
      OTIO_SCHEMA: "ExternalReference.1",
      name: `${name}.mov`,
      target_url: `file:///m/${name}.mov`,
    },
  },
  active_media_reference_key: "DEFAULT_MEDIA",
  ...extra,
});
const gap = (duration: number) => ({ OTIO_SCHEMA: "Gap.1", source_range: range(0, duration) });
const dissolve = (inFrames: number, outFrames: number) => ({
  OTIO_SCHEMA: "Transition.1",
  transition_type: "SMPTE_Dissolve",
  in_offset: rt(inFrames),
  out_offset: rt(outFrames),
});
const timeline = (children: unknown[], kind = "Video") => ({
  OTIO_SCHEMA: "Timeline.1",
  name: "t",
  tracks: { OTIO_SCHEMA: "Stack.1", children: [{ OTIO_SCHEMA: "Track.1", kind, children }] },
});

/** Converts with every media use resolved to a fake upload of type video. */
function convert(doc: unknown) {
  const parsed = parseOtio(doc);
  const ids = new Map(listOtioMedia(parsed).map((u) => [u.path, `upl_${u.name}`]));
  return otioToComposition(parsed, (p): ResolvedUse => ({ uploadId: ids.get(p) ?? "?", uploadType: "video" }))
    .body;
}

function badRequest(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).details ?? [];
  }
  throw new Error("expected a 400");
}

describe("OTIO import sequencing", () => {
  it("turns transitions at a track's edges and next to gaps into fades, and centres asymmetric ones", () => {
    const body = convert(
      timeline([
        dissolve(0, 12),
        clip("a", 0, 48),
        dissolve(6, 18),
        clip("b", 24, 48),
        dissolve(12, 0),
        gap(24),
        clip("c", 0, 24),
        dissolve(6, 0),
      ]),
    );
    const clips = body.tracks[0]?.clips ?? [];
    expect(clips.map((c) => [c.start, c.duration, c.fadeIn, c.fadeOut, c.transition])).toEqual([
      [0, 2, 0.5, undefined, undefined],
      [2, 2, undefined, 0.5, { type: "fade", duration: 1 }],
      [5, 1, undefined, 0.25, undefined],
    ]);
    expect(clips[1]?.trim).toBe(1);
  });

  it("treats a disabled clip as empty time and reads Clip.1, timecode-based trims and time warps", () => {
    const body = convert(
      timeline([
        clip("off", 0, 24, { enabled: false }),
        {
          OTIO_SCHEMA: "Clip.1",
          name: "tc",
          source_range: range(86_400 + 48, 24),
          media_reference: {
            OTIO_SCHEMA: "ExternalReference.1",
            name: "tc.mov",
            target_url: "file:///m/tc.mov",
            available_range: range(86_400, 2400),
          },
          effects: [{ OTIO_SCHEMA: "LinearTimeWarp.1", time_scalar: 2 }],
          markers: [{ OTIO_SCHEMA: "Marker.2", name: "m", marked_range: range(86_400 + 72, 0) }],
        },
      ]),
    );
    expect(body.tracks[0]?.clips).toEqual([
      {
        name: "tc",
        start: 1,
        duration: 1,
        trim: 2,
        speed: 2,
        asset: { type: "video", uploadId: "upl_tc.mov" },
      },
    ]);
    // The clip's marker at source 3 s: 1 s into the source range at double speed = 0.5 s into the clip.
    expect(body.markers).toEqual([{ time: 1.5, label: "m" }]);
  });

  it("reads FreezeFrame (and a time warp of 0) as a freeze of the clip's first frame, even when cut", () => {
    const freeze = { OTIO_SCHEMA: "FreezeFrame.1", effect_name: "FreezeFrame", time_scalar: 0 };
    const parsed = parseOtio(
      timeline([
        clip("a", 12, 48, { effects: [freeze] }),
        clip("b", 24, 24, { effects: [{ OTIO_SCHEMA: "LinearTimeWarp.1", time_scalar: 0 }] }),
      ]),
    );
    expect(parsed.warnings).toEqual([]);
    const body = convert(timeline([clip("a", 12, 48, { effects: [freeze] })]));
    expect(body.tracks[0]?.clips).toEqual([
      {
        name: "a",
        start: 0,
        duration: 2,
        trim: 0.5,
        freeze: true,
        asset: { type: "video", uploadId: "upl_a.mov" },
      },
    ]);
    expect(
      convert(
        timeline([clip("b", 24, 24, { effects: [{ OTIO_SCHEMA: "LinearTimeWarp.1", time_scalar: 0 }] })]),
      ).tracks[0]?.clips[0],
    ).toMatchObject({ trim: 1, freeze: true });
    // Cut by a track's source_range, the freeze still holds the clip's first frame.
    const cut = timeline([clip("a", 12, 48, { effects: [freeze] })]);
    (cut.tracks.children[0] as Record<string, unknown>).source_range = range(24, 24);
    expect(convert(cut).tracks[0]?.clips[0]).toMatchObject({
      start: 0,
      duration: 1,
      trim: 0.5,
      freeze: true,
    });
    // An image or an audio clip cannot be frozen: it plays (stands), with a warning.
    const audio = parseOtio(timeline([clip("s", 0, 24, { effects: [freeze] })], "Audio"));
    const result = otioToComposition(audio, () => ({ uploadId: "upl_s", uploadType: "audio" }));
    expect(result.body.tracks[0]?.clips[0]?.freeze).toBeUndefined();
    expect(result.warnings).toEqual([
      {
        path: "/otio/tracks/children/0/children/0",
        message: "freeze frame not carried: only a video clip can be frozen, not a clip on an audio track",
      },
    ]);
  });

  it("keeps clips of 50 frames at 24 fps touching, reads Clip.1 without media by clip name, defaults kind", () => {
    const noMedia = (name: string) => ({
      OTIO_SCHEMA: "Clip.1",
      name,
      media_reference: null,
      source_range: range(0, 50),
    });
    const doc = timeline([dissolve(10, 10), noMedia("A"), dissolve(10, 10), noMedia("B"), noMedia("C")]);
    delete (doc.tracks.children[0] as { kind?: string }).kind;
    const parsed = parseOtio(doc);
    expect(listOtioMedia(parsed).map((u) => u.name)).toEqual(["A", "B", "C"]);
    const body = convert(doc);
    const clips = body.tracks[0]?.clips ?? [];
    expect(body.tracks[0]?.kind).toBe("video");
    expect(clips.map((c) => c.start)).toEqual([0, 2.083333, 4.166667]);
    for (let i = 1; i < clips.length; i++) {
      const prev = clips[i - 1];
      expect(Math.round(((prev?.start ?? 0) + (prev?.duration ?? 0)) * 1e6) / 1e6).toBe(clips[i]?.start);
    }
    expect(clips[0]?.fadeIn).toBe(0.833333);
    expect(clips[1]?.transition).toEqual({ type: "fade", duration: 0.833333 });
  });

  it("uses a 29.97 rate given as 30000/1001 for the canvas and converts its frames exactly", () => {
    const rate = 30000 / 1001;
    const body = convert({
      ...timeline([{ ...clip("a", 0, 0), source_range: range(0, 30, rate) }]),
    });
    expect(body.canvas.fps).toBe(29.97);
    expect(body.tracks[0]?.clips[0]?.duration).toBe(1.001);
  });

  it("puts audio-track media on audio assets and leaves unmatched https references as src", () => {
    const parsed = parseOtio(
      timeline(
        [
          {
            ...clip("a", 0, 24),
            media_references: {
              DEFAULT_MEDIA: {
                OTIO_SCHEMA: "ExternalReference.1",
                name: "",
                target_url: "https://cdn.example.com/music.mp3?sig=1",
              },
            },
          },
        ],
        "Audio",
      ),
    );
    const [use] = listOtioMedia(parsed);
    expect(use).toMatchObject({
      name: "",
      targetUrl: "https://cdn.example.com/music.mp3?sig=1",
      audio: true,
    });
    const body = otioToComposition(parsed, () => ({ src: "https://cdn.example.com/music.mp3?sig=1" })).body;
    expect(body.tracks[0]).toMatchObject({
      kind: "audio",
      clips: [{ asset: { type: "audio", src: "https://cdn.example.com/music.mp3?sig=1" } }],
    });
  });

  it("flattens nested tracks, warns about unknown items and other generators, refuses what has no length", () => {
    const nested = parseOtio(timeline([gap(1), { OTIO_SCHEMA: "Sequence.1", children: [gap(2)] }]));
    expect(nested.tracks[0]?.items.map((i) => [i.kind, i.duration])).toEqual([
      ["gap", 1 / 24],
      ["gap", 2 / 24],
    ]);
    expect(parseOtio(timeline([{ OTIO_SCHEMA: "Effect.1" }])).warnings).toEqual([
      { path: "/otio/tracks/children/0/children/0", message: "item Effect.1 not carried" },
    ]);
    // Without a range on the clip or its media, the upload's probed length is the clip's.
    const bare = parseOtio(timeline([{ OTIO_SCHEMA: "Clip.2", name: "x" }]));
    const probed = withProbedDurations(bare, () => 2.5);
    expect(probed.tracks[0]?.items[0]?.duration).toBe(2.5);
    expect(badRequest(() => convert(timeline([{ OTIO_SCHEMA: "Clip.2", name: "x" }])))).toEqual([
      {
        path: "/otio/tracks/children/0/children/0/source_range",
        message: expect.stringContaining("required"),
      },
    ]);
    // An image sequence is media matched by its names (name, file prefix, folder), never refused.
    const sequence = {
      ...clip("frames", 0, 24),
      media_references: {
        DEFAULT_MEDIA: {
          OTIO_SCHEMA: "ImageSequenceReference.1",
          target_url_base: "file:///shots/sh030/",
          name_prefix: "sh030_v2.",
        },
      },
    };
    const [use] = listOtioMedia(parseOtio(timeline([sequence])));
    expect(use).toMatchObject({ name: "sh030_v2", sequence: true });
    expect(use?.otherNames).toEqual(expect.arrayContaining(["sh030", "frames", "sh030_v2.mov", "sh030.mp4"]));
    const media = { ...sequence, media_references: { DEFAULT_MEDIA: { OTIO_SCHEMA: "Unknown.1" } } };
    expect(badRequest(() => parseOtio(timeline([media])))).toEqual([
      {
        path: "/otio/tracks/children/0/children/0/media_references/DEFAULT_MEDIA/OTIO_SCHEMA",
        message: expect.stringContaining("ExternalReference.1"),
      },
    ]);
    const bars = {
      ...clip("bars", 0, 24),
      media_references: {
        DEFAULT_MEDIA: { OTIO_SCHEMA: "GeneratorReference.1", generator_kind: "SMPTEBars", parameters: {} },
      },
    };
    expect(parseOtio(timeline([bars])).warnings).toEqual([
      {
        path: "/otio/tracks/children/0/children/0",
        message: expect.stringContaining('generator "SMPTEBars"'),
      },
    ]);
  });
});

describe("OTIO export", () => {
  const composition: Composition = {
    id: "cmp_1",
    projectId: null,
    name: "x",
    schemaVersion: 1,
    version: 1,
    createdAt: "",
    updatedAt: "",
    canvas: { width: 640, height: 360, fps: 29.97, background: "#000000" },
    tracks: [
      {
        id: "trk_1",
        kind: "video",
        clips: [
          {
            id: "clp_1",
            start: 0.5,
            duration: 1,
            asset: { type: "video", src: "https://example.com/a%20b.mp4" },
          },
        ],
      },
    ],
  };
  const media = (): ResolvedMedia => ({
    name: "a b.mp4",
    targetUrl: "https://example.com/a%20b.mp4",
    path: null,
    duration: null,
  });

  it("starts a track with a gap and round-trips 29.97 times without float noise", () => {
    const otio = compositionToOtio(composition, media);
    const track = (otio.tracks as { children: { children: { OTIO_SCHEMA: string }[] }[] }).children[0];
    expect(track?.children.map((c) => c.OTIO_SCHEMA)).toEqual(["Gap.1", "Clip.2"]);
    const parsed = parseOtio(JSON.parse(JSON.stringify(otio)));
    const back = otioToComposition(parsed, () => ({ src: "https://example.com/a%20b.mp4" })).body;
    expect(back.canvas).toEqual(composition.canvas);
    expect(back.tracks).toEqual(composition.tracks);
  });

  it("writes a frozen clip as a FreezeFrame effect and reads it back frozen", () => {
    const frozen: Composition = {
      ...composition,
      tracks: [
        {
          id: "trk_1",
          kind: "video",
          clips: [
            { id: "clp_1", start: 0, duration: 1, trim: 0.5, asset: { type: "video", uploadId: "upl_a" } },
            {
              id: "clp_2",
              start: 1,
              duration: 2,
              trim: 0.8,
              freeze: true,
              asset: { type: "video", uploadId: "upl_a" },
            },
          ],
        },
      ],
    };
    const otio = compositionToOtio(frozen, media);
    const track = (otio.tracks as { children: { children: Record<string, unknown>[] }[] }).children[0];
    expect(track?.children[1]?.effects).toEqual([
      { OTIO_SCHEMA: "FreezeFrame.1", name: "", effect_name: "FreezeFrame", time_scalar: 0, metadata: {} },
    ]);
    const once = otioToComposition(parseOtio(JSON.parse(JSON.stringify(otio))), () => ({
      uploadId: "upl_a",
      uploadType: "video",
    }));
    expect(once.warnings).toEqual([]);
    expect(once.body.tracks).toEqual(frozen.tracks);
    // import → export → import: the same composition again.
    const again = otioToComposition(
      parseOtio(JSON.parse(JSON.stringify(compositionToOtio(once.body as Composition, media)))),
      () => ({ uploadId: "upl_a", uploadType: "video" }),
    );
    expect(again.body).toEqual(once.body);
  });

  it("writes RationalTime and TimeRange objects at the given rate", () => {
    expect(rationalTime(1.5, 24)).toEqual({ OTIO_SCHEMA: "RationalTime.1", rate: 24, value: 36 });
    expect(timeRange(0, 1, 25).duration.value).toBe(25);
  });
});

describe("MLT frame rates", () => {
  it("uses exact rationals for NTSC rates", () => {
    expect(toFrameRate(29.97)).toEqual({ num: 30000, den: 1001 });
    expect(toFrameRate(23.976)).toEqual({ num: 24000, den: 1001 });
    expect(toFrameRate(59.94)).toEqual({ num: 60000, den: 1001 });
    expect(toFrameRate(25)).toEqual({ num: 25, den: 1 });
  });
});

describe("export media links", () => {
  it("refuses assets=paths when storage is not local disk, before touching the database", async () => {
    const store = { driver: "s3", localPath: () => null } as unknown as BlobStore;
    const db = new Proxy(
      {},
      {
        get: () => {
          throw new Error("database used");
        },
      },
    );
    const composition = { tracks: [] } as unknown as Composition;
    await expect(
      resolveExportMedia({ db: db as never, store, ttlSec: 60 }, "usr_1", composition, "paths"),
    ).rejects.toMatchObject({ code: "invalid_request", details: [{ path: "/querystring/assets" }] });
  });
});
