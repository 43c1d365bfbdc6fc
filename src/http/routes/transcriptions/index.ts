import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import type { TranscriptionRow } from "../../../db/repositories/transcriptions.ts";
import { TRANSCRIPTION_STATUSES } from "../../../db/schema/transcriptions.ts";
import { cancelTranscription } from "../../../domain/transcription/create.ts";
import {
  exportTranscription,
  getTranscription,
  isTranscriptionFinished,
  listTranscriptions,
  requestTranscription,
} from "../../../domain/transcription/transcriptions.ts";
import type { Transcriber } from "../../../domain/transcription/types.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import { presentTranscription } from "../../presenters/transcriptions.ts";
import { AUTH_ERRORS, responses, STANDARD_HEADERS } from "../../schemas/common.ts";
import {
  Transcription,
  TranscriptionCreate,
  TranscriptionExportQuery,
  TranscriptionParams,
} from "../../schemas/transcription.ts";
import type { KeyApp } from "../../types.ts";
import { registerJobResourceRoutes } from "../job-resource.ts";

/** What the transcription routes need. */
export interface TranscriptionRouteDeps {
  db: Db;
  clock: Clock;
  enqueue: Enqueue;
  /** The configured engine (TRANSCRIPTION_ENGINE). */
  transcriber: Transcriber;
  /** Every engine by provider name (a cancel reaches the transcription's own vendor). */
  engines: Partial<Record<string, Transcriber>>;
  /** WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL. */
  allowPrivateCallbacks?: boolean;
}

const RETRY_AFTER = "3";
const SRT_EXAMPLE = "1\n00:00:01,650 --> 00:00:04,100\nand mister john dashwood had then leisure\n";
const MIME = { srt: "application/x-subrip", vtt: "text/vtt", txt: "text/plain" } as const;

/** Transcription routes: create (always queued), list, fetch, export as captions or text, cancel. */
export function registerTranscriptionRoutes(app: KeyApp, deps: TranscriptionRouteDeps): void {
  app.post(
    "/api/v1/transcriptions",
    {
      config: { scope: "write" },
      schema: {
        operationId: "createTranscription",
        summary: "Transcribe an upload's speech",
        description:
          'Always **202** with the queued transcription (`Location`, `Retry-After`); poll `GET /api/v1/transcriptions/{id}` or pass `callbackUrl` (`transcription.succeeded` / `transcription.failed`). The engine is the server\'s TRANSCRIPTION_ENGINE: offline PocketSphinx by default (`quality: "draft"`, English only — another `language` is a 400), fal.ai Whisper or an OpenAI-compatible server. An upload without audio is a 400 naming `uploadId`.',
        tags: ["Transcription"],
        body: TranscriptionCreate,
        response: responses({ 202: Transcription }, [...AUTH_ERRORS, 403, 404, 503]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await requestTranscription(deps, auth.userId, request.body);
      reply.header("Location", `/api/v1/transcriptions/${row.id}`);
      reply.header("Retry-After", RETRY_AFTER);
      return reply.code(202).send(presentTranscription(row));
    },
  );

  registerJobResourceRoutes(app, {
    path: "/api/v1/transcriptions",
    idParam: "id",
    noun: "Transcription",
    tag: "Transcription",
    schema: Transcription,
    params: TranscriptionParams,
    find: (userId, id) => getTranscription(deps.db, userId, id),
    retryAfter: (t) => (isTranscriptionFinished(t) ? undefined : RETRY_AFTER),
    present: presentTranscription,
    list: {
      operationId: "listTranscriptions",
      summary: "List the caller's transcriptions, newest first",
      pageTitle: "TranscriptionPage",
      filters: {
        uploadId: Type.Optional(Type.String({ maxLength: 64 })),
        status: Type.Optional(Type.Enum([...TRANSCRIPTION_STATUSES])),
      },
      page: (userId, query, limit, afterId) =>
        listTranscriptions(deps.db, {
          userId,
          uploadId: query.uploadId,
          status: query.status as TranscriptionRow["status"] | undefined,
          limit,
          afterId,
        }),
    },
    get: {
      operationId: "getTranscription",
      summary: "Fetch a transcription and its transcript",
      description: "Until it is terminal the response carries `Retry-After`.",
    },
    cancel: {
      operationId: "cancelTranscription",
      summary: "Cancel a transcription (idempotent)",
      description:
        "A queued or running transcription becomes `cancelled` (the worker stops within seconds). A finished one is returned unchanged. 200 with the resource either way.",
      ok: { 200: Transcription },
      errors: [403, 404],
      run: (request, userId, id) => cancelTranscription({ ...deps, log: request.log }, userId, id),
    },
  });

  app.get(
    "/api/v1/transcriptions/:id/export",
    {
      schema: {
        operationId: "exportTranscription",
        summary: "A succeeded transcript as SRT, WebVTT or plain text",
        description:
          "Caption cues are the words grouped into lines of at most 42 characters and 7 seconds. 409 until the transcription has succeeded.",
        tags: ["Transcription"],
        params: TranscriptionParams,
        querystring: TranscriptionExportQuery,
        response: {
          ...responses({}, [...AUTH_ERRORS, 404, 409], {
            409: "The transcription has not succeeded (queued, running, failed or cancelled)",
          }),
          200: {
            description: "The transcript as captions or text",
            headers: {
              ...STANDARD_HEADERS,
              "Content-Disposition": {
                type: "string",
                description: 'inline; filename="<id>.srt" (or .vtt, .txt)',
              },
            },
            content: {
              [MIME.srt]: { schema: { type: "string", examples: [SRT_EXAMPLE] } },
              [MIME.vtt]: {
                schema: { type: "string", examples: [`WEBVTT\n\n${SRT_EXAMPLE.replace(/,/g, ".")}`] },
              },
              [MIME.txt]: {
                schema: { type: "string", examples: ["and mister john dashwood had then leisure\n"] },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const format = request.query.format as keyof typeof MIME;
      const file = await exportTranscription(deps.db, auth.userId, request.params.id, format);
      reply.header("Content-Type", `${MIME[format]}; charset=utf-8`);
      reply.header("Content-Disposition", `inline; filename="${file.id}.${format}"`);
      return reply.send(file.text);
    },
  );
}
