import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/render/media.ts";
import { post, uploadFile } from "../generation/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type StandInDialect, startTranscriptionServer } from "../helpers/openai-transcription-server.ts";
import { BURSTS, toneBursts, waitTranscribed } from "./helpers.ts";

let t: TestApp;
let owner: { userId: string; key: string };
let tmp: { dir: string; cleanup: () => Promise<void> };
let server: Awaited<ReturnType<typeof startTranscriptionServer>>;
let audio: { id: string };

beforeAll(async () => {
  server = await startTranscriptionServer();
  t = await startTestApp({
    worker: true,
    env: {
      TRANSCRIPTION_ENGINE: "openai-compatible:whisper-1",
      TRANSCRIPTION_BASE_URL: server.url,
      TRANSCRIPTION_API_KEY: "sk-stand-in-secret",
    },
  });
  owner = await t.createAccount();
  tmp = await tempDir("cutroom-trn-oa-");
  audio = await uploadFile(
    t,
    owner.key,
    await readFile(await toneBursts(path.join(tmp.dir, "bursts.wav"))),
    "bursts.wav",
  );
}, 60_000);
afterAll(async () => {
  await t.close();
  await server.close();
  await tmp.cleanup();
});

describe("OpenAI-compatible transcription engine (stand-in server)", () => {
  it("sends 16 kHz WAV with verbose_json word timestamps and keeps the server's words and segments", async () => {
    const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: audio.id, language: "en" });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({
      engine: { provider: "openai-compatible", model: "whisper-1", offline: false },
      quality: "standard",
    });
    const done = await waitTranscribed(t, owner.key, res.json().id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    const request = server.requests.at(-1);
    expect(request?.authorization).toBe("Bearer sk-stand-in-secret");
    expect(request?.fields).toMatchObject({
      model: ["whisper-1"],
      response_format: ["verbose_json"],
      language: ["en"],
    });
    expect(request?.fields["timestamp_granularities[]"]).toEqual(expect.arrayContaining(["word", "segment"]));
    expect(done.language).toBe("en");
    const words = done.segments.flatMap((s) => s.words);
    expect(words.map((w) => w.text)).toEqual(BURSTS.map((_, i) => `word${i + 1}`));
    words.forEach((w, i) => {
      const [start, end] = BURSTS[i] as [number, number];
      expect(Math.abs(w.start - start)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(w.end - end)).toBeLessThanOrEqual(0.02);
      expect(w.confidence).toBeNull();
    });
    // Segments as the server cut them (two words each), each holding its own words.
    expect(done.segments.map((s) => s.text)).toEqual(["word1 word2", "word3 word4"]);
    for (const s of done.segments) expect(s.words.map((w) => w.text).join(" ")).toBe(s.text);
  });

  it("passes the language asked for: the engine takes any language, not only English", async () => {
    const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: audio.id, language: "fr" });
    expect(res.statusCode).toBe(202);
    const done = await waitTranscribed(t, owner.key, res.json().id);
    expect(done.language).toBe("fr");
  });

  it("queues transcriptions at upload time with transcribe=<language>, in the uploads' transaction", async () => {
    const bytes = await readFile(path.join(tmp.dir, "bursts.wav"));
    const send = (transcribe: string) => {
      const boundary = "----cutroom-trn-boundary";
      const payload = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="transcribe"\r\n\r\n${transcribe}\r\n`,
        ),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return t.app.inject({
        method: "POST",
        url: "/api/v1/uploads",
        headers: { ...bearer(owner.key), "content-type": `multipart/form-data; boundary=${boundary}` },
        payload,
      });
    };
    const before = (await t.app.inject({ url: "/api/v1/uploads", headers: bearer(owner.key) })).json().data
      .length;
    const bad = await send("yes");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].path).toBe("/transcribe");
    // Nothing of the refused request is kept.
    expect(
      (await t.app.inject({ url: "/api/v1/uploads", headers: bearer(owner.key) })).json().data,
    ).toHaveLength(before);
    const res = await send("de");
    expect(res.statusCode, res.body).toBe(201);
    const [queued] = res.json().transcriptions;
    expect(queued).toMatchObject({ uploadId: res.json().data[0].id, status: "queued", language: "de" });
    const done = await waitTranscribed(t, owner.key, queued.id);
    expect(done.status).toBe("succeeded");
    expect(server.requests.at(-1)?.fields.language).toEqual(["de"]);
  });

  it("fails the transcription with the server's status, never echoing the key", async () => {
    const failing = await startTranscriptionServer({ failStatus: 400 });
    const other = await startTestApp({
      worker: true,
      env: {
        TRANSCRIPTION_ENGINE: "openai-compatible:whisper-1",
        TRANSCRIPTION_BASE_URL: failing.url,
        TRANSCRIPTION_API_KEY: "sk-stand-in-secret",
      },
    });
    try {
      const acct = await other.createAccount();
      const up = await uploadFile(other, acct.key, await readFile(path.join(tmp.dir, "bursts.wav")), "b.wav");
      const res = await post(other, acct.key, "/api/v1/transcriptions", { uploadId: up.id });
      const done = await waitTranscribed(other, acct.key, res.json().id);
      expect(done.status).toBe("failed");
      expect(done.error?.code).toBe("engine_failed");
      expect(done.error?.message).toContain("400");
      expect(JSON.stringify(done)).not.toContain("sk-stand-in-secret");
      // A 400 is not retried: one request.
      expect(failing.requests).toHaveLength(1);
      const get = await other.app.inject({
        url: `/api/v1/transcriptions/${done.id}`,
        headers: bearer(acct.key),
      });
      expect(get.json().status).toBe("failed");
    } finally {
      await other.close();
      await failing.close();
    }
  });
});

describe("OpenAI-compatible transcription: servers that are not OpenAI", () => {
  afterEach(() => server.use("openai"));

  /** Transcribes the tone bursts in English with the stand-in answering in `dialect`. */
  async function transcribeWith(dialect: StandInDialect) {
    server.use(dialect);
    const sent = server.requests.length;
    const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: audio.id, language: "en" });
    expect(res.statusCode, res.body).toBe(202);
    const done = await waitTranscribed(t, owner.key, res.json().id);
    return { done, requests: server.requests.length - sent };
  }

  /** The words of a transcript are the bursts, at their times. */
  function expectBurstWords(words: { start: number; end: number; text: string }[]) {
    expect(words.map((w) => w.text)).toEqual(BURSTS.map((_, i) => `word${i + 1}`));
    words.forEach((w, i) => {
      const [start, end] = BURSTS[i] as [number, number];
      expect(Math.abs(w.start - start)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(w.end - end)).toBeLessThanOrEqual(0.02);
    });
  }

  it.each(["whisper.cpp", "speaches", "plain"] as const)(
    "keeps the words and segments of a %s server",
    async (dialect) => {
      const { done } = await transcribeWith(dialect);
      expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
      expect(done.language).toBe("en");
      expect(done.segments.map((s) => s.text)).toEqual(["word1 word2", "word3 word4"]);
      for (const s of done.segments) expect(s.words.map((w) => w.text).join(" ")).toBe(s.text);
      expectBurstWords(done.segments.flatMap((s) => s.words));
    },
  );

  it("groups words into segments when a server gives words without segments", async () => {
    const { done } = await transcribeWith((words) => ({
      text: words.map((w) => w.text).join(" "),
      words: words.map((w) => ({ word: w.text, start: w.start, end: w.end })),
    }));
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.segments.map((s) => s.text)).toEqual(["word1 word2 word3 word4"]);
    expectBurstWords(done.segments.flatMap((s) => s.words));
  });

  it("keeps segments without words when a server gives no word times", async () => {
    const { done } = await transcribeWith((words) => ({
      text: words.map((w) => w.text).join(" "),
      segments: [0, 2].map((i, id) => ({
        id,
        start: words[i]?.start,
        end: words[i + 1]?.end,
        text: `${words[i]?.text} ${words[i + 1]?.text}`,
      })),
    }));
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.segments.map((s) => [s.text, s.words.length])).toEqual([
      ["word1 word2", 0],
      ["word3 word4", 0],
    ]);
    expect(Math.abs((done.segments[1]?.end ?? 0) - 4.6)).toBeLessThanOrEqual(0.02);
  });

  it("takes silence (empty text, no segments) as an empty transcript", async () => {
    const { done } = await transcribeWith(() => ({ text: "", segments: [], language: "english" }));
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.segments).toEqual([]);
  });

  it.each([
    ["text without timings", { text: "word1 word2 word3 word4" }, "without segment or word times"],
    ["an answer that is no transcription", { status: "ok" }, "not a transcription"],
    [
      "segments without times",
      { text: "word1", segments: [{ id: 0, text: "word1" }] },
      "without segment or word times",
    ],
  ])("fails a transcription on %s with a clear error, without retrying", async (_name, body, message) => {
    const { done, requests } = await transcribeWith(() => body);
    expect(done.status).toBe("failed");
    expect(done.error?.code).toBe("engine_failed");
    expect(done.error?.message).toContain(message);
    expect(requests).toBe(1);
  });
});
