import { describe, expect, it, vi } from "vitest";
import { AppError } from "../../errors.ts";
import type { CompositionWrite } from "./schema.ts";
import { type TranscriptionInfo, type UploadInfo, validateComposition } from "./validate.ts";

const uploads = new Map<string, UploadInfo>([
  ["upl_video", { type: "video", media: { duration: 10, hasAudio: true } }],
  ["upl_silent", { type: "video", media: { duration: 10, hasAudio: false } }],
  ["upl_audio", { type: "audio", media: { duration: 60, hasAudio: true } }],
  ["upl_image", { type: "image", media: { duration: null, hasAudio: false } }],
  ["upl_srt", { type: "subtitle" }],
]);
const lookupUpload = async (ids: string[]) =>
  new Map(ids.flatMap((id) => (uploads.has(id) ? [[id, uploads.get(id) as UploadInfo]] : [])));
/** The caller's transcriptions (another account's are absent, as the lookup leaves them out). */
const transcriptions = new Map<string, TranscriptionInfo>([
  ["trn_done", { status: "succeeded" }],
  ["trn_running", { status: "running" }],
  ["trn_failed", { status: "failed" }],
]);
const lookupTranscription = async (ids: string[]) =>
  new Map(
    ids.flatMap((id) => (transcriptions.has(id) ? [[id, transcriptions.get(id) as TranscriptionInfo]] : [])),
  );

function body(
  tracks: CompositionWrite["tracks"],
  canvas: Partial<CompositionWrite["canvas"]> = {},
): CompositionWrite {
  return {
    name: "Test",
    canvas: { width: 1280, height: 720, fps: 30, background: "#000000", ...canvas },
    tracks,
  };
}

async function problems(doc: unknown): Promise<{ path: string; message: string }[]> {
  try {
    await validateComposition(doc, { lookupUpload, lookupTranscription });
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("invalid_request");
    return (error as AppError).details ?? [];
  }
  return [];
}

describe("validateComposition", () => {
  it("accepts a valid composition and looks uploads up once with distinct ids", async () => {
    const lookup = vi.fn(lookupUpload);
    const doc = body([
      {
        kind: "video",
        clips: [
          { start: 0, duration: 2, asset: { type: "video", uploadId: "upl_video" } },
          {
            start: 2,
            duration: 2,
            asset: { type: "video", uploadId: "upl_video" },
            transition: { type: "fade", duration: 1 },
          },
          {
            start: 5,
            duration: 2,
            asset: { type: "image", uploadId: "upl_image" },
            transition: { type: "wipeleft", duration: 1 },
          },
        ],
      },
      { kind: "audio", clips: [{ start: 0, duration: 7, asset: { type: "audio", uploadId: "upl_audio" } }] },
      {
        kind: "video",
        clips: [
          {
            start: 0,
            duration: 3,
            asset: { type: "caption", style: { family: "sans", size: 40 }, source: { uploadId: "upl_srt" } },
          },
        ],
      },
    ]);
    await expect(
      validateComposition(doc, { lookupUpload: lookup, lookupTranscription }),
    ).resolves.toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup.mock.calls[0]?.[0].sort()).toEqual(["upl_audio", "upl_image", "upl_srt", "upl_video"]);
  });

  it("takes captions from a succeeded transcription of the caller and names the field of any other", async () => {
    const lookup = vi.fn(lookupTranscription);
    const caption = (transcriptionId: string, start: number) => ({
      start,
      duration: 1,
      asset: {
        type: "caption" as const,
        mode: "karaoke" as const,
        style: { family: "DejaVu Sans", size: 40 },
        source: { transcriptionId },
      },
    });
    const ok = body([{ kind: "video", clips: [caption("trn_done", 0), caption("trn_done", 1)] }]);
    await expect(
      validateComposition(ok, { lookupUpload, lookupTranscription: lookup }),
    ).resolves.toBeUndefined();
    expect(lookup.mock.calls).toEqual([[["trn_done"]]]);
    const bad = body([
      {
        kind: "video",
        clips: [
          caption("trn_done", 0),
          caption("trn_running", 1),
          caption("trn_failed", 2),
          caption("trn_other", 3),
        ],
      },
    ]);
    const found = await problems(bad);
    expect(found).toEqual([
      {
        path: "/tracks/0/clips/1/asset/source/transcriptionId",
        message: "transcription trn_running is running; captions need it to have succeeded (poll it first)",
      },
      {
        path: "/tracks/0/clips/2/asset/source/transcriptionId",
        message: "transcription trn_failed failed; captions need a succeeded transcription",
      },
      {
        path: "/tracks/0/clips/3/asset/source/transcriptionId",
        message: "transcription trn_other was not found",
      },
    ]);
  });

  it("rejects overlapping clips, naming both by name and time (the id in the detail), with the client's indices", async () => {
    const doc = body([
      {
        kind: "video",
        clips: [
          { id: "clp_late", start: 5, duration: 2, asset: { type: "color", color: "#ff0000" } },
          { id: "clp_a", name: "Intro", start: 0, duration: 3, asset: { type: "color", color: "#ff0000" } },
          {
            id: "clp_b",
            start: 2.5,
            duration: 1,
            asset: { type: "text", text: "Hello", style: { family: "Sans", size: 40, color: "#ffffff" } },
          },
        ],
      },
    ]);
    const details = await problems(doc);
    expect(details).toEqual([
      {
        path: "/tracks/0/clips/2/start",
        message: 'text "Hello" at 0:02 overlaps Intro at 0:00 on the same track (which ends at 3 s)',
        clipId: "clp_b",
      },
    ]);
  });

  it("collects every range problem, not just the first", async () => {
    const doc = body([
      {
        kind: "video",
        clips: [
          {
            start: 0,
            duration: 2,
            asset: { type: "color", color: "#ffffff" },
            fadeIn: 1.5,
            fadeOut: 1,
            crop: { top: 0.6, bottom: 0.5, left: 0.5, right: 0.5 },
          },
        ],
      },
    ]);
    const details = await problems(doc);
    expect(details.map((d) => d.path).sort()).toEqual([
      "/tracks/0/clips/0/crop/bottom",
      "/tracks/0/clips/0/crop/right",
      "/tracks/0/clips/0/fadeOut",
    ]);
  });

  it("checks reframes: video clips only, not with a crop, keyframe times increasing", async () => {
    const keyframes = [
      { time: 1, x: 0.3, y: 0.5 },
      { time: 1, x: 0.6, y: 0.5 },
    ];
    const doc = body([
      {
        kind: "video",
        clips: [
          {
            start: 0,
            duration: 2,
            asset: { type: "video", uploadId: "upl_video" },
            crop: { left: 0.1 },
            reframe: { keyframes, split: { keyframes: [{ time: 0, x: 0.5, y: 0.5 }] } },
          },
          {
            start: 2,
            duration: 1,
            asset: { type: "image", uploadId: "upl_image" },
            reframe: { keyframes: [{ time: 0, x: 0.5, y: 0.5 }] },
          },
        ],
      },
    ]);
    const details = await problems(doc);
    expect(details.map((d) => d.path).sort()).toEqual([
      "/tracks/0/clips/0/reframe",
      "/tracks/0/clips/0/reframe/keyframes/1/time",
      "/tracks/0/clips/1/reframe",
    ]);
  });

  it("checks freezes: video clips only, at speed 1", async () => {
    const video = { type: "video", uploadId: "upl_video" } as const;
    const doc = body([
      {
        kind: "video",
        clips: [
          { start: 0, duration: 2, asset: video, trim: 1, freeze: true },
          { start: 2, duration: 1, asset: video, freeze: true, speed: 2 },
          { start: 3, duration: 1, asset: { type: "image", uploadId: "upl_image" }, freeze: true },
          { start: 4, duration: 1, asset: video, freeze: true, speed: 1 },
        ],
      },
    ]);
    const details = await problems(doc);
    expect(details.map((d) => d.path).sort()).toEqual([
      "/tracks/0/clips/1/speed",
      "/tracks/0/clips/2/freeze",
    ]);
  });

  it("reports structural errors with JSON pointers (odd canvas, unknown fps, speed out of range)", async () => {
    const doc = body(
      [
        {
          kind: "video",
          clips: [{ start: 0, duration: 1, speed: 8, asset: { type: "color", color: "#000000" } }],
        },
      ],
      { width: 1281, fps: 31 },
    );
    const paths = (await problems(doc)).map((d) => d.path);
    expect(paths).toContain("/canvas/width");
    expect(paths).toContain("/canvas/fps");
    expect(paths).toContain("/tracks/0/clips/0/speed");
  });

  it("checks transitions against both clips and the gap before", async () => {
    const doc = body([
      {
        kind: "video",
        clips: [
          {
            start: 0,
            duration: 1,
            asset: { type: "color", color: "#000000" },
            transition: { type: "fade", duration: 0.5 },
          },
          {
            start: 1,
            duration: 3,
            asset: { type: "color", color: "#000000" },
            transition: { type: "fade", duration: 2 },
          },
          {
            start: 4.5,
            duration: 3,
            asset: { type: "color", color: "#000000" },
            transition: { type: "fade", duration: 1 },
          },
          {
            start: 7.5,
            duration: 0.5,
            asset: { type: "color", color: "#000000" },
            transition: { type: "fade", duration: 1 },
          },
        ],
      },
    ]);
    const details = (await problems(doc)).sort((a, b) => a.path.localeCompare(b.path));
    expect(details).toEqual([
      {
        path: "/tracks/0/clips/0/transition/duration",
        message: expect.stringContaining("nothing to transition from"),
      },
      { path: "/tracks/0/clips/1/transition/duration", message: expect.stringContaining("previous clip") },
      { path: "/tracks/0/clips/2/transition/duration", message: expect.stringContaining("gap") },
      { path: "/tracks/0/clips/3/transition/duration", message: expect.stringContaining("clip duration") },
    ]);
  });

  it("checks track kind against asset type and references against uploads", async () => {
    const doc = body([
      {
        kind: "audio",
        clips: [
          { start: 0, duration: 1, asset: { type: "video", uploadId: "upl_video" } },
          { start: 1, duration: 1, asset: { type: "audio", uploadId: "upl_silent" } },
          { start: 2, duration: 1, asset: { type: "audio", uploadId: "upl_video" } },
        ],
      },
      {
        kind: "video",
        clips: [
          { start: 0, duration: 1, asset: { type: "audio", uploadId: "upl_audio" } },
          { start: 1, duration: 1, asset: { type: "image", uploadId: "upl_missing" } },
          { start: 2, duration: 1, asset: { type: "video", uploadId: "upl_image" } },
          { start: 3, duration: 1, trim: 12, asset: { type: "video", uploadId: "upl_video" } },
          {
            start: 4,
            duration: 1,
            asset: { type: "video", uploadId: "upl_video", src: "https://x.test/a.mp4" },
          },
          {
            start: 5,
            duration: 1,
            asset: {
              type: "caption",
              style: { family: "sans", size: 10 },
              source: { uploadId: "upl_video" },
            },
          },
        ],
      },
    ]);
    const details = await problems(doc);
    const byPath = Object.fromEntries(details.map((d) => [d.path, d.message]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        "/tracks/0/clips/0/asset/type",
        "/tracks/0/clips/1/asset/uploadId",
        "/tracks/1/clips/0/asset/type",
        "/tracks/1/clips/1/asset/uploadId",
        "/tracks/1/clips/2/asset/uploadId",
        "/tracks/1/clips/3/trim",
        "/tracks/1/clips/4/asset",
        "/tracks/1/clips/5/asset/source/uploadId",
      ].sort(),
    );
    expect(byPath["/tracks/1/clips/1/asset/uploadId"]).toContain("not found");
    expect(byPath["/tracks/1/clips/2/asset/uploadId"]).toContain("is a image");
  });

  it("rejects duplicate ids, bad ducking references and unknown font families when families are given", async () => {
    const doc = body([
      { id: "trk_a", kind: "audio", ducking: { under: ["trk_a", "trk_x"] }, clips: [] },
      {
        id: "trk_a",
        kind: "video",
        clips: [
          {
            id: "c1",
            start: 0,
            duration: 1,
            asset: { type: "text", text: "hi", style: { family: "Comic Sans", size: 20 } },
          },
          { id: "c1", start: 1, duration: 1, asset: { type: "color", color: "#000000" } },
        ],
      },
    ]);
    let details: { path: string }[] = [];
    try {
      await validateComposition(doc, {
        lookupUpload,
        lookupTranscription,
        lookupFontFamilies: async () => ["Brand Sans"],
      });
    } catch (error) {
      details = (error as AppError).details ?? [];
    }
    expect(details.map((d) => d.path).sort()).toEqual([
      "/tracks/0/ducking/under/0",
      "/tracks/0/ducking/under/1",
      "/tracks/1/clips/0/asset/style/family",
      "/tracks/1/clips/1/id",
      "/tracks/1/id",
    ]);
  });
});
