/**
 * fal.ai's Whisper (`fal-ai/whisper`) over fal's queue with the shared fal queue client
 * ({@link createFalQueue}: time limits, retries, error mapping). The audio goes as a
 * `data:audio/wav;base64,…` URI; `chunk_level: "word"` returns one timed chunk per word, grouped
 * here into segments at sentence ends and pauses. The request id is stored before waiting, so a
 * retried attempt resumes polling the same request instead of paying for a second one; a
 * cancelled transcription cancels it at fal with the queue client's `cancel`.
 */
import { readFile } from "node:fs/promises";
import { sleep } from "../../../clock.ts";
import { VendorError } from "../../vendors/fal/errors.ts";
import { createFalQueue, type FalQueueOptions } from "../../vendors/fal/queue.ts";
import { segmentsFromWords } from "../assemble.ts";
import {
  type TranscribeInput,
  type Transcriber,
  TranscriptionError,
  type TranscriptResult,
} from "../types.ts";

/** fal's Whisper model id. */
export const FAL_WHISPER_MODEL = "fal-ai/whisper";

/** Options of {@link createFalTranscriber}. */
export interface FalTranscriberOptions extends FalQueueOptions {
  /** Status polls: first wait and longest wait, ms (defaults 250 and 3000). */
  poll?: { firstMs: number; maxMs: number };
  /** The longest a request may take once submitted, ms (default 30 minutes). */
  deadlineMs?: number;
}

/** fal Whisper's result (the fields read here). */
interface WhisperResult {
  text?: string;
  chunks?: { timestamp?: [number | null, number | null]; text?: string }[];
  inferred_languages?: string[];
}

/** A {@link VendorError} of the shared queue client as a {@link TranscriptionError}. */
function asTranscriptionError(err: unknown): unknown {
  if (err instanceof VendorError) {
    return new TranscriptionError("engine_failed", err.message, { cause: err, retryable: err.retryable });
  }
  return err;
}

/**
 * The fal Whisper transcriber. Chunks of 5 minutes keep a request's JSON body (the base64 WAV)
 * under 13 MB.
 */
export function createFalTranscriber(opts: FalTranscriberOptions): Transcriber {
  const queue = createFalQueue(opts);
  const poll = opts.poll ?? { firstMs: 250, maxMs: 3000 };
  const deadlineMs = opts.deadlineMs ?? 30 * 60_000;
  return {
    info: { provider: "fal", model: FAL_WHISPER_MODEL, offline: false },
    quality: "standard",
    languages: null,
    concurrency: 2,
    maxChunkSeconds: 300,
    async transcribe(input: TranscribeInput): Promise<TranscriptResult> {
      const { signal } = input;
      try {
        let requestId = input.vendorRequestId;
        if (!requestId) {
          const audio = `data:audio/wav;base64,${(await readFile(input.audioPath)).toString("base64")}`;
          const falInput = {
            audio_url: audio,
            task: "transcribe",
            chunk_level: "word",
            ...(input.language ? { language: input.language } : {}),
          };
          const queued = await queue.call("submitting", signal, (s) =>
            queue.client.queue.submit(FAL_WHISPER_MODEL, { input: falInput, abortSignal: s } as never),
          );
          requestId = queued.request_id;
          await input.onVendorRequest(requestId);
        }
        const id = requestId;
        const deadline = Date.now() + deadlineMs;
        let delay = poll.firstMs;
        for (;;) {
          const st = await queue.call("polling", signal, (s) =>
            queue.client.queue.status(FAL_WHISPER_MODEL, { requestId: id, abortSignal: s }),
          );
          if (st.status === "COMPLETED") break;
          input.progress(st.status === "IN_PROGRESS" ? 0.5 : 0.1);
          if (Date.now() + delay > deadline) {
            throw new TranscriptionError(
              "engine_timeout",
              `fal did not finish within ${deadlineMs / 1000} s`,
            );
          }
          await sleep(delay, signal);
          delay = Math.min(poll.maxMs, delay * 1.5);
        }
        const res = await queue.call("fetching the result", signal, (s) =>
          queue.client.queue.result(FAL_WHISPER_MODEL, { requestId: id, abortSignal: s }),
        );
        const data = res.data as WhisperResult;
        const words = (data.chunks ?? []).flatMap((c) => {
          const [start, end] = c.timestamp ?? [];
          const text = (c.text ?? "").trim();
          if (typeof start !== "number" || !text) return [];
          return [{ start, end: typeof end === "number" ? end : start, text, confidence: null }];
        });
        return {
          language: input.language ?? data.inferred_languages?.[0] ?? "und",
          duration: input.duration,
          segments: segmentsFromWords(words),
        };
      } catch (err) {
        throw asTranscriptionError(err);
      }
    },
    async cancel(requestId) {
      await queue.cancel(FAL_WHISPER_MODEL, requestId);
    },
  };
}
