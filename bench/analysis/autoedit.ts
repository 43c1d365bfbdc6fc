// Auto-edit on a long talking-head recording, through the API with the in-process worker and
// the offline engines: the LibriVox utterances of pocketsphinx-testdata looped (1 s apart) to
// the length asked under a still 1920×1080 picture (30 fps H.264). Measures
//   1. request → ranked candidates on the job (transcript + analysis + scoring), against the
//      recording's own length (target ≤ 1× real time);
//   2. the render of one 60 s 9:16 clip the job built (target ≤ 60 s).
// Usage: node bench/analysis/autoedit.ts [--minutes 10]
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ffmpeg, tempDir } from "../../test/fixtures/render/media.ts";
import { librivoxTranscripts, speechTrack, utteranceFile } from "../../test/fixtures/speech.ts";
import { uploadFile } from "../../test/generation/helpers.ts";
import { bearer, startTestApp } from "../../test/helpers/app.ts";

const { values } = parseArgs({ options: { minutes: { type: "string", default: "10" } } });
const seconds = Number(values.minutes) * 60;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const { dir, cleanup } = await tempDir("cutroom-autoedit-bench-");
const t = await startTestApp({ worker: true, env: { LOG_LEVEL: "warn" } });
try {
  const wavs = [...(await librivoxTranscripts()).keys()].map(utteranceFile);
  const loop = await speechTrack(wavs, path.join(dir, "loop.wav"), 1);
  const picture = path.join(dir, "face.png");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080", "-frames:v", "1", picture]);
  const video = path.join(dir, "talk.mp4");
  await ffmpeg([
    ...["-stream_loop", "-1", "-i", loop, "-loop", "1", "-framerate", "30", "-i", picture],
    ...["-t", String(seconds), "-map", "1:v", "-map", "0:a"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-ar", "48000", video],
  ]);
  // Unlimited quota: polling a long job would use up a free plan's daily calls.
  const { key } = await t.createAccount({ plan: "admin" });
  const upload = await uploadFile(t, key, await readFile(video), "talk.mp4");
  console.log(`${values.minutes} min 1920×1080 recording uploaded; load average before: ${load()}`);

  const get = async (url: string) =>
    // biome-ignore lint/suspicious/noExplicitAny: JSON of the API
    (await t.app.inject({ url, headers: bearer(key) })).json() as any;
  const t0 = performance.now();
  const created = await t.app.inject({
    method: "POST",
    url: "/api/v1/autoedit",
    headers: bearer(key),
    payload: { uploadIds: [upload.id], target: { aspectRatio: "9:16", maxDuration: 60, count: 1 } },
  });
  if (created.statusCode !== 202) throw new Error(`autoedit: ${created.statusCode} ${created.body}`);
  const id = created.json().id as string;
  let job = await get(`/api/v1/autoedits/${id}`);
  let tCandidates = 0;
  while (job.status === "queued" || job.status === "running") {
    if (!tCandidates && job.candidates.length > 0) tCandidates = performance.now();
    await new Promise((r) => setTimeout(r, 250));
    job = await get(`/api/v1/autoedits/${id}`);
  }
  const t1 = performance.now();
  if (job.status !== "succeeded") throw new Error(`autoedit ${job.status}: ${JSON.stringify(job.error)}`);
  tCandidates ||= t1;
  const toCandidates = tCandidates - t0;
  const made = job.compositions[0];
  const best = job.candidates[made.candidate];
  console.log(
    `candidates: ${job.candidates.length} in ${s(toCandidates)} = ${(toCandidates / 1000 / seconds).toFixed(3)}× real time (target ≤ 1×); best ${best.start}–${best.end} s, score ${best.score}; composition built ${s(t1 - tCandidates)} later (${made.steps.map((x: { summary: string }) => x.summary).join("; ")})`,
  );

  const comp = await get(`/api/compositions/${made.id}`);
  const t2 = performance.now();
  const render = await t.app.inject({
    method: "POST",
    url: "/api/render",
    headers: bearer(key),
    payload: { compositionId: made.id, output: { reuse: false } },
  });
  if (render.statusCode !== 202) throw new Error(`render: ${render.statusCode} ${render.body}`);
  let r = render.json();
  while (!["succeeded", "failed", "cancelled"].includes(r.status)) {
    await new Promise((res) => setTimeout(res, 250));
    r = await get(`/api/render/${r.id}`);
  }
  const t3 = performance.now();
  if (r.status !== "succeeded") throw new Error(`render ${r.status}: ${JSON.stringify(r.error)}`);
  const length = comp.tracks
    .flatMap((tr: { clips: { start: number; duration: number }[] }) => tr.clips)
    .reduce((m: number, c: { start: number; duration: number }) => Math.max(m, c.start + c.duration), 0);
  console.log(
    `render of the ${length.toFixed(1)} s ${comp.canvas.width}×${comp.canvas.height} clip: ${s(t3 - t2)} (target ≤ 60 s; estimate was ${made.estimate.renderSeconds} s)`,
  );
  console.log(`load average after: ${load()}`);
} finally {
  await t.close();
  await cleanup();
}
