import { Type } from "typebox";
import type { Db } from "../../../db/client.ts";
import type { CreateTranscriptionDeps } from "../../../domain/transcription/create.ts";
import { UPLOAD_TYPES } from "../../../domain/uploads/upload-type.ts";
import { deleteUpload, getUpload, listUploads, receiveUploads } from "../../../domain/uploads/uploads.ts";
import type { WebhookEvents } from "../../../domain/webhooks/events.ts";
import { AppError } from "../../../errors.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { pageWindow, toPageAsync } from "../../pagination.ts";
import { presentTranscription } from "../../presenters/transcriptions.ts";
import { presentUpload } from "../../presenters/uploads.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import { Transcription } from "../../schemas/transcription.ts";
import { Upload, UploadParams, UploadWithUsers } from "../../schemas/upload.ts";
import type { Auth, CaptureApp, KeyApp } from "../../types.ts";
import { versionAuthor } from "../../version-author.ts";

/** What the upload routes need. */
export interface UploadRouteDeps {
  db: Db;
  store: BlobStore;
  uploadMaxBytes: number;
  signedUrlTtlSec: number;
  /** Records `upload.created` webhook events with the rows. */
  events?: WebhookEvents;
  /** Queues the preview proxy jobs of new videos with the rows. */
  enqueue?: Enqueue;
  /** Queues transcriptions asked for with the `transcribe=true` field (absent: the field is refused). */
  transcription?: Omit<CreateTranscriptionDeps, "db">;
}

/** A phone capture token uploads only into its own project (the default when `projectId` is not sent). */
function assertCaptureProject(auth: Auth, projectId: string): void {
  if (auth.kind === "capture" && projectId !== auth.projectId) {
    throw new AppError("forbidden", "This phone capture link may only upload into its own project");
  }
}

/**
 * The multipart upload (streamed to storage, typed by content, probed, all or nothing), which
 * phone capture tokens may also call. Needs the multipart plugin in the scope.
 */
export function registerCreateUploadsRoute(app: CaptureApp, deps: UploadRouteDeps): void {
  app.post(
    "/api/v1/uploads",
    {
      config: { scope: "write" },
      // The multipart body is parsed by the handler as a stream; the schema documents it only.
      validatorCompiler: () => () => true,
      schema: {
        operationId: "createUploads",
        summary: "Upload one or more files",
        description:
          "multipart/form-data with 1–20 file parts and an optional `projectId` field (send it before the files). With `transcribe=true` (or a language code such as `transcribe=en`), a transcription of every audio or video file with sound is queued with the uploads (same transaction) and returned in `transcriptions`. Each file ≤ 512 MB (413 naming the file beyond). Type is detected from the bytes (video, audio, image, subtitle SRT/WebVTT, font TTF/OTF/WOFF2; else 415). Media is probed and gets a poster. If any file fails, nothing of the request is kept. A phone capture token (`crc_…`) may call this operation only, and only for its own project, which is also the default `projectId`.",
        tags: ["Uploads"],
        consumes: ["multipart/form-data"],
        body: Type.Object(
          {
            projectId: Type.Optional(Type.String({ description: "A project of the caller" })),
            transcribe: Type.Optional(
              Type.String({
                description:
                  "`true` (or an ISO 639-1 language code) queues a transcription of each audio or video file with sound",
              }),
            ),
            file: Type.Array(Type.String({ format: "binary" }), { description: "One or more file parts" }),
          },
          {
            // curl -F projectId=prj_… -F file=@intro.mp4 -F file=@still.png
            examples: [{ projectId: "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C", file: ["<intro.mp4>", "<still.png>"] }],
          },
        ),
        response: responses(
          {
            201: Type.Object(
              {
                data: Type.Array(Upload),
                transcriptions: Type.Optional(
                  Type.Array(Transcription, { description: "Queued with `transcribe=true`" }),
                ),
              },
              { title: "UploadList" },
            ),
          },
          [...AUTH_ERRORS, 403, 404, 413, 415, 507],
        ),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const { uploads, transcriptions } = await receiveUploads(deps, {
        userId: auth.userId,
        parts: request.parts(),
        maxBytes: deps.uploadMaxBytes,
        signal: request.signal,
        // The request body's chunks are ours: the local store moves them to its writer thread.
        transferChunks: true,
        checkProjectId: (projectId) => assertCaptureProject(auth, projectId),
        defaultProjectId: auth.kind === "capture" ? auth.projectId : null,
      });
      const data = await Promise.all(uploads.map((r) => presentUpload(deps, r)));
      return reply.code(201).send({
        data,
        ...(transcriptions.length > 0 ? { transcriptions: transcriptions.map(presentTranscription) } : {}),
      });
    },
  );
}

/** Upload routes: list, fetch (fresh signed URLs) and delete (objects removed). */
export function registerUploadRoutes(app: KeyApp, deps: UploadRouteDeps): void {
  app.get(
    "/api/v1/uploads",
    {
      schema: {
        operationId: "listUploads",
        summary: "List the caller's uploads, newest first",
        tags: ["Uploads"],
        querystring: Type.Object({
          ...PageQuery,
          projectId: Type.Optional(Type.String({ maxLength: 64 })),
          type: Type.Optional(Type.Union(UPLOAD_TYPES.map((t) => Type.Literal(t)))),
        }),
        response: responses({ 200: Page(Upload, "UploadPage") }),
      },
    },
    async (request) => {
      const auth = request.auth;
      const page = await listUploads(deps.db, {
        userId: auth.userId,
        projectId: request.query.projectId,
        type: request.query.type,
        ...pageWindow(request.query),
      });
      return toPageAsync(page, (u) => presentUpload(deps, u));
    },
  );

  app.get(
    "/api/v1/uploads/:id",
    {
      schema: {
        operationId: "getUpload",
        summary: "Fetch an upload (with fresh signed URLs and the compositions that use it)",
        description:
          "`usedBy` lists the caller's compositions with a clip that uses the upload (media asset or caption source), with how many clips do.",
        tags: ["Uploads"],
        params: UploadParams,
        response: responses({ 200: UploadWithUsers }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request) => {
      const auth = request.auth;
      const { upload, usedBy } = await getUpload(deps.db, auth.userId, request.params.id);
      return { ...(await presentUpload(deps, upload)), usedBy };
    },
  );

  app.delete(
    "/api/v1/uploads/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "deleteUpload",
        summary: "Delete an upload and its stored files (idempotent)",
        description:
          "Answers 204 whether or not it existed; another owner's upload is never touched. An upload that compositions use is refused with 409 `conflict` whose message names them and whose `usedBy` lists them (as on the upload), unless `force=true`: then it is deleted, each of its clips without a `name` gets the upload's file name first (a new version of the composition), and the compositions read its clips as missing (`warnings`) until they are relinked (`POST /api/compositions/{id}/relink`) or deleted.",
        tags: ["Uploads"],
        params: UploadParams,
        querystring: Type.Object({
          force: Type.Optional(
            Type.Boolean({
              description: "Delete even when compositions use it (their clips become missing)",
            }),
          ),
        }),
        response: responses({ 204: null }, [...AUTH_ERRORS, 403, 409]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await deleteUpload(deps, {
        userId: auth.userId,
        id: request.params.id,
        force: request.query.force === true,
        author: versionAuthor(auth),
        now: new Date(),
      });
      return reply.code(204).send();
    },
  );
}
