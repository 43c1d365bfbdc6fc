/**
 * The transcript of an upload for a tool or a job that needs one: the latest succeeded
 * transcription of the upload is reused; otherwise an ordinary transcription (the same engine,
 * queue and resource as `POST /api/v1/transcriptions`) is created and waited for.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  findTranscriptionById,
  listTranscriptionsPage,
  TRANSCRIPTION_TERMINAL,
} from "../../db/repositories/transcriptions.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import { type CancelTranscriptionDeps, cancelTranscription, createTranscription } from "./create.ts";
import { type Transcriber, TranscriptionError, type TranscriptResult } from "./types.ts";

/** How often a waiter re-reads the transcription and reports progress, ms. */
const POLL_MS = 1000;

/** What {@link transcribeOrReuse} needs. */
export type TranscribeOrReuseDeps = CancelTranscriptionDeps & { enqueue: Enqueue; transcriber: Transcriber };

/** A succeeded transcript and the transcription that holds it. */
export interface ReusedTranscript {
  transcriptionId: string;
  quality: "draft" | "standard";
  result: TranscriptResult;
}

/**
 * The transcript of `uploadId` (see the module doc). A transcription created here is cancelled
 * when `signal` aborts the wait.
 * @param onProgress - the transcription's progress 0..1 and a status line, once per poll.
 * @throws AppError for an upload without audio (400) or unknown (404), as creating one does;
 *   TranscriptionError with the transcription's own error code when it failed or was cancelled;
 *   the signal's reason when it aborts.
 */
export async function transcribeOrReuse(
  deps: TranscribeOrReuseDeps,
  input: { userId: string; uploadId: string; projectId: string | null },
  onProgress: (p: { progress: number; message: string }) => void,
  signal: AbortSignal,
): Promise<ReusedTranscript> {
  const { rows } = await listTranscriptionsPage(deps.db, {
    userId: input.userId,
    uploadId: input.uploadId,
    status: "succeeded",
    limit: 1,
    afterId: undefined,
  });
  const done = rows[0];
  if (done?.result) return { transcriptionId: done.id, quality: done.quality, result: done.result };
  const created = await createTranscription(deps, input.userId, {
    uploadId: input.uploadId,
    projectId: input.projectId ?? undefined,
  });
  try {
    for (;;) {
      const row = await findTranscriptionById(deps.db, created.id);
      if (!row) throw new TranscriptionError("not_found", `Transcription ${created.id} is gone`);
      if (row.status === "succeeded" && row.result) {
        return { transcriptionId: row.id, quality: row.quality, result: row.result };
      }
      if (TRANSCRIPTION_TERMINAL.includes(row.status)) {
        throw new TranscriptionError(
          row.error?.code ?? row.status,
          `The transcription ${row.status}: ${row.error?.message ?? "cancelled"}`,
        );
      }
      onProgress({ progress: row.progress ?? 0, message: `transcription ${row.id} ${row.status}` });
      await sleep(POLL_MS, undefined, { signal });
    }
  } catch (err) {
    if (signal.aborted) await cancelTranscription(deps, input.userId, created.id).catch(() => {});
    throw err;
  }
}
