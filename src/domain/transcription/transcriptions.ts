/**
 * The transcription use cases of the API, scoped to the caller: request one, list, fetch and
 * export a transcript as captions or text (create and cancel themselves are in `create.ts`).
 */
import type { Db } from "../../db/client.ts";
import {
  findTranscription,
  listTranscriptionsPage,
  TRANSCRIPTION_TERMINAL,
  type TranscriptionRow,
} from "../../db/repositories/transcriptions.ts";
import { conflict, notFound } from "../../errors.ts";
import { checkCallbackUrl } from "../webhooks/target.ts";
import { type CreateTranscriptionDeps, createTranscription, type TranscriptionInput } from "./create.ts";
import { plainText, subtitleText } from "./exports.ts";

/** Whether a transcription has ended (succeeded, failed or cancelled): it changes no more. */
export function isTranscriptionFinished(t: Pick<TranscriptionRow, "status">): boolean {
  return TRANSCRIPTION_TERMINAL.includes(t.status);
}

/**
 * `POST /transcriptions`: checks `callbackUrl`, then creates and queues the transcription.
 * @param deps.allowPrivateCallbacks - WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL.
 * @throws AppError 400 naming `/callbackUrl` when webhook address rules refuse it, and whatever
 *   `createTranscription` throws (404, 400, 503).
 */
export async function requestTranscription(
  deps: CreateTranscriptionDeps & { allowPrivateCallbacks?: boolean | undefined },
  userId: string,
  input: TranscriptionInput,
): Promise<TranscriptionRow> {
  await checkCallbackUrl(input.callbackUrl, deps.allowPrivateCallbacks);
  return createTranscription(deps, userId, input);
}

/** The caller's transcription `id`, or null when it is absent or another owner's. */
export function getTranscription(db: Db, userId: string, id: string): Promise<TranscriptionRow | null> {
  return findTranscription(db, userId, id);
}

/** One page of the caller's transcriptions, newest first, optionally of one upload and status. */
export function listTranscriptions(
  db: Db,
  input: {
    userId: string;
    uploadId?: string | undefined;
    status?: TranscriptionRow["status"] | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: TranscriptionRow[]; hasMore: boolean }> {
  return listTranscriptionsPage(db, input);
}

/** A transcript export format: SubRip, WebVTT or plain text. */
export type TranscriptFormat = "srt" | "vtt" | "txt";

/**
 * The caller's succeeded transcript as captions (cues of at most 42 characters and 7 s) or text.
 * @returns the transcription's id and the file's text.
 * @throws AppError 404 when the transcription is absent or another owner's; 409 until it has succeeded.
 */
export async function exportTranscription(
  db: Db,
  userId: string,
  id: string,
  format: TranscriptFormat,
): Promise<{ id: string; text: string }> {
  const t = await findTranscription(db, userId, id);
  if (!t) throw notFound(`Transcription ${id}`);
  if (t.status !== "succeeded" || !t.result) {
    throw conflict(`Transcription ${t.id} is ${t.status}; only a succeeded transcription can be exported`);
  }
  return { id: t.id, text: format === "txt" ? plainText(t.result) : subtitleText(t.result, format) };
}
