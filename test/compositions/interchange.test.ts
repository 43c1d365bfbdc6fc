import { readFile } from "node:fs/promises";
import path from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaFixtures, makeMediaFixtures, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { assertWellFormedXml } from "../helpers/xml.ts";
import { client } from "../renders/helpers.ts";

// Written by hand from the OpenTimelineIO JSON schema (Timeline.1, Stack.1, Track.1, Clip.1/2,
// Gap.1, Transition.1, Marker.2, ExternalReference.1, GeneratorReference.1), rate 24.
const SPEC_FILE = path.join(import.meta.dirname, "../fixtures/interchange/spec-two-tracks.otio");

let t: TestApp;
let key: string;
let readKey: string;
let api: ReturnType<typeof client>;
let fx: MediaFixtures;
let cleanup: () => Promise<void>;
const up: Record<string, string> = {};

beforeAll(async () => {
  const tmp = await tempDir("cutroom-interchange-");
  cleanup = tmp.cleanup;
  [fx, t] = await Promise.all([makeMediaFixtures(tmp.dir), startTestApp()]);
  const base = await t.listen();
  const account = await t.createAccount();
  key = account.key;
  readKey = (await t.addKey(account.userId, ["read"])).key;
  api = client(base, key);
  const [video, red, blue, mono] = await api.upload([fx.video, fx.red, fx.blueNoAudio, fx.monoAudio]);
  Object.assign(up, { video: video?.id, red: red?.id, blue: blue?.id, mono: mono?.id });
  // Generous: fixtures are made and probed on a busy machine.
}, 180_000);
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

async function exportAs(id: string, query: string, k = key) {
  return t.app.inject({ method: "GET", url: `/api/compositions/${id}/export?${query}`, headers: bearer(k) });
}

async function importOtio(payload: Record<string, unknown>, k = key) {
  return t.app.inject({ method: "POST", url: "/api/compositions/import", headers: bearer(k), payload });
}

/** A composition using what both formats can carry plus Cutroom-only fields. */
const richComposition = () => ({
  name: "Interchange — teaser",
  canvas: { width: 320, height: 180, fps: 25, background: "#101010", duration: 6 },
  metadata: { client: "ACME", tags: ["a", "b"] },
  tracks: [
    {
      id: "trk_main",
      name: "Main",
      kind: "video",
      clips: [
        {
          id: "clp_open",
          name: "Opening",
          start: 0,
          duration: 1.5,
          asset: { type: "video", uploadId: up.video },
          trim: 0.5,
          fadeIn: 0.2,
          fit: "contain",
        },
        {
          id: "clp_red",
          start: 1.5,
          duration: 1,
          asset: { type: "video", uploadId: up.red },
          trim: 1,
          speed: 0.5,
          transition: { type: "wipeleft", duration: 0.4 },
          volume: 0.7,
        },
        {
          id: "clp_card",
          start: 3,
          duration: 1,
          asset: { type: "color", color: "#33669980" },
          transition: { type: "fade", duration: 0.5 },
          fadeOut: 0.3,
          transform: { x: 0.25, width: 0.5, opacity: 0.9 },
        },
      ],
    },
    {
      id: "trk_titles",
      kind: "video",
      enabled: true,
      clips: [
        {
          id: "clp_title",
          start: 0.5,
          duration: 2,
          asset: {
            type: "text",
            text: "Hello, interchange",
            style: { family: "DejaVu Sans", size: 24, color: "#ffffff", align: "left" },
          },
          crop: { top: 0.1 },
          metadata: { note: "title" },
        },
        {
          id: "clp_caps",
          start: 3,
          duration: 2,
          asset: {
            type: "caption",
            style: { family: "DejaVu Sans", size: 18 },
            mode: "karaoke",
            source: { cues: [{ start: 0, end: 1.5, text: "Sing along" }] },
          },
        },
      ],
    },
    {
      id: "trk_music",
      name: "Music",
      kind: "audio",
      volume: 0.5,
      muted: false,
      ducking: { under: ["trk_main"], amountDb: 9 },
      clips: [{ id: "clp_music", start: 1, duration: 2, asset: { type: "audio", uploadId: up.mono } }],
    },
  ],
  markers: [
    { id: "mrk_a", time: 1.5, label: "Cut" },
    { id: "mrk_b", time: 3, duration: 1.25, label: "Card" },
  ],
});

describe("OpenTimelineIO export", () => {
  it("serialises tracks, clips, trims, gaps, transitions and markers per the OTIO schema, as a download", async () => {
    const comp = await api.createComposition(richComposition());
    const res = await exportAs(comp.id, "format=otio", readKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe('attachment; filename="Interchange_teaser.otio"');
    const otio = res.json();
    expect(otio).toMatchObject({ OTIO_SCHEMA: "Timeline.1", name: "Interchange — teaser" });
    expect(otio.tracks.OTIO_SCHEMA).toBe("Stack.1");
    const [main, titles, music] = otio.tracks.children;
    expect([main.kind, titles.kind, music.kind]).toEqual(["Video", "Video", "Audio"]);
    expect(main.children.map((c: { OTIO_SCHEMA: string }) => c.OTIO_SCHEMA)).toEqual([
      "Clip.2",
      "Transition.1",
      "Clip.2",
      "Gap.1",
      "Transition.1",
      "Clip.2",
    ]);
    const [open, wipe, red, gap, dissolve, card] = main.children;
    expect(open.source_range).toEqual({
      OTIO_SCHEMA: "TimeRange.1",
      start_time: { OTIO_SCHEMA: "RationalTime.1", rate: 25, value: 12.5 },
      duration: { OTIO_SCHEMA: "RationalTime.1", rate: 25, value: 37.5 },
    });
    const ref = open.media_references[open.active_media_reference_key];
    expect(ref).toMatchObject({ OTIO_SCHEMA: "ExternalReference.1", name: "video.mp4" });
    expect(ref.target_url).toMatch(/^http:\/\/.+\/files\/uploads\//);
    expect(ref.available_range.duration.value).toBeCloseTo(75, 0);
    expect(wipe).toMatchObject({
      transition_type: "Custom_Transition",
      in_offset: { rate: 25, value: 5 },
      out_offset: { rate: 25, value: 5 },
    });
    expect(red.effects).toEqual([
      expect.objectContaining({ OTIO_SCHEMA: "LinearTimeWarp.1", time_scalar: 0.5 }),
    ]);
    expect(gap.source_range.duration.value).toBe(12.5);
    expect(dissolve.transition_type).toBe("SMPTE_Dissolve");
    expect(card.media_references.DEFAULT_MEDIA).toMatchObject({
      OTIO_SCHEMA: "GeneratorReference.1",
      generator_kind: "SolidColor",
    });
    // Text has no OTIO equivalent: a missing reference plus our asset under metadata.cutroom.
    expect(titles.children[0].OTIO_SCHEMA).toBe("Gap.1");
    expect(titles.children[1].media_references.DEFAULT_MEDIA.OTIO_SCHEMA).toBe("MissingReference.1");
    expect(titles.children[1].metadata.cutroom.asset.text).toBe("Hello, interchange");
    expect(otio.tracks.markers).toEqual([
      expect.objectContaining({
        OTIO_SCHEMA: "Marker.2",
        name: "Cut",
        marked_range: expect.objectContaining({
          start_time: { OTIO_SCHEMA: "RationalTime.1", rate: 25, value: 37.5 },
        }),
      }),
      expect.objectContaining({ name: "Card" }),
    ]);
  });

  it("round-trips: composition → OTIO → import gives the same timeline", async () => {
    const comp = await api.createComposition(richComposition());
    const original = (await api.json("GET", `/api/compositions/${comp.id}`)).body;
    const otio = (await exportAs(comp.id, "format=otio")).json();
    const res = await importOtio({ otio });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers.etag).toBe('"1"');
    const imported = res.json();
    expect(imported.id).not.toBe(original.id);
    expect(imported.version).toBe(1);
    for (const field of ["name", "canvas", "tracks", "markers", "metadata"]) {
      expect(imported[field], field).toEqual(original[field]);
    }
    // And the import is a real composition: it reads back the same.
    const fetched = (await api.json("GET", `/api/compositions/${imported.id}`)).body;
    expect(fetched.tracks).toEqual(original.tracks);
  });

  it("references media by local path with assets=paths", async () => {
    const comp = await api.createComposition(richComposition());
    const otio = (await exportAs(comp.id, "format=otio&assets=paths")).json();
    const url = otio.tracks.children[0].children[0].media_references.DEFAULT_MEDIA.target_url as string;
    expect(url).toMatch(/^file:\/\/\/.+\/uploads\/upl_[^/]+\/original$/);
    expect(await readFile(new URL(url as string))).toEqual(await readFile(fx.video));
  });

  it("gives server paths only to the write scope: a read-only key gets 403 for assets=paths, URLs still work", async () => {
    const comp = await api.createComposition(richComposition());
    for (const format of ["otio", "mlt"]) {
      const refused = await exportAs(comp.id, `format=${format}&assets=paths`, readKey);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().error).toMatchObject({
        code: "insufficient_scope",
        message: expect.stringMatching(/write/),
      });
      expect(refused.body).not.toMatch(/uploads\/upl_/);
      expect((await exportAs(comp.id, `format=${format}`, readKey)).statusCode).toBe(200);
    }
  });

  it("answers 404 for an unknown composition and 400 for an unknown format", async () => {
    expect((await exportAs("cmp_nope", "format=otio")).statusCode).toBe(404);
    const comp = await api.createComposition(richComposition());
    const bad = await exportAs(comp.id, "format=edl");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe("invalid_request");
    const other = await t.createAccount();
    expect((await exportAs(comp.id, "format=otio", other.key)).statusCode).toBe(404);
  });
});

describe("OpenTimelineIO import", () => {
  it("imports a file written from the OTIO spec: clips, trims, gap, dissolve, generator, markers, kinds", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    const res = await importOtio({
      otio,
      media: { "Music bed": up.mono },
      canvas: { width: 320, height: 180 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c.name).toBe("Spec timeline");
    expect(c.canvas).toEqual({ width: 320, height: 180, fps: 24, background: "#000000" });
    expect(c.tracks).toHaveLength(2);
    const [v1, a1] = c.tracks;
    expect(v1).toMatchObject({ name: "V1", kind: "video" });
    expect(v1.clips).toEqual([
      {
        id: expect.stringMatching(/^clp_/),
        name: "Red shot",
        start: 0,
        duration: 1.5,
        trim: 0.5,
        asset: { type: "video", uploadId: up.red },
      },
      {
        id: expect.stringMatching(/^clp_/),
        name: "Blue shot",
        start: 1.5,
        duration: 1,
        trim: 1,
        asset: { type: "video", uploadId: up.blue },
        transition: { type: "fade", duration: 0.5 },
      },
      {
        id: expect.stringMatching(/^clp_/),
        name: "Colour card",
        start: 3,
        duration: 1,
        asset: { type: "color", color: "#336699" },
      },
    ]);
    expect(a1).toMatchObject({ name: "A1", kind: "audio" });
    expect(a1.clips).toEqual([
      {
        id: expect.stringMatching(/^clp_/),
        name: "Music",
        start: 1,
        duration: 2,
        asset: { type: "audio", uploadId: up.mono },
      },
    ]);
    expect(c.markers.map((m: { time: number; label: string }) => [m.time, m.label])).toEqual([
      [0.5, "Red marker"],
      [2, "Chapter 2"],
    ]);
  });

  it("lists every media reference that matches none of the caller's uploads, storing nothing", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    const before = (await api.json("GET", "/api/compositions?limit=100")).body.data.length;
    const res = await importOtio({ otio, media: { "red.mp4": "upl_not_mine" } });
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("Music bed");
    expect(error.details).toEqual([
      {
        path: "/otio/tracks/children/0/children/0",
        message: expect.stringContaining("upl_not_mine, which is not one of your uploads"),
      },
      { path: "/otio/tracks/children/1/children/1", message: expect.stringContaining('"Music bed"') },
    ]);
    expect((await api.json("GET", "/api/compositions?limit=100")).body.data.length).toBe(before);
  });

  it("does not match another account's uploads by name", async () => {
    const other = await t.createAccount();
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    const res = await importOtio({ otio, media: { "Music bed": up.mono } }, other.key);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toEqual([
      "/otio/tracks/children/0/children/0",
      "/otio/tracks/children/0/children/2",
      "/otio/tracks/children/1/children/1",
    ]);
  });

  it("maps media without a name by the path of their clip", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    const blue = "/otio/tracks/children/0/children/2";
    // No name, and a target_url whose file name is no upload's.
    otio.tracks.children[0].children[2].media_references.DEFAULT_MEDIA.target_url =
      "file:///Volumes/x/untitled";
    const unnamed = await importOtio({ otio, media: { "Music bed": up.mono } });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json().error.details).toEqual([
      { path: blue, message: expect.stringContaining("by name, or by this clip path") },
    ]);
    const res = await importOtio({ otio, media: { "Music bed": up.mono, [blue]: up.red } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().tracks[0].clips[1]).toMatchObject({ name: "Blue shot", asset: { uploadId: up.red } });
  });

  it("imports image sequences: matched to an upload named like them, else empty time with a warning", async () => {
    // Frames red.1001.exr … at 25 fps, rendered by the user into red.mp4; blue frames nobody uploaded.
    const sequence = (prefix: string, folder: string) => ({
      OTIO_SCHEMA: "ImageSequenceReference.1",
      name: "",
      target_url_base: `file:///shots/${folder}/`,
      name_prefix: prefix,
      name_suffix: ".exr",
      start_frame: 1001,
      frame_step: 1,
      rate: 25,
      frame_zero_padding: 4,
      missing_frame_policy: "error",
      available_range: null,
      metadata: {},
    });
    const rt = (value: number) => ({ OTIO_SCHEMA: "RationalTime.1", rate: 25, value });
    const clipOf = (name: string, ref: unknown, start: number) => ({
      OTIO_SCHEMA: "Clip.2",
      name,
      source_range: { OTIO_SCHEMA: "TimeRange.1", start_time: rt(start), duration: rt(25) },
      media_references: { DEFAULT_MEDIA: ref },
      active_media_reference_key: "DEFAULT_MEDIA",
    });
    const otio = {
      OTIO_SCHEMA: "Timeline.1",
      name: "Comp shots",
      tracks: {
        OTIO_SCHEMA: "Stack.1",
        children: [
          {
            OTIO_SCHEMA: "Track.1",
            kind: "Video",
            children: [
              clipOf("sh010", sequence("red.", "sh010"), 1001 + 25),
              clipOf("sh020", sequence("sh020_comp_", "sh020"), 1001),
            ],
          },
        ],
      },
    };
    // With unmatched "error" (the default) too: an image sequence is never refused.
    const res = await importOtio({ otio });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    // 1 s after its first frame (1001): trim 1 s into red.mp4.
    expect(c.tracks[0].clips).toEqual([
      expect.objectContaining({
        name: "sh010",
        start: 0,
        duration: 1,
        trim: 1,
        asset: { type: "video", uploadId: up.red },
      }),
    ]);
    expect(c.warnings).toEqual([
      {
        path: "/otio/tracks/children/0/children/1",
        message: expect.stringMatching(
          /^image sequence "sh020_comp" matches none of your uploads.*left empty/,
        ),
      },
    ]);
    // Mapped by its clip path, it comes in.
    const mapped = await importOtio({ otio, media: { "/otio/tracks/children/0/children/1": up.blue } });
    expect(mapped.statusCode, mapped.body).toBe(201);
    expect(mapped.json().tracks[0].clips[1]).toMatchObject({ start: 1, asset: { uploadId: up.blue } });
    expect(mapped.json().warnings).toEqual([]);
  });

  it("on request drops clips whose media match nothing (later items move up) or leaves gaps", async () => {
    // Another account has none of the uploads: both media clips of V1 and the music match nothing.
    const other = await t.createAccount();
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    const shape = (body: { tracks: { clips: { name: string; start: number }[] }[] }) =>
      body.tracks.map((tr) => tr.clips.map((c) => [c.name, c.start]));
    const gap = await importOtio({ otio, unmatched: "gap" }, other.key);
    expect(gap.statusCode, gap.body).toBe(201);
    expect(shape(gap.json())).toEqual([[["Colour card", 3]], []]);
    const drop = await importOtio({ otio, unmatched: "drop" }, other.key);
    expect(drop.statusCode, drop.body).toBe(201);
    // Red, the dissolve and Blue are gone; the 0.5 s gap before the colour card stays.
    expect(shape(drop.json())).toEqual([[["Colour card", 0.5]], []]);
    const refused = await importOtio({ otio, unmatched: "skip" }, other.key);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details.map((d: { path: string }) => d.path)).toContain("/unmatched");
  });

  it("accepts the bare .otio document as the body, its error paths pointing into it", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    const unmatched = await importOtio(otio);
    expect(unmatched.statusCode).toBe(400);
    expect(unmatched.json().error.details).toEqual([
      { path: "/tracks/children/1/children/1", message: expect.stringContaining('"Music bed"') },
    ]);
    otio.tracks.children.pop();
    const res = await importOtio(otio);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ name: "Spec timeline", version: 1 });
    expect(res.json().tracks[0].clips.map((c: { asset: { uploadId?: string } }) => c.asset.uploadId)).toEqual(
      [up.red, up.blue, undefined],
    );
  });

  it("names the path of a malformed field", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    otio.tracks.children[0].children[2].source_range.duration.rate = "24";
    const res = await importOtio({ otio });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      {
        path: "/otio/tracks/children/0/children/2/source_range/duration/rate",
        message: expect.stringContaining("number"),
      },
    ]);

    otio.tracks.children[0].children[2].source_range.duration.rate = 24;
    otio.tracks.children[1].kind = "Subtitle";
    const kind = await importOtio({ otio });
    expect(kind.json().error.details).toEqual([
      { path: "/otio/tracks/children/1/kind", message: 'must be "Video" or "Audio"' },
    ]);

    otio.tracks.children[1].kind = "Audio";
    // A nested stack is flattened; a malformed one is named by its path.
    otio.tracks.children[0].children.push({ OTIO_SCHEMA: "Stack.1", children: "clips" });
    const nested = await importOtio({ otio });
    expect(nested.json().error.details[0]).toEqual({
      path: "/otio/tracks/children/0/children/5/children",
      message: expect.any(String),
    });

    const notTimeline = await importOtio({ otio: { OTIO_SCHEMA: "Track.1" } });
    expect(notTimeline.json().error.details[0].path).toBe("/otio/OTIO_SCHEMA");
  });

  it("points a composition rule broken by the timeline back at the OTIO item", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    // A 3 s dissolve into a 1 s clip: longer than the clip it leads into.
    otio.tracks.children[0].children[1].in_offset.value = 36;
    otio.tracks.children[0].children[1].out_offset.value = 36;
    const res = await importOtio({ otio, media: { "Music bed": up.mono } });
    expect(res.statusCode).toBe(400);
    const details = res.json().error.details as { path: string; message: string }[];
    expect(
      details.some((d) => d.path === "/otio/tracks/children/0/children/2" && /^transition/.test(d.message)),
    ).toBe(true);
  });

  it("accepts bodies beyond the general body limit (verbose files from editing applications)", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    otio.metadata = { Resolve: { notes: "x".repeat(3 * 1024 * 1024) } };
    const res = await importOtio({ otio, media: { "Music bed": up.mono } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    expect(res.json().metadata).toBeUndefined();
  });

  it("needs the write scope and a project of the caller", async () => {
    const otio = JSON.parse(await readFile(SPEC_FILE, "utf8"));
    expect((await importOtio({ otio, media: { "Music bed": up.mono } }, readKey)).statusCode).toBe(403);
    const foreign = await importOtio({ otio, media: { "Music bed": up.mono }, projectId: "prj_nope" });
    expect(foreign.statusCode).toBe(404);
  });
});

describe("MLT export", () => {
  it("writes a profile, producers with in/out, playlists with blanks and a tractor", async () => {
    const comp = await api.createComposition(richComposition());
    const res = await exportAs(comp.id, "format=mlt&assets=paths");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("application/xml; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe('attachment; filename="Interchange_teaser.mlt"');
    assertWellFormedXml(res.body);
    const xml = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (_n, _p, _leaf, isAttribute) => !isAttribute,
    }).parse(res.body);
    const mlt = xml.mlt[0];
    expect(mlt.profile[0]).toMatchObject({
      width: "320",
      height: "180",
      frame_rate_num: "25",
      frame_rate_den: "1",
    });
    const playlists = mlt.playlist as {
      id: string;
      blank?: { length: string }[];
      entry?: { producer: string; in: string; out: string }[];
    }[];
    expect(playlists).toHaveLength(3);
    // Main track: opening (0..1.3 s, trim 0.5 s), wipe tractor, red, blank, dissolve tractor, card.
    const main = playlists[0];
    expect(main?.blank).toEqual([{ length: "12" }]);
    // 25 fps: opening 0..33 (trim 0.5 s = frame 13), a 10-frame wipe tractor centred on the cut
    // at frame 38, red at half speed from its warped frame 55, then a 12-frame gap and the card.
    expect(main?.entry).toEqual([
      { producer: expect.any(String), in: "13", out: "45" },
      { producer: expect.stringMatching(/^transition_tractor/), in: "0", out: "9" },
      { producer: expect.any(String), in: "55", out: "74" },
      { producer: expect.any(String), in: "0", out: "24" },
    ]);
    const wipe = (mlt.tractor as { id: string; track: { in: string; out: string }[] }[]).find(
      (x) => x.id === main?.entry?.[1]?.producer,
    );
    expect(wipe?.track.map((x) => [x.in, x.out])).toEqual([
      ["46", "55"],
      ["45", "54"],
    ]);
    const mainTractor = (mlt.tractor as { id: string; out: string }[]).find((x) => x.id === "main");
    expect(mainTractor?.out).toBe("149");
    const resources = [...res.body.matchAll(/<property name="resource">([^<]*)<\/property>/g)].map(
      (m) => m[1] ?? "",
    );
    expect(resources.some((r) => /\/uploads\/upl_[^/]+\/original$/.test(r))).toBe(true);
    expect(resources).toContain("#80336699");
    // Clip gain as a volume filter; the opening's 0.2 s fade-in as 5-frame brightness and volume ramps.
    expect(res.body).toContain('<property name="gain">0.7</property>');
    expect(res.body).toContain('<property name="level">0=0;5=1</property>');
    expect(res.body).toContain('<property name="level">0=-60;5=0</property>');
  });

  it("is well-formed XML whatever the names and texts hold: markup escaped, control characters dropped", async () => {
    const hostile = 'a\u0001b\u0008c\u000bd\u001fe\ufffe<tag attr="x">&amp;\'\ttab';
    const rich = richComposition();
    const comp = await api.createComposition({
      ...rich,
      name: hostile,
      tracks: rich.tracks.map((tr) => ({ ...tr, name: hostile })),
    });
    const res = await exportAs(comp.id, "format=mlt");
    expect(res.statusCode, res.body).toBe(200);
    assertWellFormedXml(res.body);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(res.body);
    expect(xml.mlt.title).toBe('abcde<tag attr="x">&amp;\'\ttab');
  });
});
