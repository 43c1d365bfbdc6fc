// Upload → transcript → chapters for a talking-head video with the offline engine: the
// LibriVox utterances of pocketsphinx-testdata looped (1 s apart) to the length asked, muxed
// with a 320×180 test picture, sent through the API with the in-process worker.
// Usage: node bench/transcription/footage-to-chapters.ts [--minutes 10]
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { tempDir } from "../../test/fixtures/render/media.ts";
import {
  librivoxTranscripts,
  speechTrack,
  talkingHeadVideo,
  utteranceFile,
} from "../../test/fixtures/speech.ts";
import { uploadFile } from "../../test/generation/helpers.ts";
import { startTestApp } from "../../test/helpers/app.ts";
import { waitTranscribed } from "../../test/transcription/helpers.ts";

const { values } = parseArgs({ options: { minutes: { type: "string", default: "10" } } });
const seconds = Number(values.minutes) * 60;
const { dir, cleanup } = await tempDir("cutroom-asr-e2e-");
const t = await startTestApp({ worker: true, env: { LOG_LEVEL: "warn" } });
try {
  const wavs = [...(await librivoxTranscripts()).keys()].map(utteranceFile);
  const loop = await speechTrack(wavs, path.join(dir, "loop.wav"), 1);
  const video = await talkingHeadVideo(loop, path.join(dir, "talk.mp4"), seconds);
  // Unlimited quota: polling a long transcription would use up a free plan's daily calls.
  const { key } = await t.createAccount({ plan: "admin" });
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const t0 = performance.now();
  const upload = await uploadFile(t, key, await readFile(video), "talk.mp4");
  const t1 = performance.now();
  const created = await t.app.inject({
    method: "POST",
    url: "/api/v1/transcriptions",
    headers: { authorization: `Bearer ${key}` },
    payload: { uploadId: upload.id },
  });
  const done = await waitTranscribed(t, key, created.json().id);
  const t2 = performance.now();
  const chapters = await t.app.inject({
    method: "POST",
    url: "/api/v1/chapters/detect",
    headers: { authorization: `Bearer ${key}` },
    payload: { transcript: done.transcript, duration: done.duration },
  });
  const t3 = performance.now();
  if (done.status !== "succeeded" || chapters.statusCode !== 200) {
    throw new Error(`failed: ${done.status} ${JSON.stringify(done.error)} / ${chapters.statusCode}`);
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `${values.minutes} min: upload ${s(t1 - t0)}, transcript ${s(t2 - t1)} (${done.segments.length} segments), chapters ${s(t3 - t2)} (${chapters.json().chapters.length}); total ${s(t3 - t0)}`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await t.close();
  await cleanup();
}
