import { describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import type { Composition, MediaAsset } from "../composition/schema.ts";
import type { ResolvedMedia } from "./common.ts";
import { parseEdl } from "./edl.ts";
import { compositionToEdl, edlToComposition } from "./edl-convert.ts";

/** The message of the 400 a parse throws. */
function refusal(text: string, fps = 24): string {
  try {
    parseEdl(text, fps);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).message;
  }
  throw new Error("expected a 400");
}

const HEAD = "TITLE: t\nFCM: NON-DROP FRAME\n\n";
const CUT = "001  AX       V     C        00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00\n";

describe("EDL parsing", () => {
  it("reads locators with and without a colour word, and audio channels", () => {
    const edl = parseEdl(
      `${HEAD}${CUT}* LOC: 01:00:00:12 RED     Logo reveal\n* LOC: 01:00:00:18 no colour here\n` +
        "002  AX       A2    C        00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00\n",
      24,
    );
    expect(edl.locators).toEqual([
      { frame: 86_412, color: "RED", label: "Logo reveal", line: "line 5" },
      { frame: 86_418, color: "", label: "no colour here", line: "line 6" },
    ]);
    expect(edl.events.map((e) => e.channels)).toEqual(["V", "A2"]);
  });

  it("names the event or line of what it cannot read", () => {
    expect(refusal(`${HEAD}${CUT}002  AX  V  C  01:00:00:00\n`)).toMatch(/^event 002: cannot read/);
    expect(refusal(`${HEAD}${CUT.replace("00:00:01:00 01", "00:00:01:30 01")}`)).toMatch(/^event 001: /);
    expect(refusal(`${HEAD}${CUT}* LOC: 01:00:00:31 RED late\n`)).toMatch(/^line 5: /);
    expect(refusal(`${HEAD}M2   AX       048.0                00:00:00:00\n`)).toMatch(/^line 4: an M2 line/);
    expect(refusal(HEAD)).toMatch(/has no events/);
  });
});

describe("EDL freeze frames", () => {
  const video = { type: "video", uploadId: "upl_a" } as const;
  const composition = {
    id: "cmp_1",
    projectId: null,
    name: "Freeze",
    schemaVersion: 1,
    version: 1,
    createdAt: "",
    updatedAt: "",
    canvas: { width: 640, height: 360, fps: 25, background: "#000000" },
    tracks: [
      {
        id: "trk_1",
        kind: "video",
        clips: [
          { id: "a", name: "a.mov", start: 0, duration: 2, trim: 1, asset: video },
          {
            id: "b",
            name: "a.mov",
            start: 2,
            duration: 1.6,
            trim: 2.4,
            freeze: true,
            asset: video,
            transition: { type: "dissolve", duration: 0.4 },
          },
          {
            id: "c",
            name: "a.mov",
            start: 3.6,
            duration: 1,
            trim: 3,
            asset: video,
            transition: { type: "dissolve", duration: 0.4 },
          },
        ],
      },
    ],
  } as Composition;
  const media = (_: MediaAsset): ResolvedMedia => ({
    name: "a.mov",
    targetUrl: "",
    path: null,
    duration: null,
    uploadId: "upl_a",
  });
  const read = (text: string) =>
    edlToComposition(parseEdl(text, 25), 25, () => ({ uploadId: "upl_a", uploadType: "video" }), {});
  const clips = (text: string) =>
    read(text).body.tracks[0]?.clips.map(({ start, duration, trim, speed, freeze, transition }) => ({
      start,
      duration,
      trim,
      speed,
      freeze,
      transition,
    }));

  it("writes a frozen clip as M2 000.0 on its held frame and reads it back frozen", () => {
    const text = compositionToEdl(composition, media, 0);
    const lines = text.split("\r\n");
    // The dissolve into the freeze: its source is the held frame (2.4 s = 00:00:02:10) and the next.
    expect(lines).toContain("002  AX       V     D    010 00:00:02:10 00:00:02:11 01:00:01:20 01:00:03:10");
    expect(lines).toContain("M2   AX       000.0                00:00:02:10");
    // The dissolve out of it starts from the held frame too.
    expect(lines).toContain("003  AX       V     C        00:00:02:10 00:00:02:10 01:00:03:10 01:00:03:10");
    const back = clips(text);
    expect(back).toEqual(
      composition.tracks[0]?.clips.map(({ start, duration, trim, speed, freeze, transition }) => ({
        start,
        duration,
        trim,
        speed,
        freeze,
        transition,
      })),
    );
    expect(read(text).warnings).toEqual([]);
    // import → export → import: the same cut list again.
    const again = compositionToEdl({ ...composition, ...read(text).body } as Composition, media, 0);
    expect(clips(again)).toEqual(back);
  });

  it("reads M2 000.0 on an audio event as a warning, not a freeze", () => {
    const text = `${HEAD}001  AX       A     C        00:00:01:00 00:00:01:01 01:00:00:00 01:00:01:00\nM2   AX       000.0                00:00:01:00\n`;
    const { body, warnings } = read(text);
    expect(body.tracks[1]?.clips[0]?.freeze).toBeUndefined();
    expect(warnings).toEqual([
      {
        path: "event 001",
        message: "M2 0 (freeze frame) not carried: only a video clip can be frozen, not an audio event",
      },
    ]);
  });
});
