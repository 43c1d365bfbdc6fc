import type { TranscriptionRow } from "../../db/repositories/transcriptions.ts";
import { analysisTranscript } from "../../domain/transcription/exports.ts";

/** A transcription row → the `Transcription` resource (its transcript once succeeded). */
export function presentTranscription(t: TranscriptionRow) {
  const result = t.status === "succeeded" ? t.result : null;
  return {
    id: t.id,
    status: t.status,
    uploadId: t.uploadId,
    projectId: t.projectId,
    engine: t.engine,
    quality: t.quality,
    progress: t.progress ?? (t.status === "queued" ? 0 : null),
    language: result?.language ?? t.language,
    duration: result?.duration ?? null,
    segments: result?.segments ?? [],
    transcript: analysisTranscript(result?.segments ?? []),
    error: t.error ?? null,
    createdAt: t.createdAt.toISOString(),
    finishedAt: t.finishedAt?.toISOString() ?? null,
  };
}
