// A composition's loudness target through the API: the rendered file, measured with ffmpeg's
// ebur128, is within 1 LU of the target with its true peak at or below the ceiling, for a
// quiet and a loud speech source, rendered in one piece and split into parts.
// postgres-pass: skip — measures the rendered sound; the render's rows and parts run on
// PostgreSQL in render.test.ts and split.test.ts.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../src/main/job-worker.ts";
import { ffmpeg, loudness as measure, probe, tempDir } from "../fixtures/render/media.ts";
import { speechTrack, talkingHeadVideo, utteranceFile } from "../fixtures/speech.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, type RenderBody } from "./helpers.ts";

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void> = async () => {};
const uploads = { quiet: "", loud: "" };
let seconds = 0;

/** Renders the source `uploadId` with a loudness target (split into 1 s parts or not); returns the file. */
async function render(uploadId: string, split: boolean, name: string): Promise<string> {
  const stop = await startWorker({ ...t.runtime, config: { ...t.config, renderSegmentSec: split ? 1 : 0 } });
  try {
    const started = await api.startRender({
      composition: {
        name,
        canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
        audio: { loudness: { integrated: -14, truePeak: -1 } },
        tracks: [
          { kind: "video", clips: [{ start: 0, duration: seconds, asset: { type: "video", uploadId } }] },
        ],
      },
      output: { format: "mp4", quality: "draft", reuse: false },
    });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 120_000 })).at(-1) as RenderBody;
    expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
    if (split) expect(end.segments?.total).toBeGreaterThan(1);
    else expect(end.segments ?? null).toBeNull();
    const file = path.join(dir, `${name}.mp4`);
    await download(onServer(base, end.output?.url ?? ""), file);
    return file;
  } finally {
    await stop();
  }
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-loudness-"));
  const speech = await speechTrack(
    [utteranceFile("0870"), utteranceFile("0880")],
    path.join(dir, "speech.wav"),
    0.4,
  );
  // Read speech at about −47 LUFS, and pushed to about −12 LUFS with its peaks at full scale.
  const level = async (name: string, filters: string) => {
    const wav = path.join(dir, `${name}.wav`);
    await ffmpeg(["-y", "-i", speech, "-af", filters, "-c:a", "pcm_s16le", wav]);
    return talkingHeadVideo(wav, path.join(dir, `${name}.mp4`));
  };
  const [quiet, loud] = await Promise.all([
    level("quiet", "volume=-22dB"),
    level("loud", "volume=16dB,alimiter=limit=1:level=0"),
  ]);
  seconds = Math.floor((await probe(quiet)).duration * 10) / 10;
  t = await startTestApp({ worker: false });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  const [q, l] = await api.upload([quiet, loud]);
  uploads.quiet = q?.id ?? "";
  uploads.loud = l?.id ?? "";
}, 120_000);

afterAll(async () => {
  await t?.close();
  await cleanup();
});

describe("loudness target of a composition", () => {
  it("the sources are far from the target", async () => {
    const quiet = await measure(path.join(dir, "quiet.mp4"));
    const loud = await measure(path.join(dir, "loud.mp4"));
    expect(quiet.integrated).toBeLessThan(-35);
    expect(loud.integrated).toBeGreaterThan(-13);
    expect(loud.truePeak).toBeGreaterThan(-1);
  });

  for (const split of [false, true]) {
    for (const source of ["quiet", "loud"] as const) {
      it(`${source} source, ${split ? "split" : "one-piece"} render: −14 LUFS ±1 LU, true peak ≤ −1 dBTP`, async () => {
        const file = await render(uploads[source], split, `${source}-${split ? "split" : "whole"}`);
        const got = await measure(file);
        expect(Math.abs(got.integrated - -14), JSON.stringify(got)).toBeLessThanOrEqual(1);
        expect(got.truePeak, JSON.stringify(got)).toBeLessThanOrEqual(-1);
      }, 120_000);
    }
  }
});
