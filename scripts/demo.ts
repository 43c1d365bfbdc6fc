/**
 * The whole Cutroom journey over HTTP against a running server:
 *
 *   CUTROOM_KEY=<write key> npm run demo -- [media files…]
 *
 * Creates a project, uploads the given files (or sample media it generates with ffmpeg: three
 * short clips of different sizes and frame rates with tone audio, a speech-like "voice" and a
 * music bed), builds a composition (title card, clips joined by crossfades, captions from cues,
 * music ducked under the voice), renders it with a progress bar, prints the output URL and
 * downloads the file to ./demo-output.mp4. Audio files among yours are used as the voice (the
 * first) and the music (the second; a single one is the music); whichever is missing is
 * generated as a synthetic tone and uploaded, and the output says which is which.
 *
 * Environment: CUTROOM_URL (default http://127.0.0.1:3000), CUTROOM_KEY (required, read+write),
 * DEMO_QUALITY (draft | standard | high, default standard), DEMO_OUTPUT (default ./demo-output.mp4).
 */
import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";

const run = promisify(execFile);
const BASE = (process.env.CUTROOM_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
const KEY = process.env.CUTROOM_KEY ?? "";
const QUALITY = process.env.DEMO_QUALITY ?? "standard";
const OUTPUT = path.resolve(process.env.DEMO_OUTPUT ?? "demo-output.mp4");

interface Upload {
  id: string;
  type: "video" | "audio" | "image" | "subtitle" | "font";
  name: string;
  media: { duration: number | null; width: number | null; height: number | null; fps: number | null } | null;
}

interface Render {
  id: string;
  status: string;
  attempt: number;
  progress: { ratio: number; phase: string; speed?: number; etaSeconds?: number };
  output: {
    url: string;
    duration: number;
    size: number;
    width?: number;
    height?: number;
    sha256: string;
  } | null;
  error: { code: string; message: string; clipId?: string } | null;
  warnings: { code: string; message: string; clipId?: string }[];
}

class ApiError extends Error {}

/** One API call; throws with the server's error message on a non-2xx answer. */
async function api<T>(method: string, url: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${KEY}` } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch(`${BASE}${url}`, init);
  } catch (err) {
    throw new ApiError(
      `Cannot reach ${BASE} (${(err as Error).cause ?? (err as Error).message}). Is the server running?`,
    );
  }
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const e = parsed?.error;
    const details =
      e?.details?.map((d: { path: string; message: string }) => `\n    ${d.path}: ${d.message}`).join("") ??
      "";
    throw new ApiError(`${method} ${url} → ${res.status} ${e?.code ?? ""}: ${e?.message ?? text}${details}`);
  }
  return { body: parsed as T, headers: res.headers };
}

const ff = (args: string[]) => run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args]);

// Voice: a voiced tone with syllable-rate amplitude and pitch movement, in phrases with pauses.
const VOICE_EXPR =
  "0.5*sin(2*PI*(150+30*sin(2*PI*2.5*t))*t + 0.8*sin(2*PI*300*t))" +
  "*(0.55+0.45*sin(2*PI*4.3*t))*gt(mod(t,3.2),0.7)*lt(mod(t,3.2),2.9)";
// Music bed: an A major chord over a low A, gently pulsing.
const MUSIC_EXPR =
  "0.09*(sin(2*PI*220*t)+sin(2*PI*277.18*t)+sin(2*PI*329.63*t)+0.5*sin(2*PI*110*t))" +
  "*(0.7+0.3*sin(2*PI*2*t))";

/** Writes the synthetic speech-like voice (10 s MP3) into `dir`; returns its path. */
async function makeVoice(dir: string): Promise<string> {
  const file = path.join(dir, "synthetic-voice.mp3");
  await ff([
    "-f",
    "lavfi",
    "-i",
    `aevalsrc='${VOICE_EXPR}':s=48000:d=10`,
    "-c:a",
    "libmp3lame",
    "-b:a",
    "128k",
    file,
  ]);
  return file;
}

/** Writes the synthetic music bed (16 s WAV) into `dir`; returns its path. */
async function makeMusic(dir: string): Promise<string> {
  const file = path.join(dir, "synthetic-music.wav");
  await ff(["-f", "lavfi", "-i", `aevalsrc='${MUSIC_EXPR}':s=48000:d=16`, "-c:a", "pcm_s16le", file]);
  return file;
}

/** Generates the sample clips: three clips whose sizes, rates and pictures differ, with tone audio. */
async function makeSamples(dir: string): Promise<string[]> {
  const p = (name: string) => path.join(dir, name);
  const x264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p"];
  const aac = ["-c:a", "aac", "-b:a", "128k", "-shortest"];
  await Promise.all([
    ff([
      ...["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=5"],
      ...["-f", "lavfi", "-i", "sine=f=440:d=5,volume=0.3"],
      ...x264,
      ...aac,
      p("clip-1-720p30.mp4"),
    ]),
    ff([
      ...["-f", "lavfi", "-i", "mandelbrot=s=960x540:r=25", "-t", "5"],
      ...["-f", "lavfi", "-i", "sine=f=554:d=5,volume=0.3"],
      ...x264,
      ...aac,
      p("clip-2-540p25.mp4"),
    ]),
    ff([
      ...[
        "-f",
        "lavfi",
        "-i",
        "life=s=320x240:mold=10:r=24:ratio=0.15:death_color=#203060:life_color=#f0c040",
        "-t",
        "5",
      ],
      ...["-f", "lavfi", "-i", "sine=f=659:d=5,volume=0.3"],
      "-vf",
      "scale=640:480:flags=neighbor",
      ...x264,
      ...aac,
      p("clip-3-480p24.mp4"),
    ]),
  ]);
  return ["clip-1-720p30.mp4", "clip-2-540p25.mp4", "clip-3-480p24.mp4"].map(p);
}

/** The voice and music uploads the composition uses. */
interface AudioRoles {
  voice: Upload;
  music: Upload;
}

/**
 * Picks the voice and the music among the uploaded audio files: with two or more, the first is
 * the voice and the second the music; a single one is the music. The roles left empty are for
 * the generated tones.
 */
function audioRoles(uploads: Upload[]): Partial<AudioRoles> {
  const audios = uploads.filter((u) => u.type === "audio");
  if (audios.length >= 2) return { voice: audios[0], music: audios[1] };
  return audios[0] ? { music: audios[0] } : {};
}

/** The demo composition from the uploads: title card, crossfaded clips, captions, voice, ducked music. */
function buildComposition(projectId: string, uploads: Upload[], { voice, music }: AudioRoles) {
  const visuals = uploads.filter((u) => u.type === "video" || u.type === "image");
  if (visuals.length === 0) throw new ApiError("Give at least one video or image file.");

  const TITLE = 3;
  const FADE = 1;
  const main: Record<string, unknown>[] = [
    {
      id: "title-card",
      name: "Title card",
      start: 0,
      duration: TITLE,
      asset: { type: "color", color: "#14213d" },
    },
  ];
  let at = TITLE;
  visuals.forEach((u, i) => {
    const length = u.media?.duration ?? 0;
    // Half a second of handle on each side for the centred crossfades when the source has it.
    const trim = u.type === "video" && length >= 3 ? 0.5 : 0;
    const duration = u.type === "image" ? 3 : Math.max(1, Math.min(4, length - 2 * trim));
    main.push({
      id: `clip-${i + 1}`,
      name: u.name,
      start: at,
      duration,
      ...(trim ? { trim } : {}),
      asset: { type: u.type, uploadId: u.id },
      fit: "cover",
      volume: 0.4,
      transition: { type: ["fade", "wipeleft", "dissolve", "circleopen"][i % 4], duration: FADE },
      ...(u.type === "image" ? { motion: { type: "zoomIn", amount: 0.15 } } : {}),
    });
    at += duration;
  });
  const end = at;
  const lines = [
    visuals.length === 1 ? "One clip on one timeline" : `${visuals.length} clips on one timeline`,
    visuals.length === 1 ? "after a title card" : "joined by crossfades",
    "captions come from cues",
    "and the music ducks under the voice",
  ];
  const span = (end - TITLE) / lines.length;
  const cues = lines.map((text, i) => ({ start: i * span + 0.2, end: (i + 1) * span - 0.2, text }));
  const tracks: Record<string, unknown>[] = [
    { id: "main", name: "Picture", kind: "video", clips: main },
    {
      id: "titles",
      name: "Titles",
      kind: "video",
      clips: [
        {
          id: "title",
          start: 0.3,
          duration: TITLE - 0.6,
          fadeIn: 0.4,
          fadeOut: 0.4,
          asset: {
            type: "text",
            text: "Cutroom\nrendered over HTTP",
            style: {
              family: "DejaVu Sans",
              size: 64,
              weight: 700,
              color: "#ffffff",
              align: "center",
              valign: "center",
            },
          },
        },
        {
          id: "captions",
          start: TITLE,
          duration: end - TITLE,
          asset: {
            type: "caption",
            style: {
              family: "DejaVu Sans",
              size: 34,
              color: "#ffffff",
              valign: "bottom",
              stroke: { color: "#000000", width: 2 },
              background: { color: "#00000099", padding: 8 },
            },
            source: { cues },
          },
        },
      ],
    },
  ];
  tracks.push(
    {
      id: "voice",
      name: "Voice",
      kind: "audio",
      clips: [
        {
          id: "voice-1",
          start: TITLE,
          duration: Math.min(voice.media?.duration ?? 8, end - TITLE),
          asset: { type: "audio", uploadId: voice.id },
        },
      ],
    },
    {
      id: "music",
      name: "Music",
      kind: "audio",
      volume: 0.8,
      ducking: { under: ["voice"], amountDb: 12 },
      clips: [
        {
          id: "music-1",
          start: 0,
          duration: Math.min(music.media?.duration ?? end, end),
          fadeIn: 1,
          fadeOut: 2,
          asset: { type: "audio", uploadId: music.id },
        },
      ],
    },
  );
  return {
    name: "Cutroom demo",
    projectId,
    canvas: { width: 1280, height: 720, fps: 30, background: "#000000" },
    tracks,
  };
}

/** Uploads files into the project in one request; returns the uploads in the files' order. */
async function uploadFiles(projectId: string, files: string[]): Promise<Upload[]> {
  const form = new FormData();
  form.append("projectId", projectId);
  for (const f of files) form.append("file", new Blob([await readFile(f)]), path.basename(f));
  return (await api<{ data: Upload[] }>("POST", "/api/v1/uploads", form)).body.data;
}

/**
 * The voice and music for the ducking: the uploaded audio files where there are any (see
 * {@link audioRoles}), the rest generated as synthetic tones and uploaded. Prints which is which.
 */
async function completeAudio(projectId: string, uploads: Upload[], dir: string): Promise<AudioRoles> {
  const found = audioRoles(uploads);
  const missing = [!found.voice ? makeVoice(dir) : undefined, !found.music ? makeMusic(dir) : undefined];
  const generated = await Promise.all(missing);
  const files = generated.filter((f): f is string => f !== undefined);
  const made = files.length > 0 ? await uploadFiles(projectId, files) : [];
  const voice = found.voice ?? (made.shift() as Upload);
  const music = found.music ?? (made.shift() as Upload);
  const origin = (u: Upload, what: string) =>
    found.voice === u || found.music === u ? `your file ${u.name}` : `generated ${what} (${u.name})`;
  process.stdout.write(`Voice    ${voice.id}  ${origin(voice, "speech-like tone, not real speech")}\n`);
  process.stdout.write(`Music    ${music.id}  ${origin(music, "chord bed")}, ducked 12 dB under the voice\n`);
  return { voice, music };
}

/** `[#########.........]  45%  rendering  2.3x  eta 4s` on one terminal line. */
function drawProgress(r: Render): void {
  const width = 30;
  const filled = Math.round(r.progress.ratio * width);
  const bar = `${"#".repeat(filled)}${".".repeat(width - filled)}`;
  const extra = [
    r.progress.speed ? `${r.progress.speed.toFixed(1)}x` : "",
    r.progress.etaSeconds !== undefined ? `eta ${Math.ceil(r.progress.etaSeconds)}s` : "",
    r.attempt > 1 ? `attempt ${r.attempt}` : "",
  ]
    .filter(Boolean)
    .join("  ");
  const line = `  [${bar}] ${String(Math.round(r.progress.ratio * 100)).padStart(3)}%  ${r.status.padEnd(10)} ${extra}`;
  if (process.stdout.isTTY) process.stdout.write(`\r${line.padEnd(78)}`);
  else process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  if (!KEY) {
    process.stderr.write(
      "CUTROOM_KEY is not set: give a read+write API key (the owner key printed at the server's first start,\n" +
        "or: npm run cli -- keys create --user owner@localhost --name demo --scopes read,write)\n",
    );
    process.exit(2);
  }
  const files = process.argv.slice(2);
  const work = await mkdtemp(path.join(tmpdir(), "cutroom-demo-"));
  try {
    let inputs = files.map((f) => path.resolve(f));
    if (inputs.length === 0) {
      process.stdout.write("Generating sample clips with ffmpeg…\n");
      inputs = await makeSamples(work);
    }

    const project = (
      await api<{ id: string }>("POST", "/api/v1/projects", { name: `Demo ${new Date().toISOString()}` })
    ).body;
    process.stdout.write(`Project  ${project.id}\n`);

    const uploads = await uploadFiles(project.id, inputs);
    for (const u of uploads) {
      const m = u.media;
      const facts = m
        ? [
            m.width && m.height ? `${m.width}x${m.height}` : "",
            m.fps ? `${m.fps} fps` : "",
            m.duration ? `${m.duration} s` : "",
          ]
            .filter(Boolean)
            .join(", ")
        : "";
      process.stdout.write(`Upload   ${u.id}  ${u.type.padEnd(6)} ${u.name}${facts ? `  (${facts})` : ""}\n`);
    }

    const roles = await completeAudio(project.id, uploads, work);
    const composition = (
      await api<{ id: string; version: number }>(
        "POST",
        "/api/compositions",
        buildComposition(project.id, uploads, roles),
      )
    ).body;
    process.stdout.write(`Timeline ${composition.id} (version ${composition.version})\n`);

    const started = Date.now();
    let r = (
      await api<Render>("POST", "/api/render", {
        compositionId: composition.id,
        compositionVersion: composition.version,
        output: { format: "mp4", quality: QUALITY },
      })
    ).body;
    process.stdout.write(`Render   ${r.id}\n`);
    for (;;) {
      const res = await api<Render>("GET", `/api/render/${r.id}`);
      r = res.body;
      drawProgress(r);
      if (["succeeded", "failed", "cancelled"].includes(r.status)) break;
      const wait = Number(res.headers.get("retry-after") ?? "1");
      await new Promise((resolve) => setTimeout(resolve, Math.max(0.2, wait) * 1000));
    }
    process.stdout.write("\n");
    for (const w of r.warnings)
      process.stdout.write(`  warning ${w.code}${w.clipId ? ` (${w.clipId})` : ""}: ${w.message}\n`);
    if (r.status !== "succeeded" || !r.output) {
      const e = r.error;
      throw new ApiError(
        `The render ${r.status}${e ? `: ${e.code}${e.clipId ? ` (clip ${e.clipId})` : ""}: ${e.message}` : ""}`,
      );
    }
    const o = r.output;
    process.stdout.write(
      `Done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${o.width}x${o.height}, ${o.duration.toFixed(2)} s, ${(o.size / 1e6).toFixed(2)} MB\n`,
    );
    process.stdout.write(`URL      ${o.url}\n`);
    const download = await fetch(o.url);
    if (!download.ok || !download.body)
      throw new ApiError(`Downloading the output failed: ${download.status}`);
    await pipeline(Readable.fromWeb(download.body as never), createWriteStream(OUTPUT));
    process.stdout.write(`File     ${OUTPUT}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stdout.write("\n");
  process.stderr.write(
    `demo: ${err instanceof ApiError ? err.message : ((err as Error).stack ?? String(err))}\n`,
  );
  process.exit(1);
});
