import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { clip } from "../../../test/fixtures/render/compositions.ts";
import { bundledFamilyNames, readFontFamilyNames, withFullUnicodeCmapFirst } from "../fonts/fonts.ts";
import { assColor, assTime, buildAss, escapeText } from "./ass.ts";
import { resolveFont } from "./resolve-font.ts";
import { parseSubtitles } from "./subtitle-parse.ts";
import { toFrameRate } from "./timeline.ts";
import { RenderError } from "./types.ts";

const base = {
  width: 320,
  height: 180,
  scale: 0.5,
  rate: toFrameRate(25),
  window: { start: 0, end: 100 },
  bandSeconds: 14,
  assets: new Map(),
  uploadedFonts: [],
};

describe("ASS helpers", () => {
  it("converts colours with alpha and opacity to &HAABBGGRR", () => {
    expect(assColor("#ff8000")).toBe("&H000080FF");
    expect(assColor("#ff800080")).toBe("&H7F0080FF");
    expect(assColor("#ffffff", 0.5)).toBe("&H80FFFFFF");
  });

  it("floors times to centiseconds so frame boundaries stay exact", () => {
    expect(assTime(0)).toBe("0:00:00.00");
    expect(assTime(1 / 30)).toBe("0:00:00.03");
    expect(assTime(3723.456)).toBe("1:02:03.45");
    expect(assTime(0.3)).toBe("0:00:00.30");
  });
});

describe("buildAss", () => {
  it("fades a text the window cuts on the clip's own times, not the cut's", () => {
    // Text on frames [10, 60) fading in and out over 0.4 s (10 frames), window [40, 55): the
    // event is drawn from 0 to 0.6 s of the window; its fade-in ran 1.2–0.8 s before it, its
    // fade-out ends 0.8 s after it.
    const item = {
      clip: clip({
        id: "t",
        start: 0.4,
        duration: 2,
        fadeIn: 0.4,
        fadeOut: 0.4,
        asset: { type: "text", text: "Hi", style: { family: "sans", size: 20 } },
      }),
      band: 0,
      startFrame: 10,
      endFrame: 60,
      lead: 0,
      tail: 0,
    };
    const cut = buildAss({ ...base, window: { start: 40, end: 55 }, clips: [item] });
    expect(cut.content).toContain("Dialogue: 0,0:00:00.00,0:00:00.60,c0,");
    expect(cut.content).toContain("\\fade(255,0,255,-1200,-800,400,800)}Hi");
    const whole = buildAss({ ...base, clips: [item] });
    expect(whole.content).toContain("Dialogue: 0,0:00:00.40,0:00:02.40,c0,");
    expect(whole.content).toContain("\\fad(400,400)}Hi");
  });

  it("lists the characters each clip draws with each font: emoji runs with the emoji font, the rest with the family", () => {
    const doc = buildAss({
      ...base,
      clips: [
        {
          clip: clip({
            id: "t",
            start: 0,
            duration: 1,
            asset: { type: "text", text: "Hi 🎉 中 Hi 👍🏽", style: { family: "sans", size: 20 } },
          }),
          band: 0,
          startFrame: 0,
          endFrame: 25,
          lead: 0,
          tail: 0,
        },
      ],
    });
    expect(doc.glyphs).toEqual([
      { clipId: "t", family: "Noto Emoji", path: expect.stringMatching(/NotoEmoji/), characters: "🎉👍🏽" },
      {
        clipId: "t",
        family: "DejaVu Sans",
        path: expect.stringMatching(/DejaVuSans\.ttf$/),
        characters: "Hi中",
      },
    ]);
  });

  it("positions text in its box, scales sizes, fades, escapes and switches emoji to the emoji font", () => {
    const doc = buildAss({
      ...base,
      clips: [
        {
          clip: clip({
            id: "t",
            start: 1,
            duration: 2,
            fadeIn: 0.5,
            transform: { x: 0.25, y: 0.75, width: 0.5, height: 0.5, rotate: 90 },
            asset: {
              type: "text",
              text: "a{b}\\c\nnext 🎉 1\u{FE0F}\u{20E3}",
              style: {
                family: "mono",
                size: 40,
                weight: 700,
                align: "left",
                valign: "top",
                color: "#ff0000",
                stroke: { color: "#000000", width: 4 },
                background: { color: "#00000080", padding: 10 },
              },
            },
          }),
          band: 1,
          startFrame: 25,
          endFrame: 75,
          lead: 0,
          tail: 0,
        },
      ],
    });
    expect(doc.content).toContain("PlayResX: 320\nPlayResY: 180");
    expect(doc.content).toContain(
      "Style: c0,DejaVu Sans Mono,20,&H000000FF,&H000000FF,&H00000000,&H7F000000,-1,0,0,0,100,100,0,0,4,2,5,5",
    );
    const dialogues = doc.content.split("\n").filter((l) => l.startsWith("Dialogue:"));
    expect(dialogues).toHaveLength(1);
    expect(dialogues[0]).toMatch(/^Dialogue: 0,0:00:15.00,0:00:17.00,c0,,0,160,0,,/);
    expect(dialogues[0]).toContain(
      "{\\an7\\pos(0,90)\\org(80,135)\\frz-90\\fad(500,0)}a\\{b\\}\\\u2060c\\Nnext {\\fnNoto Emoji}🎉{\\fnDejaVu Sans Mono} {\\fnNoto Emoji}1\u{FE0F}\u{20E3}{\\fnDejaVu Sans Mono}",
    );
    expect(doc.fonts.map((f) => f.family).sort()).toEqual(["DejaVu Sans Mono", "Noto Emoji"]);
    expect(doc.fonts.find((f) => f.family === "DejaVu Sans Mono")?.path).toMatch(/DejaVuSansMono-Bold\.ttf$/);
  });

  it("emits one event per cue, and per word in karaoke mode with the word highlighted", () => {
    const style = { family: "sans", size: 20, color: "#ffffff", highlightColor: "#ffff00" };
    const cues = [{ start: 10, end: 11, text: "one two" }];
    const staticDoc = buildAss({
      ...base,
      clips: [
        {
          clip: clip({ start: 0, duration: 4, trim: 9, asset: { type: "caption", style, source: { cues } } }),
          band: 0,
          startFrame: 0,
          endFrame: 100,
          lead: 0,
          tail: 0,
        },
      ],
    });
    expect(staticDoc.content).toMatch(
      /Dialogue: 0,0:00:01.00,0:00:02.00,c0,.*\\an2\\pos\(160,162\)}one two$/m,
    );
    const karaoke = buildAss({
      ...base,
      clips: [
        {
          clip: clip({
            start: 0,
            duration: 4,
            trim: 9,
            asset: { type: "caption", mode: "karaoke", style, source: { cues } },
          }),
          band: 0,
          startFrame: 0,
          endFrame: 100,
          lead: 0,
          tail: 0,
        },
      ],
    });
    const lines = karaoke.content.split("\n").filter((l) => l.startsWith("Dialogue:"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("0:00:01.00,0:00:01.52");
    expect(lines[0]).toContain("{\\1c&H0000FFFF}one{\\1c&H00FFFFFF} two");
    expect(lines[1]).toContain("one {\\1c&H0000FFFF}two{\\1c&H00FFFFFF}");
  });

  it("times karaoke from a transcription's spoken words, through trim and speed", () => {
    const style = { family: "sans", size: 20, color: "#ffffff", highlightColor: "#ffff00" };
    // Source seconds: a pause before "two" and another before "three".
    const words = [
      { start: 10, end: 10.4, text: "one" },
      { start: 10.8, end: 11.2, text: "two" },
      { start: 12, end: 12.4, text: "three" },
    ];
    const cues = [{ start: 10, end: 12.4, text: "one two three", words }];
    const item = (speed: number) => ({
      clip: clip({
        id: "cap",
        start: 1,
        duration: 4,
        trim: 9.6,
        speed,
        asset: { type: "caption", mode: "karaoke", style, source: { transcriptionId: "trn_1" } },
      }),
      band: 0,
      startFrame: 25,
      endFrame: 125,
      lead: 0,
      tail: 0,
    });
    const resolved = { path: "", type: "subtitle" as const, cues };
    const dialogue = (speed: number) =>
      buildAss({
        ...base,
        window: { start: 0, end: 200 },
        clips: [item(speed)],
        assets: new Map([["trn_1", resolved]]),
      })
        .content.split("\n")
        .filter((l) => l.startsWith("Dialogue:"))
        .map((l) => {
          const [, start, end] = l.split(",");
          const lit = /\{\\1c&H0000FFFF\}(\w+)/.exec(l)?.[1] ?? null;
          return { start, end, lit };
        });
    // Timeline = 1 + (source − 9.6) / speed, on 25 fps frames: "one" from 1.4 s, "two" from
    // 2.2 s (lit through the pause), "three" from 3.4 s to the cue's end at 3.8 s.
    expect(dialogue(1)).toEqual([
      { start: "0:00:01.40", end: "0:00:02.20", lit: "one" },
      { start: "0:00:02.20", end: "0:00:03.40", lit: "two" },
      { start: "0:00:03.40", end: "0:00:03.80", lit: "three" },
    ]);
    // At speed 2 the same words come twice as fast: 1.2, 1.6, 2.2, end 2.4.
    expect(dialogue(2)).toEqual([
      { start: "0:00:01.20", end: "0:00:01.60", lit: "one" },
      { start: "0:00:01.60", end: "0:00:02.20", lit: "two" },
      { start: "0:00:02.20", end: "0:00:02.40", lit: "three" },
    ]);
    // Not resolved (the render's assets step did not load it): a clear error naming the clip.
    expect(() => buildAss({ ...base, clips: [item(1)] })).toThrow(
      expect.objectContaining({ code: "ASSET_NOT_FOUND", clipId: "cap" }),
    );
  });

  it("reads captions from a resolved SRT upload and fails clearly when it is missing", () => {
    const srtClip = clip({
      id: "cap",
      start: 0,
      duration: 4,
      asset: { type: "caption", style: { family: "sans", size: 20 }, source: { uploadId: "upl_srt" } },
    });
    const item = { clip: srtClip, band: 0, startFrame: 0, endFrame: 100, lead: 0, tail: 0 };
    const doc = buildAss({
      ...base,
      clips: [item],
      assets: new Map([
        [
          "upl_srt",
          { path: "x.srt", type: "subtitle" as const, text: "1\n00:00:01,000 --> 00:00:02,000\nHi\n" },
        ],
      ]),
    });
    expect(doc.content).toMatch(/Dialogue: 0,0:00:01.00,0:00:02.00,.*}Hi$/m);
    expect(() => buildAss({ ...base, clips: [item] })).toThrow(
      expect.objectContaining({ code: "ASSET_NOT_FOUND", clipId: "cap" }),
    );
  });
});

describe("parseSubtitles", () => {
  it("parses SRT and WebVTT with markup, settings and CRLF", () => {
    expect(
      parseSubtitles(
        "\uFEFF1\r\n00:00:01,000 --> 00:00:02,500\r\n<b>Hello</b>\r\nworld\r\n\r\n2\r\n00:00:03,000 --> 00:00:02,000\r\nbad\r\n",
      ),
    ).toEqual([{ start: 1, end: 2.5, text: "Hello\nworld" }]);
    const vtt =
      "WEBVTT\n\nNOTE a comment\n\n00:01.000 --> 00:02.000 align:start\n<c.yellow>Hi</c> &amp; bye\n\ncue-2\n01:00:00.500 --> 01:00:01.000\nLate\n";
    expect(parseSubtitles(vtt)).toEqual([
      { start: 1, end: 2, text: "Hi & bye" },
      { start: 3600.5, end: 3601, text: "Late" },
    ]);
  });
});

describe("fonts", () => {
  it("resolves bundled families and aliases case-insensitively, picking the nearest face", () => {
    expect(resolveFont("dejavu sans", []).path).toMatch(/DejaVuSans\.ttf$/);
    expect(resolveFont("SERIF", [], { italic: true, weight: 700 }).path).toMatch(
      /DejaVuSerif-BoldItalic\.ttf$/,
    );
    expect(resolveFont("emoji", []).family).toBe("Noto Emoji");
    expect(bundledFamilyNames()).toEqual(
      expect.arrayContaining(["DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "Noto Emoji"]),
    );
  });

  it("prefers uploaded fonts and never falls back silently", () => {
    const uploaded = [{ family: "Brand Sans", path: "/u/brand.ttf", uploadId: "upl_f" }];
    expect(resolveFont("brand sans", uploaded)).toEqual({
      family: "Brand Sans",
      path: "/u/brand.ttf",
      source: "upload",
      uploadId: "upl_f",
    });
    try {
      resolveFont("Helvetica", uploaded, { clipId: "clp_x" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RenderError);
      expect(error).toMatchObject({ code: "FONT_NOT_FOUND", clipId: "clp_x" });
    }
  });

  it("gives libass the full Unicode character map first when a font lists the BMP-only one first", async () => {
    const emoji = await readFile(resolveFont("emoji", []).path);
    const fixed = withFullUnicodeCmapFirst(emoji);
    expect(fixed).toBeInstanceOf(Uint8Array);
    expect(fixed?.byteLength).toBe(emoji.byteLength);
    // The fixed copy needs nothing more, its family names are intact, and the original is untouched.
    expect(withFullUnicodeCmapFirst(fixed as Uint8Array)).toBeUndefined();
    expect(readFontFamilyNames(fixed as Uint8Array)).toContain("Noto Emoji");
    expect(withFullUnicodeCmapFirst(emoji)).toBeInstanceOf(Uint8Array);
    expect(withFullUnicodeCmapFirst(new Uint8Array([0, 1, 0, 0, 0, 0]))).toBeUndefined();
  });

  it("reads family names from a font file's name table", async () => {
    const data = await readFile(resolveFont("mono", []).path);
    expect(readFontFamilyNames(data)).toContain("DejaVu Sans Mono");
    expect(readFontFamilyNames(new Uint8Array([1, 2, 3]))).toEqual([]);
  });
});

describe("escapeText rendered by libass", () => {
  const run = promisify(execFile);
  const fontsDir = path.dirname(resolveFont("DejaVu Sans", [], { weight: 400, italic: false }).path);

  /** Ink bounding box (x0, y0, x1, y1) and pixels of one Dialogue text rendered white on black. */
  async function render(assText: string): Promise<{ width: number; height: number; pixels: Buffer }> {
    const dir = await mkdtemp(path.join(tmpdir(), "ass-escape-"));
    try {
      const file = path.join(dir, "t.ass");
      await writeFile(
        file,
        [
          "[Script Info]",
          "ScriptType: v4.00+",
          "PlayResX: 480",
          "PlayResY: 240",
          "[V4+ Styles]",
          "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
          "Style: s,DejaVu Sans,48,&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,0,0,5,0,0,0,1",
          "[Events]",
          "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
          `Dialogue: 0,0:00:00.00,0:00:01.00,s,,0,0,0,,${assText}`,
        ].join("\n"),
      );
      const { stdout } = await run(
        "ffmpeg",
        [
          ...["-v", "error", "-f", "lavfi", "-i", "color=black:s=480x240:d=0.1"],
          ...["-vf", `ass=t.ass:fontsdir=${fontsDir},format=gray`, "-frames:v", "1"],
          ...["-f", "rawvideo", "-"],
        ],
        { cwd: dir, encoding: "buffer" },
      );
      const box = [480, 240, -1, -1];
      for (let y = 0; y < 240; y++) {
        for (let x = 0; x < 480; x++) {
          if ((stdout[y * 480 + x] as number) < 128) continue;
          box[0] = Math.min(box[0] as number, x);
          box[1] = Math.min(box[1] as number, y);
          box[2] = Math.max(box[2] as number, x);
          box[3] = Math.max(box[3] as number, y);
        }
      }
      const [x0, y0, x1, y1] = box as [number, number, number, number];
      return { width: x1 - x0, height: y1 - y0, pixels: stdout };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("draws a backslash as a backslash, also before N, n, h and braces, on one line", async () => {
    // A trailing backslash is literal in libass: the reference glyph.
    const reference = await render("x\\");
    const escaped = await render(escapeText("x\\", undefined, "DejaVu Sans"));
    expect(escaped.pixels.equals(reference.pixels)).toBe(true);
    // Escape-looking pairs draw both characters, on one line: the same ink as the same characters
    // with the backslashes last (raw backslashes followed by backslashes are literal).
    const sameChars = await render(`${escapeText("Nnh{}", undefined, "DejaVu Sans")}\\\\\\\\\\`);
    const pairs = await render(escapeText("\\N\\n\\h\\{\\}", undefined, "DejaVu Sans"));
    expect(pairs.height).toBe(sameChars.height);
    expect(Math.abs(pairs.width - sameChars.width)).toBeLessThanOrEqual(4);
  });
});
