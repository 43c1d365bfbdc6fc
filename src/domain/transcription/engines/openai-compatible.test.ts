import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TranscribeInput } from "../types.ts";
import { createOpenAiCompatibleTranscriber } from "./openai-compatible.ts";
import { languageCode } from "./whisper-response.ts";

let dir: string;
let input: TranscribeInput;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-oa-engine-"));
  const audioPath = path.join(dir, "a.wav");
  await writeFile(audioPath, Buffer.from("RIFF-not-really-audio"));
  input = {
    audioPath,
    duration: 3,
    language: undefined,
    workDir: dir,
    signal: new AbortController().signal,
    progress: () => {},
    vendorRequestId: null,
    onVendorRequest: async () => {},
  };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A `fetch` that answers each call with the next of `answers`, recording what it was sent. */
function scriptedFetch(answers: (() => Response)[]) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init });
    const next = answers[calls.length - 1];
    if (!next) throw new Error("no more answers");
    return next();
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const whisperCpp = {
  text: " Hello there.",
  language: "english",
  duration: 2.5,
  segments: [
    {
      id: 0,
      text: " Hello there.",
      start: 0.2,
      end: 1.4,
      words: [
        { word: " Hello", start: 0.2, end: 0.6, t_dtw: -1, probability: 0.9 },
        { word: " there.", start: 0.7, end: 1.4, t_dtw: -1, probability: 0.8 },
      ],
    },
  ],
};

describe("OpenAI-compatible transcriber", () => {
  it("sends its request through the fetch it is given, to <baseUrl>/audio/transcriptions", async () => {
    const { fetch, calls } = scriptedFetch([() => Response.json(whisperCpp)]);
    const engine = createOpenAiCompatibleTranscriber({
      model: "ggml-base",
      baseUrl: "http://whisper.invalid/v1/",
      apiKey: "sk-secret",
      fetch,
    });
    const result = await engine.transcribe({ ...input, language: "en" });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe("http://whisper.invalid/v1/audio/transcriptions");
    expect(calls[0]?.init?.headers).toEqual({ authorization: "Bearer sk-secret" });
    const form = calls[0]?.init?.body as FormData;
    expect(form.get("response_format")).toBe("verbose_json");
    expect(form.getAll("timestamp_granularities[]")).toEqual(["word", "segment"]);
    expect(form.get("language")).toBe("en");
    expect(result).toEqual({
      language: "en",
      duration: 2.5,
      segments: [
        {
          start: 0.2,
          end: 1.4,
          text: "Hello there.",
          words: [
            { start: 0.2, end: 0.6, text: "Hello", confidence: null },
            { start: 0.7, end: 1.4, text: "there.", confidence: null },
          ],
        },
      ],
    });
  });

  it("sends a request that failed with 503 once more, and a 400 never", async () => {
    const unavailable = () => Response.json({ error: { message: "busy" } }, { status: 503 });
    const retried = scriptedFetch([unavailable, () => Response.json(whisperCpp)]);
    const engine = (fetch: typeof globalThis.fetch) =>
      createOpenAiCompatibleTranscriber({
        model: "m",
        baseUrl: "http://x.invalid",
        apiKey: "k1",
        fetch,
        retryDelayMs: 0,
      });
    await expect(engine(retried.fetch).transcribe(input)).resolves.toMatchObject({ language: "en" });
    expect(retried.calls).toHaveLength(2);
    const twice = scriptedFetch([unavailable, unavailable]);
    await expect(engine(twice.fetch).transcribe(input)).rejects.toMatchObject({
      code: "engine_failed",
      retryable: true,
      message: "The transcription server answered 503: busy",
    });
    const refused = scriptedFetch([() => Response.json({ detail: "bad model k1" }, { status: 400 })]);
    await expect(engine(refused.fetch).transcribe(input)).rejects.toMatchObject({
      retryable: false,
      message: "The transcription server answered 400: bad model [redacted]",
    });
    expect(refused.calls).toHaveLength(1);
  });

  it("fails clearly on an answer that is not JSON", async () => {
    const { fetch } = scriptedFetch([() => new Response("<html>proxy error</html>")]);
    const engine = createOpenAiCompatibleTranscriber({
      model: "m",
      baseUrl: "http://x.invalid",
      apiKey: undefined,
      fetch,
    });
    await expect(engine.transcribe(input)).rejects.toMatchObject({
      code: "engine_failed",
      message: "The transcription server's answer is not JSON: <html>proxy error</html>",
    });
  });
});

describe("languageCode", () => {
  it("reads codes and the names Whisper servers give", () => {
    expect(
      ["en", "english", "French", "māori", "hebrew", "indonesian", "myanmar", "norwegian", "klingon"].map(
        languageCode,
      ),
    ).toEqual(["en", "en", "fr", "mi", "he", "id", "my", "no", undefined]);
  });
});
