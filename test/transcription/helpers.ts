// Shared helpers of the transcription tests: a talking-head fixture made from Debian's
// pocketsphinx-testdata LibriVox utterances, and polling.
import path from "node:path";
import { expect } from "vitest";
import { ffmpeg } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type FalStandIn, startFalStandIn } from "../helpers/fal-stand-in.ts";

/** Debian's pocketsphinx-testdata LibriVox utterances (16 kHz mono WAV) and their transcripts. */
export const LIBRIVOX_DIR = "/usr/share/pocketsphinx/test/data/librivox";
export const UTTERANCES = {
  "0870":
    "and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them",
  "0880": "he was not an ill disposed young man",
} as const;

/**
 * Writes a talking-head MP4 (test picture, AAC audio) of the utterances in order with `gapSec`
 * of silence before, between and after them. @returns its path.
 */
export async function talkingHead(
  dir: string,
  ids: (keyof typeof UTTERANCES)[],
  gapSec: number,
): Promise<string> {
  const out = path.join(dir, `talk-${ids.join("-")}.mp4`);
  const inputs: string[] = [];
  const labels: string[] = [];
  const gap = ["-f", "lavfi", "-t", String(gapSec), "-i", "anullsrc=r=16000:cl=mono"];
  let n = 0;
  inputs.push(...gap);
  labels.push(`[${n++}:a]`);
  for (const id of ids) {
    inputs.push("-i", path.join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`), ...gap);
    labels.push(`[${n++}:a]`, `[${n++}:a]`);
  }
  await ffmpeg([
    "-y",
    ...inputs,
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=320x180:rate=15",
    "-filter_complex",
    `${labels.join("")}concat=n=${labels.length}:v=0:a=1[a]`,
    "-map",
    `${n}:v`,
    "-map",
    "[a]",
    "-shortest",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-ar",
    "48000",
    out,
  ]);
  return out;
}

/** The Transcription resource as the tests read it. */
export interface TranscriptionJson {
  id: string;
  status: string;
  uploadId: string;
  engine: { provider: string; model: string; offline: boolean };
  quality: string;
  progress: number | null;
  language: string | null;
  duration: number | null;
  segments: {
    start: number;
    end: number;
    text: string;
    words: { start: number; end: number; text: string; confidence: number | null }[];
  }[];
  transcript: { start: number; end: number; text: string }[];
  error: { code: string; message: string } | null;
}

/** Polls `GET /api/v1/transcriptions/:id` until terminal. */
export async function waitTranscribed(t: TestApp, key: string, id: string): Promise<TranscriptionJson> {
  for (;;) {
    const res = await t.app.inject({ url: `/api/v1/transcriptions/${id}`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const body = res.json() as TranscriptionJson;
    if (["succeeded", "failed", "cancelled"].includes(body.status)) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Tone bursts of {@link toneBursts}: [start, end] seconds. */
export const BURSTS: [number, number][] = [
  [0.5, 1.1],
  [1.6, 2.0],
  [2.9, 3.7],
  [4.25, 4.6],
];

/** Writes 5 s of 16 kHz mono WAV with a 440 Hz tone during each of {@link BURSTS}. @returns `file`. */
export async function toneBursts(file: string): Promise<string> {
  const on = BURSTS.map(([s, e]) => `between(t,${s},${e - 1 / 16000})`).join("+");
  await ffmpeg([
    "-y",
    "-f",
    "lavfi",
    "-i",
    `aevalsrc=exprs='0.3*sin(2*PI*440*t)*(${on})':s=16000:d=5`,
    "-c:a",
    "pcm_s16le",
    file,
  ]);
  return file;
}

/**
 * Starts the fal stand-in and a test app with its worker whose transcription engine is fal
 * Whisper on that stand-in; `close` stops both.
 */
export async function startFalTranscriptionApp(): Promise<{
  t: TestApp;
  fal: FalStandIn;
  close(): Promise<void>;
}> {
  const fal = await startFalStandIn();
  const t = await startTestApp({
    worker: true,
    env: {
      TRANSCRIPTION_ENGINE: "fal",
      TRANSCRIPTION_API_KEY: "fal-stand-in-key",
      TRANSCRIPTION_BASE_URL: fal.url,
    },
  });
  return {
    t,
    fal,
    async close() {
      await t.close();
      await fal.close();
    },
  };
}
