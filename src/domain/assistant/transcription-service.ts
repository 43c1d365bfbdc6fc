/**
 * The assistant's {@link TranscriptionService} on the transcription domain: the latest
 * succeeded transcription of an upload is reused; otherwise an ordinary transcription (the
 * same engine, queue and resource as `POST /api/v1/transcriptions`) is created and waited for.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  findTranscriptionById,
  listTranscriptionsPage,
  TRANSCRIPTION_TERMINAL,
} from "../../db/repositories/transcriptions.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import {
  type CancelTranscriptionDeps,
  cancelTranscription,
  createTranscription,
} from "../transcription/create.ts";
import type { Transcriber } from "../transcription/types.ts";
import { ToolError, type TranscriptionService } from "./tool-context.ts";

/** How often a waiting tool re-reads the transcription and reports progress, ms. */
const POLL_MS = 1000;

/** Builds the assistant's transcription service (see the module doc). */
export function createTranscriptionService(
  deps: CancelTranscriptionDeps & { enqueue: Enqueue; transcriber: Transcriber },
): TranscriptionService {
  return {
    async transcribe(input, onProgress, signal) {
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
          if (!row) throw new ToolError("not_found", `Transcription ${created.id} is gone`);
          if (row.status === "succeeded" && row.result) {
            return { transcriptionId: row.id, quality: row.quality, result: row.result };
          }
          if (TRANSCRIPTION_TERMINAL.includes(row.status)) {
            throw new ToolError(
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
    },
  };
}
