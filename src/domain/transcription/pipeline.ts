/**
 * One attempt of a transcription: the upload's audio → 16 kHz mono WAV (ffmpeg) → chunks within
 * the engine's limit → the engine → segments stitched back onto the media's time line. A
 * failed or stopped attempt cancels the vendor requests no later attempt will resume (the one
 * request of a single-chunk transcription is recorded, resumed by a retry, and cancelled with
 * the transcription).
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import pLimit from "p-limit";
import type { Db } from "../../db/client.ts";
import {
  setTranscriptionVendorRequestId,
  TRANSCRIPTION_TERMINAL,
  type TranscriptionRow,
  transcriptionRows,
} from "../../db/repositories/transcriptions.ts";
import { findUpload } from "../../db/repositories/uploads.ts";
import { MediaProbeError } from "../../media/probe.ts";
import { extractSpeechAudio } from "../../media/speech-audio.ts";
import type { AttemptContext } from "../../queue/attempt-runner.ts";
import { rowWorkDirs } from "../../queue/row-job.ts";
import { makeAttemptWorkDir, type WorkDirOwner } from "../../queue/work-dir-sweep.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { localCopy } from "../../storage/local-copy.ts";
import { type AudioChunk, placeChunkSegments, planChunks } from "./chunks.ts";
import { type Transcriber, TranscriptionError, type TranscriptResult } from "./types.ts";

/** Seconds each chunk overlaps the next. */
export const CHUNK_OVERLAP_SECONDS = 4;

/** What a transcription attempt needs. */
export interface TranscriptionPipelineDeps {
  db: Db;
  store: BlobStore;
  /** WORK_DIR: attempts' scratch directories go under it. */
  workRoot: string;
  /** The engines by provider name. */
  transcribers: Partial<Record<string, Transcriber>>;
}

/** Thrown when the transcription was cancelled or taken over while the vendor was answering. */
class AttemptLostError extends Error {}

/**
 * Runs one attempt of transcription `t`.
 * @returns the transcript.
 * @throws TranscriptionError (`upload_not_found`, `no_audio`, engine failures); an abort error
 *   when `ctx.signal` aborts.
 */
export async function runTranscriptionPipeline(
  deps: TranscriptionPipelineDeps,
  t: TranscriptionRow,
  ctx: AttemptContext,
): Promise<TranscriptResult> {
  const { signal } = ctx;
  const engine = deps.transcribers[t.engine.provider];
  if (!engine) {
    throw new TranscriptionError(
      "engine_unavailable",
      `The ${t.engine.provider} transcription engine is not configured on this worker`,
    );
  }
  const upload = await findUpload(deps.db, t.userId, t.uploadId);
  if (!upload) throw new TranscriptionError("upload_not_found", `Upload ${t.uploadId} no longer exists`);
  if (!upload.media?.hasAudio) {
    throw new TranscriptionError("no_audio", `Upload ${t.uploadId} has no audio stream to transcribe`);
  }
  const workDir = await makeAttemptWorkDir({
    workRoot: deps.workRoot,
    resourceId: t.id,
    attempt: ctx.attempt,
    owner: transcriptionWorkDirs(deps.db),
    log: ctx.log,
  });
  try {
    const source = await localCopy(deps.store, upload.storageKey, workDir, "source");
    const audio = path.join(workDir, "audio.wav");
    const mediaSeconds = upload.media.duration ?? 0;
    await extractSpeechAudio(source, audio, { signal, timeoutMs: 120_000 + mediaSeconds * 1000 }).catch(
      (err: unknown) => {
        signal.throwIfAborted();
        throw new TranscriptionError("no_audio", "The upload's audio could not be decoded", {
          cause: err,
        });
      },
    );
    ctx.progress(0.05);
    const duration = mediaSeconds;
    const chunks = planChunks(duration, engine.maxChunkSeconds, CHUNK_OVERLAP_SECONDS);
    const single = chunks.length === 1;
    // Chunks run `engine.concurrency` at a time; the first failure stops the others.
    const stop = new AbortController();
    const chunkSignal = AbortSignal.any([signal, stop.signal]);
    const limit = pLimit(single ? 1 : engine.concurrency);
    // Vendor requests of this attempt that no later attempt resumes (a chunk's, or one the
    // attempt could not record): cancelled at the vendor when the attempt fails or stops.
    const orphans: string[] = [];
    const shares = chunks.map(() => 0);
    const report = (i: number, ratio: number) => {
      shares[i] = Math.max(shares[i] ?? 0, Math.min(1, ratio));
      ctx.progress(0.05 + (0.95 * shares.reduce((x, y) => x + y, 0)) / chunks.length);
    };
    const transcribeChunk = async (i: number): Promise<TranscriptResult> => {
      const chunk = chunks[i] as AudioChunk;
      chunkSignal.throwIfAborted();
      const chunkPath = single ? audio : path.join(workDir, `chunk-${i}.wav`);
      if (!single) {
        await extractSpeechAudio(audio, chunkPath, {
          signal: chunkSignal,
          startSec: chunk.start,
          durationSec: chunk.end - chunk.start,
          timeoutMs: 120_000,
        });
      }
      const result = await engine.transcribe({
        audioPath: chunkPath,
        duration: chunk.end - chunk.start,
        language: t.language ?? undefined,
        workDir,
        signal: chunkSignal,
        progress: (ratio) => report(i, ratio),
        // A vendor request id names the single request of a one-chunk transcription.
        vendorRequestId: single ? t.vendorRequestId : null,
        async onVendorRequest(requestId) {
          if (!single) {
            orphans.push(requestId);
            return;
          }
          const ok = await setTranscriptionVendorRequestId(deps.db, {
            id: t.id,
            attempt: ctx.attempt,
            requestId,
          });
          if (!ok) {
            orphans.push(requestId);
            throw new AttemptLostError();
          }
        },
      });
      report(i, 1);
      return { ...result, segments: placeChunkSegments(chunk, result.segments) };
    };
    const results = await Promise.all(
      chunks.map((_, i) =>
        limit(() => transcribeChunk(i)).catch((err: unknown) => {
          stop.abort(err);
          throw err;
        }),
      ),
    ).catch((err: unknown) => {
      // Not awaited: the vendor answering late must not hold the attempt's end.
      for (const requestId of orphans) {
        engine
          .cancel?.(requestId)
          .catch((e: unknown) => ctx.log.warn({ err: e, requestId }, "vendor cancel failed"));
      }
      throw err;
    });
    const language = t.language ?? results.find((r) => r.language !== "und")?.language ?? "und";
    return { language, duration, segments: results.flatMap((r) => r.segments) };
  } catch (err) {
    if (err instanceof AttemptLostError) signal.throwIfAborted();
    if (err instanceof MediaProbeError) {
      signal.throwIfAborted();
      throw new TranscriptionError("media_failed", err.message, { cause: err, retryable: true });
    }
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}

/** Transcription attempts' work directories (`trn_…-a<attempt>-…`) for the work-directory sweep. */
export function transcriptionWorkDirs(db: Db): WorkDirOwner {
  return rowWorkDirs("trn", (ids) => transcriptionRows.readAttempts(db, ids), TRANSCRIPTION_TERMINAL);
}
