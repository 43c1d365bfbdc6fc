/**
 * Any server that speaks OpenAI's `POST /v1/audio/transcriptions` (OpenAI itself, faster-whisper
 * and whisper.cpp servers, vLLM, LocalAI…) at TRANSCRIPTION_BASE_URL. Asks for `verbose_json`
 * with word and segment timestamps and reads the answer leniently ({@link readWhisperAnswer}):
 * servers differ in the fields beside text and times. Servers that give no word times yield
 * segments without words.
 */

import { readFile } from "node:fs/promises";
import { sleep } from "../../../clock.ts";
import { httpFetch } from "../../../net/http-client.ts";
import {
  type TranscribeInput,
  type Transcriber,
  TranscriptionError,
  type TranscriptResult,
} from "../types.ts";
import { readWhisperAnswer } from "./whisper-response.ts";

/** Options of {@link createOpenAiCompatibleTranscriber}. */
export interface OpenAiCompatibleOptions {
  /** The model name the server knows (`whisper-1`, `Systran/faster-whisper-large-v3`…). */
  model: string;
  /** Base URL of the API, ending before `/audio/transcriptions` (e.g. `http://127.0.0.1:8000/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never logged. */
  apiKey: string | undefined;
  /** The `fetch` that sends the requests (default: the process's HTTP client, `httpFetch`). */
  fetch?: typeof httpFetch | undefined;
  /** Wait before the one retry of a request that failed in a retryable way, ms (default 2000). */
  retryDelayMs?: number | undefined;
}

/** Largest part of a failed answer's body quoted in the error, characters. */
const QUOTED_CHARS = 300;

/**
 * The OpenAI-compatible transcriber. Chunks stay under OpenAI's 25 MB upload limit
 * (10 minutes of 16 kHz mono 16-bit WAV is 19.2 MB). A request that fails in a way another
 * attempt may fix (no answer, 408, 429, 5xx) is sent once more.
 */
export function createOpenAiCompatibleTranscriber(opts: OpenAiCompatibleOptions): Transcriber {
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/audio/transcriptions`;
  const send = opts.fetch ?? httpFetch;
  const retryDelayMs = opts.retryDelayMs ?? 2000;
  const redact = (s: string) => (opts.apiKey ? s.split(opts.apiKey).join("[redacted]") : s);

  /** One request; resolves with the parsed JSON body of a 2xx answer. */
  async function request(audio: Buffer, language: string | undefined, signal: AbortSignal): Promise<unknown> {
    const form = new FormData();
    form.append("model", opts.model);
    form.append("file", new File([new Uint8Array(audio)], "audio.wav", { type: "audio/wav" }));
    form.append("response_format", "verbose_json");
    form.append("timestamp_granularities[]", "word");
    form.append("timestamp_granularities[]", "segment");
    if (language) form.append("language", language);
    let res: Response;
    let text: string;
    try {
      res = await send(url, {
        method: "POST",
        body: form,
        headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {},
        signal,
      });
      text = await res.text();
    } catch (err) {
      signal.throwIfAborted();
      throw new TranscriptionError(
        "engine_failed",
        redact(`The transcription server could not be reached: ${String((err as Error)?.message ?? err)}`),
        { cause: err, retryable: true },
      );
    }
    if (!res.ok) {
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      throw new TranscriptionError(
        "engine_failed",
        redact(`The transcription server answered ${res.status}: ${errorMessage(text)}`),
        { retryable },
      );
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new TranscriptionError(
        "engine_failed",
        redact(`The transcription server's answer is not JSON: ${text.slice(0, QUOTED_CHARS)}`),
      );
    }
  }

  return {
    info: { provider: "openai-compatible", model: opts.model, offline: false },
    quality: "standard",
    languages: null,
    concurrency: 2,
    maxChunkSeconds: 600,
    async transcribe(input: TranscribeInput): Promise<TranscriptResult> {
      const audio = await readFile(input.audioPath);
      let answer: unknown;
      for (let attempt = 0; ; attempt++) {
        try {
          answer = await request(audio, input.language, input.signal);
          break;
        } catch (err) {
          if (!(err instanceof TranscriptionError && err.retryable) || attempt >= 1) throw err;
          await sleep(retryDelayMs, input.signal);
        }
      }
      const read = readWhisperAnswer(answer);
      input.progress(1);
      return {
        language: read.language ?? input.language ?? "und",
        duration: read.duration ?? input.duration,
        segments: read.segments,
      };
    },
  };
}

/** The message of an error answer (OpenAI's `{ error: { message } }`, `{ detail }`), else its text. */
function errorMessage(body: string): string {
  try {
    const json = JSON.parse(body) as {
      error?: { message?: unknown } | string;
      detail?: unknown;
      message?: unknown;
    };
    const message =
      typeof json.error === "string" ? json.error : (json.error?.message ?? json.detail ?? json.message);
    if (typeof message === "string" && message) return message.slice(0, QUOTED_CHARS);
  } catch {}
  return body.slice(0, QUOTED_CHARS);
}
