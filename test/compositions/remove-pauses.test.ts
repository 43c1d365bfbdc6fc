// Silence and filler removal end to end: read speech (LibriVox utterances) with long and short
// pauses and hum-like fillers between them, uploaded as a talking-head video; its silences from
// the upload analysis (HTTP), its words as a transcription engine would time them (every
// stretch of sound, the fillers named "um"); `removePauses` on a composition playing it; the
// rendered file lasts what the expected cut list leaves, within 0.3 s.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removePauses } from "../../src/domain/composition/index.ts";
import { ffmpeg, probe, tempDir } from "../fixtures/render/media.ts";
import { talkingHeadVideo, utteranceFile } from "../fixtures/speech.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { hearWords, wavSeconds } from "../helpers/speech-stand-in.ts";
import { client, download, onServer, type RenderBody } from "../renders/helpers.ts";

const MIN_SILENCE = 0.75;
const PAD = 0.15;

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let uploadId = "";
let wav: Buffer;
/** Where the fillers start, seconds of the recording. */
const fillerStarts: number[] = [];

/**
 * Writes the recording: utterance, 1.6 s pause, utterance, 0.3 s, filler, 0.3 s, utterance,
 * 2.2 s, filler, 0.25 s, utterance (16 kHz mono). A filler is 0.45 s of a 140 Hz hum with
 * harmonics, faded in and out, about as loud as the speech.
 */
async function recording(): Promise<string> {
  const [a, b, c, d] = ["0870", "0880", "0890", "0920"].map(utteranceFile);
  const filler = path.join(dir, "um.wav");
  await ffmpeg([
    ...[
      "-f",
      "lavfi",
      "-i",
      "aevalsrc=0.15*sin(2*PI*140*t)+0.1*sin(2*PI*280*t)+0.05*sin(2*PI*420*t):s=16000:d=0.45",
    ],
    ...["-af", "afade=t=in:d=0.05,afade=t=out:st=0.4:d=0.05", "-ac", "1", "-c:a", "pcm_s16le", filler],
  ]);
  const gap = async (seconds: number) => {
    const file = path.join(dir, `gap-${seconds}.wav`);
    await ffmpeg(["-f", "lavfi", "-i", `anullsrc=r=16000:cl=mono:d=${seconds}`, "-c:a", "pcm_s16le", file]);
    return file;
  };
  const parts = [a, await gap(1.6), b, await gap(0.3), filler, await gap(0.3), c, await gap(2.2), filler];
  parts.push(await gap(0.25), d);
  let at = 0;
  for (const p of parts) {
    if (p === filler) fillerStarts.push(at);
    at += wavSeconds(await readFile(p as string));
  }
  const out = path.join(dir, "talk.wav");
  await ffmpeg([
    ...parts.flatMap((p) => ["-i", p as string]),
    ...["-filter_complex", `${parts.map((_, i) => `[${i}:a]`).join("")}concat=n=${parts.length}:v=0:a=1[a]`],
    ...["-map", "[a]", "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", out],
  ]);
  return out;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-pauses-"));
  const talk = await recording();
  wav = await readFile(talk);
  const video = await talkingHeadVideo(talk, path.join(dir, "talk.mp4"));
  t = await startTestApp({ worker: true, env: { RENDER_SEGMENT_SEC: "0" } });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  uploadId = (await api.upload([video]))[0]?.id ?? "";
}, 120_000);

afterAll(async () => {
  await t?.close();
  await cleanup();
});

describe("removePauses on generated speech", () => {
  it("renders as long as the expected cut list leaves (±0.3 s)", async () => {
    const analysis = await api.json("GET", `/api/v1/uploads/${uploadId}/analysis?silenceMinDuration=0.5`);
    expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
    const silences = analysis.body.silences.ranges as { start: number; end: number }[];
    const duration = wavSeconds(wav);
    // Words as an engine times them: each stretch of sound; the ones starting at a filler are "um".
    const words = hearWords(wav).map((w) => ({
      ...w,
      text: fillerStarts.some((f) => Math.abs(w.start - f) < 0.1) ? "um" : w.text,
    }));
    expect(words.filter((w) => w.text === "um")).toHaveLength(2);

    // The expected cut list, from the recording alone: every pause longer than the minimum
    // down to a pad on each side, and each filler with the pause before it down to a pad.
    const bounds = [{ end: 0 }, ...words.filter((w) => w.text !== "um"), { start: duration }];
    let expected = duration;
    for (let i = 1; i < bounds.length; i++) {
      const prev = bounds[i - 1] as { end: number };
      const next = bounds[i] as { start: number };
      const fillers = words.filter((w) => w.text === "um" && w.start >= prev.end && w.end <= next.start);
      const edge = i === 1 || i === bounds.length - 1 ? 1 : 2; // no speech before the start or after the end
      if (fillers.length === 0) {
        const gap = next.start - prev.end;
        if (gap > MIN_SILENCE) expected -= gap - edge * PAD;
        continue;
      }
      // prev … [pad] ✂ um ✂ … next: the filler and the pause before it go; the pause after stays.
      const last = fillers.at(-1) as { end: number };
      expected -= last.end - (prev.end + PAD);
      const after = next.start - last.end;
      if (after > MIN_SILENCE) expected -= after - 2 * PAD;
    }

    const composition = {
      name: "talk",
      canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
      tracks: [
        {
          id: "trk_talk",
          kind: "video" as const,
          clips: [{ id: "clp_talk", start: 0, duration, asset: { type: "video" as const, uploadId } }],
        },
      ],
    };
    const out = removePauses(composition, {
      uploadId,
      words,
      silences,
      minSilence: MIN_SILENCE,
      fillers: true,
      language: "en",
      pad: PAD,
    });
    expect(out.fillers.count).toBe(2);
    expect(out.silences.count).toBeGreaterThanOrEqual(1);
    expect(out.summary).toMatch(/^removed \d+ silences? and 2 fillers, \d+\.\d s$/);

    const started = await api.startRender({
      composition: out.composition,
      output: { format: "mp4", quality: "draft" },
    });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 120_000 })).at(-1) as RenderBody;
    expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
    const file = path.join(dir, "cut.mp4");
    await download(onServer(base, end.output?.url ?? ""), file);
    const rendered = (await probe(file)).duration;
    expect(
      Math.abs(rendered - expected),
      `rendered ${rendered} s, expected ${expected} s`,
    ).toBeLessThanOrEqual(0.3);
    expect(Math.abs(duration - out.removed.seconds - expected)).toBeLessThanOrEqual(0.3);
  }, 180_000);
});
