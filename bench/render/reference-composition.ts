/**
 * The reference render's inputs and composition, shared by `reference-render.ts` (through the
 * API) and `profile.ts` (ffmpeg alone, with a breakdown of where the time goes).
 */
import path from "node:path";
import type { ResolvedAsset } from "../../src/domain/render/types.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { ffmpeg } from "../../test/fixtures/render/media.ts";

/**
 * Generates the reference render's inputs into `dir` (H.264 + AAC clips, a PNG logo with alpha, a
 * voice MP3 and a music WAV), each long enough for a `seconds`-long composition. Returns the files
 * by key (`a`, `b`, `c`, `d`, `logo`, `voice`, `music`), the keys {@link referenceComposition} uses.
 */
export async function makeReferenceInputs(dir: string, seconds: number): Promise<Record<string, string>> {
  const len = seconds / 4 + 2; // each clip is used for seconds/4 plus handles
  const f = (name: string) => path.join(dir, name);
  const enc = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p"];
  const aac = ["-c:a", "aac", "-b:a", "128k", "-shortest"];
  const tone = (hz: number) => ["-f", "lavfi", "-i", `sine=f=${hz}:r=48000:d=${len},volume=0.3`];
  const voice =
    "0.5*sin(2*PI*(150+30*sin(2*PI*2.5*t))*t + 0.8*sin(2*PI*300*t))" +
    "*(0.55+0.45*sin(2*PI*4.3*t))*gt(mod(t,3.2),0.7)*lt(mod(t,3.2),2.9)";
  const music = "0.09*(sin(2*PI*220*t)+sin(2*PI*277.18*t)+sin(2*PI*329.63*t)+0.5*sin(2*PI*110*t))";
  // A clip: a lavfi video source, a tone, optional filters, H.264 + AAC.
  const lavfi = (graph: string, ...limit: string[]) => ["-f", "lavfi", "-i", graph, ...limit];
  const clip = (source: string[], hz: number, name: string, filters: string[] = []) =>
    ffmpeg([...source, ...tone(hz), ...filters, ...enc, ...aac, f(name)]);
  // Sequential: generating 4 clips in parallel on 2 cores gains nothing.
  await clip(lavfi(`testsrc2=s=1920x1080:r=30:d=${len}`), 440, "a-1080p30.mp4");
  await clip(lavfi("mandelbrot=s=1280x720:r=25", "-t", String(len)), 494, "b-720p25.mp4");
  await clip(lavfi(`testsrc=s=1080x1920:r=60:d=${len}`), 523, "c-portrait-1080x1920p60.mp4");
  await clip(
    lavfi("cellauto=s=480x270:rule=110:r=30000/1001:random_fill_ratio=0.5", "-t", String(len)),
    587,
    "d-540p2997.mp4",
    ["-vf", "scale=960:540:flags=neighbor"],
  );
  // A logo with real transparency: an orange square (90 % opaque) with a white centre on nothing.
  const inner = "between(X,200,399)*between(Y,200,399)";
  await ffmpeg([
    ...["-f", "lavfi", "-i", "color=c=black@0.0:s=600x600,format=rgba"],
    "-vf",
    `geq=r='255':g='if(${inner},255,170)':b='if(${inner},255,0)':a='if(between(X,100,499)*between(Y,100,499),230,0)'`,
    ...["-frames:v", "1", f("logo.png")],
  ]);
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    `aevalsrc='${voice}':s=48000:d=${seconds - 10}`,
    "-c:a",
    "libmp3lame",
    "-b:a",
    "128k",
    f("voice.mp3"),
  ]);
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    `aevalsrc='${music}':s=48000:d=${seconds}`,
    "-c:a",
    "pcm_s16le",
    f("music.wav"),
  ]);
  return {
    a: f("a-1080p30.mp4"),
    b: f("b-720p25.mp4"),
    c: f("c-portrait-1080x1920p60.mp4"),
    d: f("d-540p2997.mp4"),
    logo: f("logo.png"),
    voice: f("voice.mp3"),
    music: f("music.wav"),
  };
}

/**
 * The reference composition (`seconds` long, 1920x1080, 30 fps) over upload ids by input key
 * (see {@link makeReferenceInputs}): four clips joined by fade, wipeleft and dissolve, a PNG logo
 * with a zoom-in over the whole length, a title, burned captions, a voice and music ducked under it.
 */
export function referenceComposition(ids: Record<string, string>, seconds: number) {
  const q = seconds / 4;
  const clip = (n: number, key: string, transition?: string) => ({
    id: `clip-${key}`,
    start: n * q,
    duration: q,
    trim: 0.5,
    asset: { type: "video", uploadId: ids[key] },
    volume: 0.5,
    ...(transition ? { transition: { type: transition, duration: 1 } } : {}),
  });
  const cues = Array.from({ length: Math.floor((seconds - 4) / 3) }, (_, i) => ({
    start: i * 3,
    end: i * 3 + 2.6,
    text: `Caption line number ${i + 1} of the reference render`,
  }));
  return {
    name: "reference render",
    canvas: { width: 1920, height: 1080, fps: 30, background: "#000000" },
    tracks: [
      {
        id: "main",
        kind: "video",
        clips: [clip(0, "a"), clip(1, "b", "fade"), clip(2, "c", "wipeleft"), clip(3, "d", "dissolve")],
      },
      {
        id: "overlay",
        kind: "video",
        clips: [
          {
            id: "logo",
            start: 2,
            duration: seconds - 4,
            asset: { type: "image", uploadId: ids.logo },
            transform: { x: 0.88, y: 0.16, width: 0.14 },
            motion: { type: "zoomIn", amount: 0.2 },
            fadeIn: 0.5,
            fadeOut: 0.5,
          },
        ],
      },
      {
        id: "text",
        kind: "video",
        clips: [
          {
            id: "title",
            start: 0,
            duration: 4,
            fadeIn: 0.5,
            fadeOut: 0.5,
            asset: {
              type: "text",
              text: "Reference render",
              style: { family: "DejaVu Sans", size: 96, weight: 700 },
            },
          },
          {
            id: "captions",
            start: 4,
            duration: seconds - 4,
            asset: {
              type: "caption",
              style: {
                family: "DejaVu Sans",
                size: 44,
                valign: "bottom",
                stroke: { color: "#000000", width: 3 },
              },
              source: { cues },
            },
          },
        ],
      },
      {
        id: "voice",
        kind: "audio",
        clips: [
          { id: "vo", start: 5, duration: seconds - 10, asset: { type: "audio", uploadId: ids.voice } },
        ],
      },
      {
        id: "music",
        kind: "audio",
        volume: 0.8,
        ducking: { under: ["voice"], amountDb: 12 },
        clips: [
          {
            id: "mu",
            start: 0,
            duration: seconds,
            fadeOut: 2,
            asset: { type: "audio", uploadId: ids.music },
          },
        ],
      },
    ],
  };
}

/**
 * The reference inputs (`files`, from {@link makeReferenceInputs}) as a worker resolves them:
 * probed, by their input key, which also serves as their upload id (`ids`) in
 * {@link referenceComposition}: for planning a render with ffmpeg alone, without the API.
 */
export async function referenceAssets(files: Record<string, string>) {
  const assets = new Map<string, ResolvedAsset>();
  for (const [key, file] of Object.entries(files)) {
    const media = await probeMedia(file);
    const type = media.hasVideo ? (media.duration === null ? "image" : "video") : "audio";
    assets.set(key, { path: file, type, media });
  }
  const ids = Object.fromEntries(Object.keys(files).map((k) => [k, k]));
  return { assets, ids };
}
