/**
 * Any server that speaks OpenAI's `POST /v1/audio/transcriptions` (OpenAI itself, faster-whisper
 * and whisper.cpp servers, vLLM, LocalAI…), through the AI SDK's `transcribe` with the OpenAI
 * provider pointed at TRANSCRIPTION_BASE_URL. Asks for `verbose_json` with word and segment
 * timestamps; servers that give no word times yield segments without words.
 */

import { readFile } from "node:fs/promises";
import type { OpenAIProvider } from "@ai-sdk/openai";
import { httpFailureOf, httpFetch } from "../../../net/http-client.ts";
import { attachWords } from "../assemble.ts";
import {
  type TranscribeInput,
  type Transcriber,
  TranscriptionError,
  type TranscriptResult,
} from "../types.ts";

/** Options of {@link createOpenAiCompatibleTranscriber}. */
export interface OpenAiCompatibleOptions {
  /** The model name the server knows (`whisper-1`, `Systran/faster-whisper-large-v3`…). */
  model: string;
  /** Base URL of the API, ending before `/audio/transcriptions` (e.g. `http://127.0.0.1:8000/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never logged. */
  apiKey: string | undefined;
}

/**
 * The OpenAI-compatible transcriber. Chunks stay under OpenAI's 25 MB upload limit
 * (10 minutes of 16 kHz mono 16-bit WAV is 19.2 MB).
 */
export function createOpenAiCompatibleTranscriber(opts: OpenAiCompatibleOptions): Transcriber {
  // The AI SDK is loaded with the first transcription: a worker that never transcribes with
  // this engine does not carry it in memory.
  let sdk: Promise<{ ai: typeof import("ai"); provider: OpenAIProvider }> | undefined;
  const loadSdk = () => {
    sdk ??= Promise.all([import("ai"), import("@ai-sdk/openai")]).then(([ai, { createOpenAI }]) => ({
      ai,
      provider: createOpenAI({
        baseURL: opts.baseUrl.replace(/\/+$/, ""),
        apiKey: opts.apiKey ?? "none",
        fetch: httpFetch,
      }),
    }));
    return sdk;
  };
  const redact = (s: string) => (opts.apiKey ? s.split(opts.apiKey).join("[redacted]") : s);
  return {
    info: { provider: "openai-compatible", model: opts.model, offline: false },
    quality: "standard",
    languages: null,
    concurrency: 2,
    maxChunkSeconds: 600,
    async transcribe(input: TranscribeInput): Promise<TranscriptResult> {
      const audio = await readFile(input.audioPath);
      const { ai, provider } = await loadSdk();
      try {
        const result = await ai.transcribe({
          model: provider.transcription(opts.model),
          audio,
          timestampGranularities: ["word", "segment"],
          providerOptions: {
            openai: {
              responseFormat: "verbose_json",
              timestampGranularities: ["word", "segment"],
              ...(input.language ? { language: input.language } : {}),
            },
          },
          maxRetries: 1,
          abortSignal: input.signal,
        });
        input.progress(1);
        const words = (result.words ?? []).map((w) => ({
          start: w.startSecond,
          end: w.endSecond,
          text: w.text.trim(),
          confidence: null,
        }));
        const segments = result.segments.map((s) => ({
          start: s.startSecond,
          end: s.endSecond,
          text: s.text,
        }));
        return {
          language: result.language ?? input.language ?? "und",
          duration: result.durationInSeconds ?? input.duration,
          segments: attachWords(
            segments.length > 0 || words.length > 0
              ? segments
              : [{ start: 0, end: input.duration, text: result.text }],
            words,
          ).filter((s) => s.text),
        };
      } catch (err) {
        input.signal.throwIfAborted();
        const connection = httpFailureOf(err);
        if (connection) {
          throw new TranscriptionError(
            "engine_failed",
            redact(`The transcription server failed: ${connection.message}`),
            {
              cause: err,
              retryable: true,
            },
          );
        }
        const status = ai.APICallError.isInstance(err) ? err.statusCode : undefined;
        const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
        throw new TranscriptionError(
          "engine_failed",
          redact(
            `The transcription server ${status ? `answered ${status}` : "could not be reached"}: ${String((err as Error).message).slice(0, 300)}`,
          ),
          { cause: err, retryable },
        );
      }
    },
  };
}
