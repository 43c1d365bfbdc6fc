import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { findProject } from "../../db/repositories/projects.ts";
import {
  cancelTranscriptionRow,
  insertTranscription,
  type TranscriptionRow,
} from "../../db/repositories/transcriptions.ts";
import { findUpload } from "../../db/repositories/uploads.ts";
import { insertWebhookCallback } from "../../db/repositories/webhooks.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { JOBS } from "../../queue/catalog.ts";
import { type Enqueue, insertWithJob } from "../../queue/enqueue.ts";
import type { Transcriber } from "./types.ts";

/** What creating a transcription needs. */
export interface CreateTranscriptionDeps {
  db: Db;
  clock: Clock;
  /** The configured engine. */
  transcriber: Transcriber;
  /** Sends the transcription's job, inside the insert's transaction. */
  enqueue: Enqueue;
}

/** `POST /transcriptions` input. */
export interface TranscriptionInput {
  uploadId: string;
  /** ISO 639-1 code; omitted: detected (the offline engine assumes English). */
  language?: string | undefined;
  projectId?: string | undefined;
  /** Where the end event is also sent (already checked by the caller). */
  callbackUrl?: string | undefined;
}

/**
 * Creates a queued transcription of an audio or video upload of the caller and queues its job
 * (the row and the job commit together).
 * @throws AppError 404 for an unknown upload or project; 400 naming `/uploadId` for an upload
 *   without audio and `/language` for a language the engine cannot do; 503 when the job cannot
 *   be queued (no row is kept).
 */
export async function createTranscription(
  deps: CreateTranscriptionDeps,
  userId: string,
  input: TranscriptionInput,
  tx?: Db,
): Promise<TranscriptionRow> {
  const db = tx ?? deps.db;
  const engine = deps.transcriber;
  const language = input.language?.toLowerCase();
  if (language && engine.languages && !engine.languages.includes(language)) {
    throw invalidRequest(`The ${engine.info.model} engine cannot transcribe language ${language}`, [
      {
        path: "/language",
        message: `must be one of ${engine.languages.join(", ")} with TRANSCRIPTION_ENGINE=${engine.info.provider}; configure another engine for other languages`,
      },
    ]);
  }
  const upload = await findUpload(db, userId, input.uploadId);
  if (!upload) throw notFound(`Upload ${input.uploadId}`);
  if (!upload.media?.hasAudio) {
    throw invalidRequest(`Upload ${input.uploadId} has no audio to transcribe`, [
      { path: "/uploadId", message: "must be an audio or video upload with an audio stream" },
    ]);
  }
  if (input.projectId && !(await findProject(db, userId, input.projectId))) {
    throw notFound(`Project ${input.projectId}`);
  }
  const values = {
    id: newId("trn", deps.clock.now().getTime()),
    userId,
    uploadId: upload.id,
    projectId: input.projectId ?? upload.projectId,
    language: language ?? (engine.languages?.length === 1 ? (engine.languages[0] ?? null) : null),
    engine: engine.info,
    quality: engine.quality,
    createdAt: deps.clock.now(),
  };
  return insertWithJob(deps, { resource: "transcription", tx }, async (t, send) => {
    const row = await insertTranscription(t, values);
    if (input.callbackUrl)
      await insertWebhookCallback(t, { resourceId: row.id, userId, url: input.callbackUrl });
    await send({ job: JOBS.transcription, data: { v: 1, transcriptionId: row.id } });
    return row;
  });
}

/** What cancelling a transcription needs. */
export interface CancelTranscriptionDeps {
  db: Db;
  clock: Clock;
  /** The engines by provider name: the transcription's own cancels its vendor request. */
  engines: Partial<Record<string, Transcriber>>;
  log: { warn(obj: object, msg: string): void };
}

/**
 * Cancels a queued or running transcription of the caller (the worker stops at its next
 * check), and its vendor request when one was submitted (fal; best effort: a vendor that
 * cannot be reached is logged, the transcription is cancelled all the same). Idempotent: a
 * terminal transcription is returned unchanged.
 * @throws AppError 404 when the caller has no such transcription.
 */
export async function cancelTranscription(
  deps: CancelTranscriptionDeps,
  userId: string,
  id: string,
): Promise<TranscriptionRow> {
  const result = await cancelTranscriptionRow(deps.db, userId, id, deps.clock.now());
  if (!result) throw notFound(`Transcription ${id}`);
  const { row, changed } = result;
  const engine = deps.engines[row.engine.provider];
  if (changed && row.vendorRequestId && engine?.cancel) {
    await engine
      .cancel(row.vendorRequestId)
      .catch((err: unknown) =>
        deps.log.warn({ err, transcriptionId: row.id }, "cancelling at the vendor failed"),
      );
  }
  return row;
}
