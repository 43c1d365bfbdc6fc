// A smart render (copied GOPs joined to re-encoded seams) in Chromium's <video>: it plays to the
// end without a media error, and a seek to each seam shows the right frame. The source shows its
// frame number in binary (9 columns, white for 1), so a canvas read of the decoded picture says
// which source frame the browser drew, whatever its colour conversion.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import fastifyStatic from "@fastify/static";
import Fastify from "fastify";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import type { ResolvedAsset } from "../../src/domain/render/types.ts";
import { planRenderSmart, readSourceGops } from "../../src/domain/render-jobs/smart-render.ts";
import { tempDir } from "../fixtures/render/media.ts";
import { renderSmartPlan } from "../fixtures/render/smart-media.ts";

const run = promisify(execFile);
const W = 288;
const H = 160;
const FPS = 30;
/** Source frames of each take: both cut off keyframes (GOPs of 15 frames), so every take has two seams. */
const TAKES: [number, number][] = [
  [7, 131],
  [173, 262],
  [40, 101],
];

/** The few DOM members the page code uses (the test code has no DOM types). */
interface VideoLike {
  playbackRate: number;
  currentTime: number;
  duration: number;
  error: { code: number } | null;
  play(): Promise<void>;
  addEventListener(type: string, fn: () => void, opts?: { once: boolean }): void;
}
interface Context2DLike {
  drawImage(image: VideoLike, x: number, y: number, w: number, h: number): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}
interface DocumentLike {
  getElementById(id: string): unknown;
  createElement(tag: "canvas"): {
    width: number;
    height: number;
    getContext(kind: "2d", opts: { willReadFrequently: boolean }): Context2DLike;
  };
}
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let browser: Browser | undefined;
const app = Fastify();

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-smart-play-"));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  await app.register(fastifyStatic, { root: dir });
  app.get("/", (_req, reply) =>
    reply.type("text/html").send('<!doctype html><video id="v" src="/out.mp4" muted preload="auto"></video>'),
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app.close();
  await cleanup();
});

describe("smart render output in Chromium", () => {
  it("plays to the end and shows the right frame at every seam after a seek", async () => {
    const src = join(dir, "counter.mp4");
    await run("ffmpeg", [
      ...["-v", "error", "-y", "-f", "lavfi", "-i", `color=c=black:s=${W}x${H}:r=${FPS}:d=10,format=gray`],
      ...["-f", "lavfi", "-i", "sine=f=330:r=48000:d=10"],
      ...["-vf", "geq=lum='if(mod(floor(N/pow(2,floor(X/32))),2),235,16)',format=yuv420p"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-bf", "2"],
      ...["-g", "15", "-keyint_min", "15", "-sc_threshold", "0", "-x264-params", "open-gop=0"],
      ...["-c:a", "aac", "-shortest", src],
    ]);
    let at = 0;
    const clips = TAKES.map(([a, b], i) => {
      const clip = { id: `c${i}`, start: at / FPS, duration: (b - a) / FPS, trim: a / FPS };
      at += b - a;
      return { ...clip, asset: { type: "video", uploadId: "upl_counter" } };
    });
    const composition = {
      id: "cmp_play",
      name: "play",
      schemaVersion: 1,
      version: 1,
      canvas: { width: W, height: H, fps: FPS, background: "#000000" },
      tracks: [{ id: "v", kind: "video", name: "V", clips }],
    } as unknown as Timeline;
    const assets = new Map<string, ResolvedAsset>([
      [
        "upl_counter",
        { path: src, type: "video", media: { duration: 10, hasAudio: true, width: W, height: H, fps: FPS } },
      ],
    ]);
    const output = { format: "mp4" } as const;
    const { whole } = planRenderSmart({
      composition,
      options: output,
      assets,
      gops: await readSourceGops(composition, assets),
      minCopyFrames: 1,
    });
    const seams = whole.pieces.filter((p) => p.copy).flatMap((p) => [p.startFrame, p.endFrame]);
    expect(seams.length).toBeGreaterThanOrEqual(4);
    await renderSmartPlan({ composition, assets, output, plan: whole, workDir: dir });
    const expected = TAKES.flatMap(([a, b]) => Array.from({ length: b - a }, (_, k) => a + k));

    const page = await (browser as Browser).newPage();
    const address = app.server.address() as { port: number };
    await page.goto(`http://127.0.0.1:${address.port}/`);
    // Played through at 16× speed: it must end, with no media error on the way.
    const played = await page.evaluate(
      () =>
        new Promise<{ ended: boolean; error: number | null; duration: number }>((resolve) => {
          const v = (globalThis as unknown as { document: DocumentLike }).document.getElementById(
            "v",
          ) as VideoLike;
          v.playbackRate = 16;
          v.addEventListener("ended", () => resolve({ ended: true, error: null, duration: v.duration }));
          v.addEventListener("error", () =>
            resolve({ ended: false, error: v.error?.code ?? -1, duration: v.duration }),
          );
          void v.play();
        }),
    );
    expect(played).toMatchObject({ ended: true, error: null });
    expect(played.duration).toBeCloseTo(at / FPS, 1);

    // Each seam's last and first frame, read back after a seek to the middle of the frame.
    const frames = [...new Set(seams.flatMap((s) => [s - 1, s]).filter((f) => f >= 0 && f < at))];
    const shown = await page.evaluate(
      async ({ frames, fps, w, h }) => {
        const doc = (globalThis as unknown as { document: DocumentLike }).document;
        const v = doc.getElementById("v") as VideoLike;
        const canvas = doc.createElement("canvas");
        canvas.width = w;
        canvas.height = h;
        const ctx = canvas.getContext("2d", { willReadFrequently: true });
        const out: number[] = [];
        for (const f of frames) {
          await new Promise<void>((resolve) => {
            v.addEventListener("seeked", () => resolve(), { once: true });
            v.currentTime = (f + 0.5) / fps;
          });
          ctx.drawImage(v, 0, 0, w, h);
          let n = 0;
          for (let bit = 0; bit < 9; bit++) {
            if ((ctx.getImageData(bit * 32 + 16, h / 2, 1, 1).data[0] ?? 0) > 128) n += 2 ** bit;
          }
          out.push(n);
        }
        return out;
      },
      { frames, fps: FPS, w: W, h: H },
    );
    expect(shown).toEqual(frames.map((f) => expected[f]));
    await page.close();
  }, 120_000);
});
