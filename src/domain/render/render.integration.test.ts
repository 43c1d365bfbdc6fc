import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  audioAsset,
  canvas,
  clip,
  colorAsset,
  imageAsset,
  resolvedAudio,
  resolvedImage,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import {
  allFrames,
  type Frame,
  ffmpeg,
  frameAt,
  loudness,
  type MediaFixtures,
  makeMediaFixtures,
  meanVolume,
  probe,
  tempDir,
} from "../../../test/fixtures/render/media.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import type { Timeline, TransitionType } from "../composition/schema.ts";
import { TRANSITION_TYPES } from "../composition/schema.ts";
import { writePlanFiles } from "../render-jobs/write-plan-files.ts";
import { withoutFilterNames } from "./graph.ts";
import { buildRenderPlan, type RenderPlan } from "./plan.ts";
import type { RenderOutputOptions, RenderWarning, ResolvedAsset } from "./types.ts";

let dir = "";
let cleanup: () => Promise<void> = async () => {};
let fx: MediaFixtures;
let assets: Map<string, ResolvedAsset>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  fx = await makeMediaFixtures(dir);
  assets = new Map<string, ResolvedAsset>([
    ["upl_video", resolvedVideo(fx.video)],
    ["upl_red", resolvedVideo(fx.red)],
    ["upl_blue", resolvedVideo(fx.blueNoAudio, 3, false)],
    ["upl_ntsc", resolvedVideo(fx.ntsc, 2)],
    ["upl_vfr", resolvedVideo(fx.vfr, 2, false)],
    ["upl_rot", resolvedVideo(fx.rotated, 2, false, 90, 160)],
    ["upl_mono", resolvedAudio(fx.monoAudio)],
    ["upl_still", resolvedImage(fx.still)],
    ["upl_srt", { path: fx.srt, type: "subtitle", text: "1\n00:00:00,000 --> 00:00:01,000\nHello\n" }],
  ]);
});
afterAll(() => cleanup());

let renders = 0;
/** Plans, writes the plan's files and runs ffmpeg; returns the output path and the plan. */
async function render(
  composition: Timeline,
  output: Partial<RenderOutputOptions> = {},
): Promise<{ file: string; plan: RenderPlan; fileWarnings: RenderWarning[] }> {
  renders += 1;
  const format = output.format ?? "mp4";
  const work = join(dir, `r${renders}`);
  const plan = buildRenderPlan({
    composition,
    assets,
    output: { format, quality: "draft", ...output },
    outputPath: `out.${format}`,
    names: { assFile: "render.ass", fontsDir: "fonts" },
  });
  const fileWarnings = await writePlanFiles(plan, work);
  await runFfmpeg({ args: plan.args, cwd: work, durationSec: plan.durationSec, stallTimeoutMs: 30_000 });
  return { file: join(work, `out.${format}`), plan, fileWarnings };
}

const isRed = ([r, g, b]: [number, number, number]) => r > 180 && g < 70 && b < 70;
const isBlue = ([r, g, b]: [number, number, number]) => b > 180 && r < 70 && g < 70;

describe("render: mp4 end to end", () => {
  it("renders clips, an overlay, text and music with exact duration, size, fps and sound", async () => {
    const composition: Timeline = {
      canvas: canvas(160, 90, 25),
      tracks: [
        track("video", [
          clip({ start: 0, duration: 1.2, trim: 0.4, asset: videoAsset("upl_video") }),
          clip({
            start: 1.2,
            duration: 1.2,
            trim: 0.5,
            asset: videoAsset("upl_red"),
            transition: { type: "fade", duration: 0.4 },
          }),
        ]),
        track("video", [
          clip({
            start: 0.4,
            duration: 1,
            asset: imageAsset("upl_still"),
            transform: { x: 0.8, y: 0.25, width: 0.3 },
          }),
        ]),
        track("audio", [clip({ start: 0, duration: 2.4, asset: audioAsset("upl_mono"), volume: 0.5 })]),
      ],
    };
    const { file, plan } = await render(composition);
    const info = await probe(file, true);
    expect(Math.abs(info.duration - 2.4)).toBeLessThanOrEqual(1 / 25 + 0.03); // container padding of AAC
    expect(info.video).toMatchObject({ width: 160, height: 90, fps: 25, codec: "h264", frames: 60 });
    expect(info.audio).toEqual({ codec: "aac", sampleRate: 48000, channels: 2 });
    const level = await loudness(file);
    expect(level.integrated).toBeGreaterThan(-30);
    expect(level.integrated).toBeLessThan(-3);
    expect(level.peak).toBeLessThanOrEqual(0.5);
    expect(plan.warnings).toEqual([]);
  });

  it("draws text where the text is and nowhere before it", async () => {
    const composition: Timeline = {
      canvas: canvas(160, 90, 25),
      tracks: [
        track("video", [clip({ start: 0, duration: 2, asset: colorAsset("#000080") })]),
        track("video", [
          clip({
            start: 1,
            duration: 1,
            asset: {
              type: "text",
              text: "HELLO",
              style: { family: "DejaVu Sans", size: 30, color: "#ffffff", weight: 700 },
            },
          }),
        ]),
      ],
    };
    const { file } = await render(composition, { format: "mp4", quality: "high" });
    const frames = await allFrames(file, 160, 90);
    const bright = (f: Frame) => {
      let n = 0;
      for (let y = 30; y < 60; y++)
        for (let x = 20; x < 140; x++) if (f.pixel(x, y)[0] > 200 && f.pixel(x, y)[1] > 200) n++;
      return n;
    };
    expect(bright(frames[10] as Frame)).toBe(0);
    expect(bright(frames[37] as Frame)).toBeGreaterThan(150);
    // Outside the text box the background is untouched.
    expect((frames[37] as Frame).pixel(2, 2)[2]).toBeGreaterThan(100);
  });

  it("shows a mix of both clips at the cut of a transition, pure clips outside it", async () => {
    const composition: Timeline = {
      canvas: canvas(64, 36, 25),
      tracks: [
        track("video", [
          clip({ start: 0, duration: 1, asset: videoAsset("upl_red") }),
          clip({
            start: 1,
            duration: 1,
            asset: videoAsset("upl_blue"),
            transition: { type: "fade", duration: 0.4 },
          }),
        ]),
      ],
    };
    const { file } = await render(composition, { quality: "high" });
    const frames = await allFrames(file, 64, 36);
    expect(frames).toHaveLength(50);
    expect(isRed((frames[19] as Frame).pixel(32, 18))).toBe(true);
    const [r, , b] = (frames[25] as Frame).pixel(32, 18);
    expect(r).toBeGreaterThan(60);
    expect(b).toBeGreaterThan(60);
    expect(isBlue((frames[31] as Frame).pixel(32, 18))).toBe(true);
  });
});

describe("render: text glyphs and weights", () => {
  /** Renders `text` white on black (one PNG frame) and returns how many pixels are lit. */
  const ink = async (text: string, style: { family: string; weight?: number }) => {
    const { file, plan, fileWarnings } = await render(
      {
        canvas: canvas(160, 90, 25),
        tracks: [
          track("video", [
            clip({
              start: 0,
              duration: 1,
              asset: { type: "text", text, style: { size: 40, color: "#ffffff", ...style } },
            }),
          ]),
        ],
      },
      { format: "png" },
    );
    const frame = await frameAt(file, 0, 160, 90);
    let lit = 0;
    for (let y = 0; y < 90; y++) for (let x = 0; x < 160; x++) if (frame.pixel(x, y)[0] > 128) lit++;
    return { frame, lit, warnings: [...plan.warnings, ...fileWarnings] };
  };

  it("draws an emoji beyond U+FFFF inside Latin text with the emoji font, not an empty box", async () => {
    // U+1FFFD (reserved, pictographic) is in no font: the emoji font's empty box for a missing glyph.
    const missing = await ink("\u{1FFFD}", { family: "DejaVu Sans" });
    expect(missing.lit).toBeGreaterThan(20);
    for (const emoji of ["🎉", "🫠"]) {
      const drawn = await ink(emoji, { family: "DejaVu Sans" });
      expect(drawn.lit).toBeGreaterThan(100);
      expect(drawn.frame.diff(missing.frame)).toBeGreaterThan(2);
    }
    const inText = await ink("Hi 🎉", { family: "DejaVu Serif" });
    const plain = await ink("Hi", { family: "DejaVu Serif" });
    expect(inText.lit - plain.lit).toBeGreaterThan(100);
    expect(inText.warnings).toEqual([]);
  });

  it("warns GLYPH_MISSING, naming the clip and the characters, when neither the family nor the emoji font has a character", async () => {
    const { warnings } = await ink("Hi 中 🎉 \u{1FFFD}", { family: "DejaVu Sans" });
    expect(warnings).toHaveLength(2);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: "GLYPH_MISSING",
          message: expect.stringMatching(/^font "DejaVu Sans" has no glyph for 中 \(U\+4E2D\):/),
        }),
        expect.objectContaining({
          code: "GLYPH_MISSING",
          message: expect.stringMatching(/^font "Noto Emoji" has no glyph for \u{1FFFD} \(U\+1FFFD\):/u),
        }),
      ]),
    );
    expect(warnings.every((w) => typeof w.clipId === "string" && w.clipId.length > 0)).toBe(true);
  });

  it("draws weight 400 lighter than weight 700", async () => {
    const regular = await ink("HELLO", { family: "DejaVu Sans", weight: 400 });
    const bold = await ink("HELLO", { family: "DejaVu Sans", weight: 700 });
    expect(regular.lit).toBeGreaterThan(200);
    expect(regular.lit).toBeLessThan(bold.lit * 0.85);
  });
});

describe("render: captions", () => {
  it("sit inside the title-safe area by default: the lowest caption pixel is at least 8% of the height above the bottom", async () => {
    const { file } = await render(
      {
        canvas: canvas(320, 180, 25),
        tracks: [
          track("video", [
            clip({
              start: 0,
              duration: 1,
              asset: {
                type: "caption",
                style: { family: "sans", size: 16, color: "#ffffff" },
                source: { cues: [{ start: 0, end: 1, text: "Quite gjpqy" }] },
              },
            }),
          ]),
        ],
      },
      { format: "png", frameAt: 0.5 },
    );
    const frame = await frameAt(file, 0, 320, 180);
    let lowest = -1;
    for (let y = 0; y < 180; y++) for (let x = 0; x < 320; x++) if (frame.pixel(x, y)[0] > 128) lowest = y;
    expect(lowest).toBeGreaterThan(120);
    expect(180 - 1 - lowest).toBeGreaterThanOrEqual(0.08 * 180);
  });
});

describe("render: dissolve", () => {
  /** Mean and standard deviation of one channel over the whole frame. */
  const channel = (f: Frame, c: 0 | 1 | 2) => {
    const values: number[] = [];
    for (let y = 0; y < f.height; y++) for (let x = 0; x < f.width; x++) values.push(f.pixel(x, y)[c]);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
    return { mean, sd };
  };
  const cutOf = async (type: TransitionType) => {
    const { file } = await render(
      {
        canvas: canvas(64, 36, 25),
        tracks: [
          track("video", [
            clip({ start: 0, duration: 1, asset: colorAsset("#ff0000") }),
            clip({
              start: 1,
              duration: 1,
              asset: colorAsset("#0000ff"),
              transition: { type, duration: 0.4 },
            }),
          ]),
        ],
      },
      { quality: "high" },
    );
    return (await allFrames(file, 64, 36))[25] as Frame;
  };

  it("is a cross-dissolve: the frame at the cut is an even blend of both pictures, not noise", async () => {
    const mid = await cutOf("dissolve");
    const red = channel(mid, 0);
    const blue = channel(mid, 2);
    expect(red.mean).toBeGreaterThan(70);
    expect(red.mean).toBeLessThan(185);
    expect(blue.mean).toBeGreaterThan(70);
    expect(blue.mean).toBeLessThan(185);
    expect(red.sd).toBeLessThan(8);
    expect(blue.sd).toBeLessThan(8);
  });

  it("keeps ffmpeg's random-pixel dissolve as pixeldissolve", async () => {
    const mid = await cutOf("pixeldissolve");
    expect(channel(mid, 0).sd).toBeGreaterThan(40);
  });
});

describe("render: every transition type", () => {
  const types = [...TRANSITION_TYPES];
  let frames: Frame[] = [];
  const clipFrames = 10;

  beforeAll(async () => {
    // One render: alternating red/blue 0.4 s colour clips, the k-th cut using the k-th transition (0.2 s).
    const clips = [clip({ start: 0, duration: 0.4, asset: colorAsset(COLORS[0]) })];
    types.forEach((type, k) => {
      clips.push(
        clip({
          start: (k + 1) * 0.4,
          duration: 0.4,
          asset: colorAsset(COLORS[(k + 1) % 2] as string),
          transition: { type, duration: 0.2 },
        }),
      );
    });
    const { file } = await render(
      { canvas: canvas(64, 36, 25), tracks: [track("video", clips)] },
      { quality: "high" },
    );
    frames = await allFrames(file, 64, 36);
  });

  it("keeps the timeline length", () => {
    expect(frames).toHaveLength((types.length + 1) * clipFrames);
  });

  it.each(types)("%s is visible at its cut and gone outside its window", (type: TransitionType) => {
    const k = types.indexOf(type);
    const cut = (k + 1) * clipFrames;
    const from = pure(frames[cut - 3] as Frame);
    const to = pure(frames[cut + 3] as Frame);
    expect(from).toBe(k % 2 === 0 ? "red" : "blue");
    expect(to).toBe(k % 2 === 0 ? "blue" : "red");
    // Within the window [cut - 2, cut + 3) some frame is neither clip alone: blended, wiped, slid or
    // dipped (zoomin only zooms the outgoing picture before the cut, invisible on a flat colour).
    const inWindow = frames.slice(cut - 2, cut + 3);
    const mixed = inWindow.filter(
      (f) => f.diff(frames[cut - 3] as Frame) > 8 && f.diff(frames[cut + 3] as Frame) > 8,
    );
    expect(mixed.length).toBeGreaterThan(0);
  });
});

const COLORS = ["#ff0000", "#0000ff"] as const;
function pure(frame: Frame): "red" | "blue" | "mixed" {
  const points = [
    [2, 2],
    [61, 2],
    [32, 18],
    [2, 33],
    [61, 33],
  ].map(([x, y]) => frame.pixel(x as number, y as number));
  if (points.every(isRed)) return "red";
  if (points.every(isBlue)) return "blue";
  return "mixed";
}

describe("render: output formats", () => {
  const small = (): Timeline => ({
    canvas: canvas(160, 90, 25),
    tracks: [
      track("video", [clip({ start: 0, duration: 1, asset: videoAsset("upl_video") })]),
      track("video", [
        clip({
          start: 0,
          duration: 1,
          asset: { type: "caption", style: { family: "sans", size: 16 }, source: { uploadId: "upl_srt" } },
        }),
      ]),
    ],
  });

  it.each([
    ["webm", "matroska,webm", "vp9", "opus"],
    ["gif", "gif", "gif", undefined],
    ["mp3", "mp3", undefined, "mp3"],
    ["wav", "wav", undefined, "pcm_s16le"],
  ] as const)("%s", async (format, container, vcodec, acodec) => {
    const { file } = await render(small(), { format });
    const info = await probe(file);
    expect(info.formatName).toBe(container);
    expect(info.video?.codec).toBe(vcodec);
    expect(info.audio?.codec).toBe(acodec);
    expect(Math.abs(info.duration - 1)).toBeLessThanOrEqual(format === "mp3" ? 0.06 : 1 / 20 + 0.01);
    if (vcodec) expect(info.video).toMatchObject({ width: 160, height: 90 });
  });

  it("gif defaults to at most 480 px on the longer side and 15 fps, unless the output says otherwise", async () => {
    const wide = (): Timeline => ({
      canvas: canvas(960, 540, 30),
      tracks: [track("video", [clip({ start: 0, duration: 0.5, asset: colorAsset("#ff0000") })])],
    });
    const { file, plan } = await render(wide(), { format: "gif" });
    const info = (await probe(file, true)).video;
    expect(info).toMatchObject({ width: 480, height: 270, frames: 8 });
    // GIF delays are whole centiseconds: 15 fps is stored as alternating 6/7 cs frames.
    expect(Math.abs((info?.fps ?? 0) - 15)).toBeLessThan(0.5);
    expect(plan.output).toMatchObject({ width: 480, height: 270, fps: 15 });
    const { file: asked } = await render(wide(), { format: "gif", width: 640, fps: 10 });
    expect((await probe(asked, true)).video).toMatchObject({ width: 640, height: 360, fps: 10, frames: 5 });
  });

  it.each(["jpg", "png"] as const)("%s renders the frame at frameAt", async (format) => {
    const { file } = await render(small(), { format, frameAt: 0.5, width: 320 });
    const info = await probe(file);
    expect(info.video).toMatchObject({ width: 320, height: 180, codec: format === "jpg" ? "mjpeg" : "png" });
  });

  it("renders a range with the requested duration", async () => {
    const composition: Timeline = {
      canvas: canvas(160, 90, 25),
      tracks: [track("video", [clip({ start: 0, duration: 3, asset: videoAsset("upl_video") })])],
    };
    const { file } = await render(composition, { range: { start: 1, duration: 1.2 } });
    const info = await probe(file, true);
    expect(info.video?.frames).toBe(30);
    const first = await frameAt(file, 0, 160, 90);
    const full = await frameAt(fx.video, 1, 160, 90);
    expect(first.diff(full)).toBeLessThan(12);
  });
});

describe("regression: a still in a crossfade at a canvas rate other than 25 fps", () => {
  // The image demuxer's stream kept its default 25 fps while its timestamps followed the canvas,
  // and xfade refuses inputs whose frame rates differ: colour → image → video with transitions
  // failed at every canvas rate but 25.
  for (const fps of [24, 29.97, 30, 60] as const) {
    it(`renders colour → image → video with fade and wipeleft at ${fps} fps, every frame present`, async () => {
      const composition: Timeline = {
        canvas: canvas(160, 90, fps),
        tracks: [
          track("video", [
            clip({ start: 0, duration: 1, asset: colorAsset("#ff0000") }),
            clip({
              start: 1,
              duration: 1,
              asset: imageAsset("upl_still"),
              transition: { type: "fade", duration: 0.4 },
            }),
            clip({
              start: 2,
              duration: 1,
              asset: videoAsset("upl_blue"),
              transition: { type: "wipeleft", duration: 0.4 },
            }),
          ]),
        ],
      };
      const { file } = await render(composition);
      const info = await probe(file, true);
      expect(info.video?.frames).toBe(Math.round(3 * fps));
      expect(info.video?.fps).toBeCloseTo(fps, 2);
      // Midpoints: red, the green still, blue.
      expect(isRed((await frameAt(file, 0.5, 160, 90)).pixel(10, 10))).toBe(true);
      const [r, g, b] = (await frameAt(file, 1.5, 160, 90)).pixel(10, 10);
      expect(g).toBeGreaterThan(90);
      expect(r).toBeLessThan(70);
      expect(b).toBeLessThan(70);
      expect(isBlue((await frameAt(file, 2.7, 160, 90)).pixel(10, 10))).toBe(true);
    });
  }
});

describe("regression: a still with motion on an upper track", () => {
  // zoompan's output timestamps are not the canvas's: conforming with `fps` before rebuilding
  // them made `fps` repeat frames without end (a 12 s 1080p render grew past 20 GB).
  it("overlays a zooming image with fades for exactly its frames", async () => {
    const composition: Timeline = {
      canvas: canvas(160, 90, 30),
      tracks: [
        track("video", [clip({ start: 0, duration: 2, asset: colorAsset("#0000ff") })]),
        track("video", [
          clip({
            start: 0.5,
            duration: 1,
            asset: imageAsset("upl_still"),
            transform: { x: 0.8, y: 0.2, width: 0.3 },
            motion: { type: "zoomIn", amount: 0.2 },
            fadeIn: 0.2,
            fadeOut: 0.2,
          }),
        ]),
      ],
    };
    const { file } = await render(composition);
    const info = await probe(file, true);
    expect(info.video?.frames).toBe(60);
    expect(isBlue((await frameAt(file, 0.2, 160, 90)).pixel(128, 18))).toBe(true);
    const [r, g, b] = (await frameAt(file, 1, 160, 90)).pixel(118, 18);
    expect(g).toBeGreaterThan(90);
    expect(r + b).toBeLessThan(140);
  });
});

describe("render: odd inputs", () => {
  it("normalises VFR, 29.97 fps, rotated, silent, still and mono 44.1 kHz inputs onto a 30 fps canvas", async () => {
    const composition: Timeline = {
      canvas: canvas(160, 90, 30),
      tracks: [
        track("video", [
          clip({ start: 0, duration: 0.5, asset: videoAsset("upl_vfr") }),
          clip({ start: 0.5, duration: 0.5, asset: videoAsset("upl_ntsc") }),
          clip({ start: 1, duration: 0.5, asset: videoAsset("upl_rot"), fit: "contain" }),
          clip({ start: 1.5, duration: 0.5, asset: videoAsset("upl_blue") }),
          clip({ start: 2, duration: 0.5, asset: imageAsset("upl_still"), motion: { type: "zoomIn" } }),
        ]),
        track("audio", [clip({ start: 0, duration: 2.5, asset: audioAsset("upl_mono") })]),
      ],
    };
    const { file } = await render(composition);
    const info = await probe(file, true);
    expect(info.video).toMatchObject({ fps: 30, frames: 75, width: 160, height: 90 });
    expect(info.audio).toEqual({ codec: "aac", sampleRate: 48000, channels: 2 });
    expect(Math.abs(info.duration - 2.5)).toBeLessThan(1 / 30 + 0.03);
    // The rotated clip is portrait after autorotation: contained, so the sides show the black canvas.
    const rotated = await frameAt(file, 1.2, 160, 90);
    expect(Math.max(...rotated.pixel(5, 45))).toBeLessThan(40);
    expect(Math.max(...rotated.pixel(80, 45))).toBeGreaterThan(40);
  });

  it("honours a non-square sample aspect ratio: a square in an anamorphic source stays square with fit contain and cover", async () => {
    // Stored 96x96 with pixels twice as wide as tall (SAR 2:1): displayed 192x96, and the 16x32
    // stored white box is a 32x32 square on screen.
    const anamorphic = join(dir, "anamorphic.mp4");
    await ffmpeg([
      ...["-f", "lavfi", "-i", "color=c=black:s=96x96:r=25:d=1"],
      ...["-vf", "drawbox=x=40:y=32:w=16:h=32:color=white:t=fill,setsar=2/1"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", anamorphic],
    ]);
    assets.set("upl_anamorphic", resolvedVideo(anamorphic, 1, false, 192, 96));
    const whiteBox = (f: Frame) => {
      let [x0, y0, x1, y1] = [f.width, f.height, -1, -1];
      for (let y = 0; y < f.height; y++)
        for (let x = 0; x < f.width; x++)
          if (Math.min(...f.pixel(x, y)) > 128) {
            x0 = Math.min(x0, x);
            x1 = Math.max(x1, x);
            y0 = Math.min(y0, y);
            y1 = Math.max(y1, y);
          }
      return { w: x1 - x0 + 1, h: y1 - y0 + 1 };
    };
    for (const [fit, side] of [
      ["contain", 160 / 6],
      ["cover", 30],
    ] as const) {
      const { file } = await render(
        {
          canvas: canvas(160, 90, 25),
          tracks: [
            track("video", [clip({ start: 0, duration: 0.4, fit, asset: videoAsset("upl_anamorphic") })]),
          ],
        },
        { format: "png", quality: "high" },
      );
      const box = whiteBox(await frameAt(file, 0, 160, 90));
      expect(Math.abs(box.w - box.h), fit).toBeLessThanOrEqual(2);
      expect(Math.abs(box.w - side), fit).toBeLessThanOrEqual(2);
    }
  });

  it("ducks music under a voice track", async () => {
    const composition: Timeline = {
      canvas: canvas(64, 36, 25),
      tracks: [
        track("video", [clip({ start: 1, duration: 1, asset: videoAsset("upl_video") })], { id: "voice" }),
        track("audio", [clip({ start: 0, duration: 3, asset: audioAsset("upl_mono") })], {
          id: "music",
          ducking: { under: ["voice"], amountDb: 12 },
        }),
      ],
    };
    const { file } = await render(composition, { format: "wav" });
    // Music alone before the voice; with the voice on top, the mix must be less than voice + undiminished music.
    const before = await meanVolume(file, 0.2, 0.6);
    const after = await meanVolume(file, 2.4, 0.5);
    expect(before).toBeGreaterThan(-30);
    expect(Math.abs(after - before)).toBeLessThan(3);
    const { file: plain } = await render(
      { ...composition, tracks: composition.tracks.map((t) => ({ ...t, ducking: undefined })) } as Timeline,
      { format: "wav" },
    );
    const duckedDuring = await meanVolume(file, 1.3, 0.5);
    const plainDuring = await meanVolume(plain, 1.3, 0.5);
    expect(plainDuring - duckedDuring).toBeGreaterThan(0.5);
  });
});

describe("render: the opaque base track shortcut", () => {
  // The same composition rendered twice: once with the bottom track's videos known to be
  // alpha-less H.264 (the base shortcut: no background, no alpha, no overlay, lower tracks
  // skipped), once without that knowledge (the general path). The pictures must match.
  const composition = (): Timeline => ({
    canvas: canvas(160, 90, 25),
    tracks: [
      // Entirely hidden under the base track.
      track("video", [clip({ start: 0, duration: 3, asset: colorAsset("#00ff00") })]),
      track("video", [
        clip({ start: 0, duration: 1.5, asset: videoAsset("upl_video") }),
        clip({
          start: 1.5,
          duration: 1.5,
          asset: videoAsset("upl_red"),
          transition: { type: "wipeleft", duration: 0.6 },
        }),
      ]),
      track("video", [
        clip({
          start: 0.5,
          duration: 2,
          asset: imageAsset("upl_still"),
          transform: { x: 0.8, y: 0.2, width: 0.3 },
          fadeIn: 0.4,
        }),
      ]),
    ],
  });

  it("renders the same frames as the general path", async () => {
    const opaque = new Map(assets);
    for (const id of ["upl_video", "upl_red"]) {
      const a = assets.get(id) as ResolvedAsset;
      opaque.set(id, {
        ...a,
        media: { ...(a.media as NonNullable<ResolvedAsset["media"]>), videoCodec: "h264" },
      });
    }
    const general = buildRenderPlan({
      composition: composition(),
      assets,
      output: { format: "mp4" },
      outputPath: "x.mp4",
    });
    const shortcut = buildRenderPlan({
      composition: composition(),
      assets: opaque,
      output: { format: "mp4" },
      outputPath: "x.mp4",
    });
    const graph = (p: RenderPlan) => withoutFilterNames(p.args[p.args.indexOf("-filter_complex") + 1] ?? "");
    // General: the green track is the base (a solid colour is opaque), the videos overlay it.
    expect(graph(general)).toContain("0x00ff00");
    expect(graph(general).match(/overlay=/g)).toHaveLength(2);
    // Shortcut: the video track is the base; the green track under it is never drawn.
    expect(graph(shortcut)).not.toContain("0x00ff00");
    expect(graph(shortcut)).not.toContain("color=c=0x000000");
    expect(graph(shortcut).match(/overlay=/g)).toHaveLength(1);

    const a = await allFrames((await renderWith(composition(), assets)).file, 160, 90);
    const b = await allFrames((await renderWith(composition(), opaque)).file, 160, 90);
    expect(b).toHaveLength(75);
    expect(a).toHaveLength(75);
    const worst = Math.max(...a.map((f, i) => f.diff(b[i] as Frame)));
    expect(worst).toBeLessThan(2);
  });
});

/** Renders at `high` quality (close to lossless, so the comparison sees the graph, not the encoder). */
async function renderWith(composition: Timeline, with_: Map<string, ResolvedAsset>) {
  renders += 1;
  const work = join(dir, `r${renders}`);
  const plan = buildRenderPlan({
    composition,
    assets: with_,
    output: { format: "mp4", quality: "high" },
    outputPath: "out.mp4",
  });
  await writePlanFiles(plan, work);
  await runFfmpeg({ args: plan.args, cwd: work, durationSec: plan.durationSec, stallTimeoutMs: 30_000 });
  return { file: join(work, "out.mp4"), plan };
}
