// Every outbound client against a hostile peer: the fal queue, the assistant's and the
// transcription's OpenAI-compatible servers, a webhook receiver and a remote asset host. Each
// misbehaviour ends the call with a sentence, never a crash; the limits are lowered so that the
// slow cases end within a second or so.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLanguageModel, modelInfo } from "../../src/domain/assistant/model.ts";
import { modelErrorOf } from "../../src/domain/assistant/run.ts";
import { GenerationError } from "../../src/domain/generation/errors.ts";
import { createFalProvider } from "../../src/domain/generation/providers/fal.ts";
import { createOpenAiCompatibleTranscriber } from "../../src/domain/transcription/engines/openai-compatible.ts";
import { sendWebhook } from "../../src/domain/webhooks/send.ts";
import { fetchRemoteAsset } from "../../src/media/fetch-remote-asset.ts";
import { configureHttpClient } from "../../src/net/http-client.ts";
import {
  falQueueAnswers,
  HOSTILE_MODES,
  type HostileMode,
  type HostilePeer,
  jsonAnswer,
  startHostilePeer,
} from "../helpers/hostile-peer.ts";

/** The limits of these tests (the defaults are minutes). */
const LIMITS = {
  connectTimeoutMs: 1000,
  headersTimeoutMs: 1000,
  bodyTimeoutMs: 1000,
  requestTimeoutMs: 2500,
  maxHeaderBytes: 64 * 1024,
  maxResponseBytes: 4 * 1024 * 1024,
};

/** A 96-byte-header PNG stand-in: the PNG signature and 200 KiB of pixels. */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(200 * 1024, 7),
]);

let dir: string;
beforeAll(async () => {
  configureHttpClient(LIMITS);
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-hostile-"));
});
afterAll(async () => {
  configureHttpClient({});
  await rm(dir, { recursive: true, force: true });
});

/** Runs `fn`, and gives what it threw (as `Error`) or null. */
async function failure(fn: () => Promise<unknown>): Promise<Error | null> {
  try {
    await fn();
    return null;
  } catch (err) {
    return err as Error;
  }
}

/** The sentence each mode must produce (one alternative per client family). */
const SAYS: Record<HostileMode, RegExp> = {
  "well-behaved": /^$/,
  "close-mid-body":
    /closed the connection before the response was complete|does not match its Content-Length|JSON|terminated/i,
  "close-after-headers":
    /closed the connection before the response was complete|does not match its Content-Length|JSON/i,
  "http10-large-body": /^$/,
  drip: /sent no complete response headers within 1000 ms|No answer within|took longer than|did not answer within/,
  "oversized-headers": /response headers over the 65536 byte limit/,
  "length-too-long":
    /closed the connection before the response was complete|does not match its Content-Length/,
  "length-too-short": /JSON|parse/i,
  "gzip-bomb": /over the 4194304 byte limit|gzip-encoded/,
  "redirect-loop": /redirected too many times|More than 3 redirects|answered 302/,
};

describe("the fal queue as a hostile peer", () => {
  let peer: HostilePeer;
  const fal = () =>
    createFalProvider({
      apiKey: "fal-hostile-key-1a2b3c",
      queueUrl: peer.url,
      retries: 0,
      callTimeoutMs: 5000,
      downloadTimeoutMs: 5000,
    });
  const ref = { model: "fal-ai/flux/schnell", requestId: "" };
  beforeAll(async () => {
    peer = await startHostilePeer(
      falQueueAnswers({ status: 200, headers: { "content-type": "image/png" }, body: PNG }),
    );
  });
  afterAll(() => peer.close());

  /** Submit, poll and fetch the result of one image through the provider. */
  async function generate(): Promise<Buffer> {
    const provider = fal();
    const signal = AbortSignal.timeout(20_000);
    const requestId = await provider.submit(
      { kind: "image", model: ref.model, prompt: "a kite", imageSize: "square", numImages: 1 } as never,
      { signal },
    );
    await provider.status({ ...ref, requestId }, { signal });
    const out = await mkdtemp(path.join(dir, "fal-"));
    const files = await provider.result({ ...ref, requestId }, { dir: out, signal } as never);
    return readFile(files[0]?.path as string);
  }

  it("generates through a well-behaved peer and through HTTP/1.0 with large bodies", async () => {
    for (const mode of ["well-behaved", "http10-large-body"] as const) {
      peer.mode = mode;
      expect((await generate()).equals(PNG), mode).toBe(true);
    }
  });

  for (const mode of HOSTILE_MODES.filter((m) => m !== "http10-large-body")) {
    it(`fails a generation with a sentence when every answer is ${mode}`, async () => {
      peer.mode = mode;
      peer.mangles = () => true;
      const err = await failure(generate);
      expect(err).toBeInstanceOf(GenerationError);
      expect(err?.message).toMatch(/^fal (could not be reached|answered|did not answer)/);
      expect(err?.message).toMatch(SAYS[mode]);
      expect(err?.message).not.toContain("fal-hostile-key");
    });
  }

  for (const mode of ["close-mid-body", "length-too-long", "gzip-bomb", "drip"] as const) {
    it(`fails a generation with a sentence when the result file is ${mode}`, async () => {
      peer.mode = mode;
      peer.mangles = (req) => req.path.startsWith("/files/");
      const err = await failure(generate);
      peer.mangles = () => true;
      expect(err).toBeInstanceOf(GenerationError);
      expect(err?.message).toMatch(SAYS[mode]);
    });
  }
});

describe("the assistant's OpenAI-compatible server as a hostile peer", () => {
  let peer: HostilePeer;
  beforeAll(async () => {
    peer = await startHostilePeer((req) =>
      jsonAnswer(200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1_700_000_000,
        model: JSON.parse(req.body.toString("utf8") || "{}").model ?? "m",
        choices: [{ index: 0, message: { role: "assistant", content: "Done." }, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      }),
    );
  });
  afterAll(() => peer.close());
  const ask = () =>
    generateText({
      model: createLanguageModel(modelInfo("openai-compatible:local-model"), {
        model: "openai-compatible:local-model",
        baseUrl: `${peer.url}/v1`,
        apiKey: "assistant-hostile-key",
      }),
      prompt: "Cut the intro.",
      maxRetries: 0,
    });

  it("answers through a well-behaved peer and through HTTP/1.0 with a large body", async () => {
    for (const mode of ["well-behaved", "http10-large-body"] as const) {
      peer.mode = mode;
      expect((await ask()).text, mode).toBe("Done.");
    }
  });

  for (const mode of HOSTILE_MODES.filter((m) => m !== "http10-large-body")) {
    it(`fails a model call with a sentence when the server is ${mode}`, async () => {
      peer.mode = mode;
      const err = await failure(ask);
      expect(err).not.toBeNull();
      const said = modelErrorOf(err).message;
      expect(said).toMatch(/^The model (provider )?failed/);
      expect(said).toMatch(SAYS[mode]);
      expect(said).not.toContain("assistant-hostile-key");
    });
  }
});

/** One second of 16 kHz mono 16-bit silence as a WAV file. */
function silentWav(): Buffer {
  const data = Buffer.alloc(32_000);
  const head = Buffer.alloc(44);
  head.write("RIFF", 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write("WAVEfmt ", 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(16_000, 24);
  head.writeUInt32LE(32_000, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

describe("the transcription's OpenAI-compatible server as a hostile peer", () => {
  let peer: HostilePeer;
  let wav: string;
  beforeAll(async () => {
    wav = path.join(dir, "silence.wav");
    await writeFile(wav, silentWav());
    peer = await startHostilePeer(() =>
      jsonAnswer(200, {
        task: "transcribe",
        language: "english",
        duration: 1,
        text: "hello",
        segments: [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: 1,
            text: " hello",
            tokens: [1],
            temperature: 0,
            avg_logprob: -0.2,
            compression_ratio: 1,
            no_speech_prob: 0.01,
          },
        ],
        words: [{ word: "hello", start: 0.1, end: 0.5 }],
      }),
    );
  });
  afterAll(() => peer.close());
  const transcribe = () =>
    createOpenAiCompatibleTranscriber({
      model: "whisper-1",
      baseUrl: `${peer.url}/v1`,
      apiKey: "transcription-hostile-key",
    }).transcribe({
      audioPath: wav,
      duration: 1,
      language: undefined,
      workDir: dir,
      signal: AbortSignal.timeout(20_000),
      progress: () => {},
      vendorRequestId: null,
      onVendorRequest: async () => {},
    });

  it("transcribes through a well-behaved peer and through HTTP/1.0 with a large body", async () => {
    for (const mode of ["well-behaved", "http10-large-body"] as const) {
      peer.mode = mode;
      const result = await transcribe();
      expect(
        result.segments.map((s) => s.text.trim()),
        mode,
      ).toEqual(["hello"]);
    }
  });

  for (const mode of HOSTILE_MODES.filter((m) => m !== "http10-large-body")) {
    it(`fails a transcription with a sentence when the server is ${mode}`, async () => {
      peer.mode = mode;
      const err = await failure(transcribe);
      expect(err?.name).toBe("TranscriptionError");
      expect(err?.message).toMatch(
        /^The transcription server( answered| could not be reached|'s answer is not JSON)/,
      );
      expect(err?.message).toMatch(SAYS[mode]);
      expect(err?.message).not.toContain("transcription-hostile-key");
    });
  }
});

describe("a webhook receiver as a hostile peer", () => {
  let peer: HostilePeer;
  beforeAll(async () => {
    peer = await startHostilePeer(() => ({
      status: 200,
      headers: { "content-type": "text/plain" },
      body: "ok",
    }));
  });
  afterAll(() => peer.close());
  const deliver = () =>
    sendWebhook({
      url: `${peer.url}/hook`,
      secret: "whsec_aG9zdGlsZS1wZWVyLXNlY3JldA==",
      messageId: `msg_${randomUUID()}`,
      body: JSON.stringify({ type: "render.succeeded" }),
      now: new Date(),
      timeoutMs: 2500,
      policy: { allowHttp: true, refusal: () => null },
    });

  it("delivers to a well-behaved receiver, to an HTTP/1.0 one, and whatever a 2xx body holds", async () => {
    for (const mode of ["well-behaved", "http10-large-body", "length-too-short", "gzip-bomb"] as const) {
      peer.mode = mode;
      const result = await deliver();
      expect(result, mode).toMatchObject({ ok: true, status: 200, error: null });
    }
  });

  for (const mode of [
    "close-mid-body",
    "close-after-headers",
    "drip",
    "oversized-headers",
    "length-too-long",
  ] as const) {
    it(`records a failed try with a sentence when the receiver is ${mode}`, async () => {
      peer.mode = mode;
      const result = await deliver();
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(SAYS[mode]);
    });
  }

  it("does not follow a redirect loop: the try fails with the receiver's 302", async () => {
    peer.mode = "redirect-loop";
    expect(await deliver()).toMatchObject({ ok: false, status: 302, error: "The receiver answered 302" });
  });
});

describe("a remote asset host as a hostile peer", () => {
  let peer: HostilePeer;
  beforeAll(async () => {
    peer = await startHostilePeer(() => ({
      status: 200,
      headers: { "content-type": "image/png" },
      body: PNG,
    }));
  });
  afterAll(() => peer.close());
  const fetchAsset = async () => {
    const dest = path.join(dir, `asset-${randomUUID()}`);
    await fetchRemoteAsset(`${peer.url}/a.png`, dest, {
      maxBytes: 8 * 1024 * 1024,
      timeoutMs: 2500,
      allowHttp: true,
      refusal: () => null,
    });
    return readFile(dest);
  };

  it("fetches from a well-behaved host and from an HTTP/1.0 one", async () => {
    for (const mode of ["well-behaved", "http10-large-body"] as const) {
      peer.mode = mode;
      expect((await fetchAsset()).equals(PNG), mode).toBe(true);
    }
  });

  it("keeps the declared length of a Content-Length shorter than the body (HTTP framing cannot tell)", async () => {
    peer.mode = "length-too-short";
    expect((await fetchAsset()).equals(PNG.subarray(0, PNG.length - 10))).toBe(true);
  });

  for (const mode of HOSTILE_MODES.filter((m) => m !== "http10-large-body" && m !== "length-too-short")) {
    it(`fails the fetch with a sentence when the host is ${mode}`, async () => {
      peer.mode = mode;
      const err = await failure(fetchAsset);
      expect(err?.name).toBe("RemoteAssetError");
      expect(err?.message).toMatch(SAYS[mode]);
    });
  }
});
