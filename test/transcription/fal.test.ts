import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTranscriptionById } from "../../src/db/repositories/transcriptions.ts";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { post, uploadFile } from "../generation/helpers.ts";
import { bearer, type TestApp } from "../helpers/app.ts";
import type { FalStandIn } from "../helpers/fal-stand-in.ts";
import { waitFor } from "../renders/helpers.ts";
import { BURSTS, startFalTranscriptionApp, toneBursts, waitTranscribed } from "./helpers.ts";

let t: TestApp;
let fal: FalStandIn;
let stack: Awaited<ReturnType<typeof startFalTranscriptionApp>>;
let owner: { userId: string; key: string };
let tmp: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  stack = await startFalTranscriptionApp();
  ({ t, fal } = stack);
  owner = await t.createAccount();
  tmp = await tempDir("cutroom-trn-fal-");
}, 60_000);
afterAll(async () => {
  await stack.close();
  await tmp.cleanup();
});

describe("fal Whisper transcription engine (stand-in queue)", () => {
  it("submits the audio to fal-ai/whisper with word chunks, polls the queue and groups words into sentences", async () => {
    const file = await toneBursts(path.join(tmp.dir, "bursts.wav"));
    const audio = await uploadFile(t, owner.key, await readFile(file), "bursts.wav");
    const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: audio.id });
    expect(res.statusCode, res.body).toBe(202);
    const done = await waitTranscribed(t, owner.key, res.json().id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done).toMatchObject({
      engine: { provider: "fal", model: "fal-ai/whisper", offline: false },
      quality: "standard",
      language: "en",
    });
    const request = fal.requests.at(-1);
    expect(request?.model).toBe("fal-ai/whisper");
    expect(request?.authorization).toBe("Key fal-stand-in-key");
    expect(request?.input).toMatchObject({ task: "transcribe", chunk_level: "word" });
    expect(String(request?.input.audio_url)).toMatch(/^data:audio\/wav;base64,UklGR/);
    // Polled until COMPLETED (IN_QUEUE, IN_PROGRESS, COMPLETED).
    expect(request?.polls).toBe(fal.pollsBeforeDone + 1);
    // Words at the bursts' times; a sentence ends every third word.
    const words = done.segments.flatMap((s) => s.words);
    expect(words).toHaveLength(BURSTS.length);
    words.forEach((w, i) => {
      expect(Math.abs(w.start - (BURSTS[i] as [number, number])[0])).toBeLessThanOrEqual(0.02);
      expect(Math.abs(w.end - (BURSTS[i] as [number, number])[1])).toBeLessThanOrEqual(0.02);
    });
    expect(done.segments.map((s) => s.text)).toEqual(["word1 word2 word3.", "word4"]);
  });

  it("cancelling a transcription cancels its request at fal", async () => {
    const file = await toneBursts(path.join(tmp.dir, "cancel.wav"));
    const audio = await uploadFile(t, owner.key, await readFile(file), "cancel.wav");
    fal.behaviourFor = () => "never_finishes";
    try {
      const before = fal.requests.length;
      const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: audio.id });
      expect(res.statusCode, res.body).toBe(202);
      const request = await waitFor(async () => fal.requests[before], 30_000);
      expect(request.model).toBe("fal-ai/whisper");
      // Recorded on the transcription (the worker stores the request id before polling).
      await waitFor(
        async () => (await findTranscriptionById(t.database.db, res.json().id))?.vendorRequestId,
        30_000,
      );
      const cancel = await t.app.inject({
        method: "DELETE",
        url: `/api/v1/transcriptions/${res.json().id}`,
        headers: bearer(owner.key),
      });
      expect(cancel.json().status).toBe("cancelled");
      // The API cancelled it at fal before answering.
      expect(request.cancelled).toBe(true);
      expect((await waitTranscribed(t, owner.key, res.json().id)).status).toBe("cancelled");
    } finally {
      fal.behaviourFor = () => "normal";
    }
  });

  it("cancelling a transcription cut into chunks cancels every chunk's request at fal", async () => {
    // 6 minutes: two chunks of at most 5 minutes, submitted at once (two at a time).
    const file = path.join(tmp.dir, "long.m4a");
    await ffmpeg([
      "-y",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=360",
      "-ac",
      "1",
      "-c:a",
      "aac",
      "-b:a",
      "24k",
      file,
    ]);
    const audio = await uploadFile(t, owner.key, await readFile(file), "long.m4a");
    fal.behaviourFor = () => "never_finishes";
    try {
      const before = fal.requests.length;
      const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: audio.id });
      expect(res.statusCode, res.body).toBe(202);
      const chunks = await waitFor(
        async () => (fal.requests.length >= before + 2 ? fal.requests.slice(before) : null),
        60_000,
      );
      const cancel = await t.app.inject({
        method: "DELETE",
        url: `/api/v1/transcriptions/${res.json().id}`,
        headers: bearer(owner.key),
      });
      expect(cancel.json().status).toBe("cancelled");
      // No single request id is recorded: the worker cancels its chunks' requests as it stops.
      await waitFor(async () => chunks.every((r) => r.cancelled), 30_000);
      expect((await waitTranscribed(t, owner.key, res.json().id)).status).toBe("cancelled");
    } finally {
      fal.behaviourFor = () => "normal";
    }
  }, 120_000);
});
