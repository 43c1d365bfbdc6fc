// Offline transcription accuracy and speed: word error rate of the PocketSphinx engine on the
// LibriVox utterances of Debian's pocketsphinx-testdata, and its real-time factor (wall-clock
// decoding time / audio duration, model loading included) over those utterances.
// Usage: node bench/transcription/accuracy.ts
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { createPocketsphinxTranscriber } from "../../src/domain/transcription/engines/pocketsphinx.ts";
import { probe, tempDir } from "../../test/fixtures/render/media.ts";
import { librivoxTranscripts, speechTrack, utteranceFile } from "../../test/fixtures/speech.ts";
import { normalizeWords, wordErrors } from "./wer.ts";

const references = await librivoxTranscripts();
const engine = createPocketsphinxTranscriber();
let errors = 0;
let refWords = 0;
let audioSeconds = 0;
let wallMs = 0;
console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (const [id, reference] of references) {
  const file = utteranceFile(id);
  const duration = (await probe(file)).duration;
  const t0 = performance.now();
  const result = await engine.transcribe({
    audioPath: file,
    duration,
    language: "en",
    workDir: "/tmp",
    signal: new AbortController().signal,
    progress: () => {},
    vendorRequestId: null,
    onVendorRequest: async () => {},
  });
  const ms = performance.now() - t0;
  const hyp = result.segments.map((s) => s.text).join(" ");
  const ref = normalizeWords(reference);
  const e = wordErrors(ref, normalizeWords(hyp));
  errors += e;
  refWords += ref.length;
  audioSeconds += duration;
  wallMs += ms;
  console.log(
    `${id}: ${e}/${ref.length} errors, ${(ms / 1000).toFixed(2)} s for ${duration.toFixed(2)} s\n  ref: ${reference}\n  hyp: ${hyp}`,
  );
}
console.log(`WER ${((100 * errors) / refWords).toFixed(1)} % (${errors}/${refWords} words)`);
console.log(
  `RTF ${(wallMs / 1000 / audioSeconds).toFixed(3)} (${(wallMs / 1000).toFixed(1)} s for ${audioSeconds.toFixed(1)} s of audio)`,
);

// One continuous file of all utterances (1 s gaps): the engine's speed without a model load per
// utterance. CPU time of the decoder child from /proc/self/stat (cutime + cstime, 100 Hz ticks).
const childCpuSeconds = async () => {
  const fields = (await readFile("/proc/self/stat", "utf8")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) / 100;
};
const { dir, cleanup } = await tempDir("cutroom-asr-bench-");
try {
  const joined = path.join(dir, "all.wav");
  const ids = [...references.keys()];
  await speechTrack(ids.map(utteranceFile), joined, 1);
  const duration = (await probe(joined)).duration;
  const cpu0 = await childCpuSeconds();
  const t0 = performance.now();
  const result = await engine.transcribe({
    audioPath: joined,
    duration,
    language: "en",
    workDir: dir,
    signal: new AbortController().signal,
    progress: () => {},
    vendorRequestId: null,
    onVendorRequest: async () => {},
  });
  const wall = (performance.now() - t0) / 1000;
  const cpu = (await childCpuSeconds()) - cpu0;
  const ref = ids.flatMap((id) => normalizeWords(references.get(id) as string));
  const e = wordErrors(ref, normalizeWords(result.segments.map((s) => s.text).join(" ")));
  console.log(
    `one file of ${duration.toFixed(1)} s: WER ${((100 * e) / ref.length).toFixed(1)} %, wall RTF ${(wall / duration).toFixed(3)}, CPU RTF ${(cpu / duration).toFixed(3)} (${cpu.toFixed(1)} s CPU)`,
  );
} finally {
  await cleanup();
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
