import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { GenerationConfig } from "../../../config.ts";
import type { Db } from "../../../db/client.ts";
import type { Notifications } from "../../../db/notifications.ts";
import type { GenerationRow } from "../../../db/repositories/generations.ts";
import { GENERATION_STATUSES } from "../../../db/schema/generations.ts";
import type { ImageGenerationInput } from "../../../domain/generation/create.ts";
import {
  cancelGenerationWithOutputs,
  generateImage,
  generateVideo,
  getGeneration,
  isGenerationSettled,
  listGenerations,
} from "../../../domain/generation/generations.ts";
import type { ProviderSet } from "../../../domain/generation/providers/types.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { presentGeneration } from "../../presenters/generations.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import {
  Generation,
  GenerationParams,
  ImageGenerationCreate,
  VideoGenerationCreate,
} from "../../schemas/generation.ts";
import type { KeyApp } from "../../types.ts";
import { registerJobResourceRoutes } from "../job-resource.ts";

/** What the generation routes need. */
export interface GenerationRouteDeps {
  db: Db;
  clock: Clock;
  store: BlobStore;
  signedUrlTtlSec: number;
  generation: GenerationConfig;
  enqueue: Enqueue;
  providers: ProviderSet;
  /** Wakes a waiting `POST /generate/image` when a worker in any process settles it. */
  notifications: Notifications;
  /** WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL. */
  allowPrivateCallbacks?: boolean;
}

/** Seconds a client should wait before polling a generation again. */
const RETRY_AFTER: Record<"image" | "video", string> = { image: "2", video: "5" };

const CREATE_ERRORS = [...AUTH_ERRORS, 403, 404, 503] as const;

/**
 * Generation routes: image (waits up to IMAGE_WAIT_SEC for the result), still-to-video (always
 * queued), list, fetch and cancel. Outputs are ordinary uploads of the caller.
 */
export function registerGenerationRoutes(app: KeyApp, deps: GenerationRouteDeps): void {
  app.post(
    "/api/v1/generate/image",
    {
      config: { scope: "write" },
      schema: {
        operationId: "generateImage",
        summary: "Generate images from a prompt",
        description:
          "Runs on the caller's image model (`PATCH /api/v1/me/settings`), or the offline placeholder when the server has no fal.ai key. Waits up to IMAGE_WAIT_SEC (default 30 s): **201** with the finished generation (its `outputs` are uploads), else **202** with the running generation, `Location` and `Retry-After`.",
        tags: ["Generation"],
        body: ImageGenerationCreate,
        response: responses({ 201: Generation, 202: Generation }, CREATE_ERRORS),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await generateImage(
        deps,
        { userId: auth.userId, imageModel: auth.user.imageModel },
        request.body as ImageGenerationInput,
        deps.generation.imageWaitSec * 1000,
      );
      const done = isGenerationSettled(row);
      reply.header("Location", `/api/v1/generations/${row.id}`);
      if (!done) reply.header("Retry-After", RETRY_AFTER.image);
      return reply.code(done ? 201 : 202).send(await presentGeneration(deps, row, row.outputs));
    },
  );

  app.post(
    "/api/v1/generate/video",
    {
      config: { scope: "write" },
      schema: {
        operationId: "generateVideo",
        summary: "Animate a still into a video",
        description:
          "Always **202** with the queued generation (`Location`, `Retry-After`); poll `GET /api/v1/generations/{id}`. `imageUrl` is an `upl_…` image upload of yours, a URL this API returned for one, or a public https URL (loopback, private, link-local and metadata addresses are refused with 400). An option the video model cannot do is a 400 naming the field (Veo has no 1:1). Offline, the video is a labelled Ken Burns move over the still, silent (a warning says so when audio was asked for).",
        tags: ["Generation"],
        body: VideoGenerationCreate,
        response: responses({ 202: Generation }, CREATE_ERRORS),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await generateVideo(
        deps,
        { userId: auth.userId, imageModel: auth.user.imageModel },
        request.body,
      );
      reply.header("Location", `/api/v1/generations/${row.id}`);
      reply.header("Retry-After", RETRY_AFTER.video);
      return reply.code(202).send(await presentGeneration(deps, row, row.outputs));
    },
  );

  registerJobResourceRoutes(app, {
    path: "/api/v1/generations",
    idParam: "id",
    noun: "Generation",
    tag: "Generation",
    schema: Generation,
    params: GenerationParams,
    find: (userId, id) => getGeneration(deps.db, userId, id),
    retryAfter: (g) => (isGenerationSettled(g) ? undefined : RETRY_AFTER[g.kind]),
    present: (g) => presentGeneration(deps, g, g.outputs),
    list: {
      operationId: "listGenerations",
      summary: "List the caller's generations, newest first",
      pageTitle: "GenerationPage",
      filters: {
        kind: Type.Optional(Type.Enum(["image", "video"])),
        status: Type.Optional(Type.Enum([...GENERATION_STATUSES])),
        projectId: Type.Optional(
          Type.String({
            maxLength: 64,
            description: "Only generations of this project; `none` for those made outside any project",
          }),
        ),
      },
      page: (userId, query, limit, afterId) =>
        listGenerations(deps.db, {
          userId,
          kind: query.kind as "image" | "video" | undefined,
          status: query.status as GenerationRow["status"] | undefined,
          projectId: query.projectId === "none" ? null : query.projectId,
          limit,
          afterId,
        }),
    },
    get: {
      operationId: "getGeneration",
      summary: "Fetch a generation",
      description: "Until it is terminal the response carries `Retry-After`.",
    },
    cancel: {
      operationId: "cancelGeneration",
      summary: "Cancel a generation (idempotent)",
      description:
        "A queued or running generation becomes `cancelled`, and its vendor request is cancelled too. A finished one is returned unchanged. 200 with the resource either way.",
      ok: { 200: Generation },
      errors: [403, 404],
      run: (request, userId, id) =>
        cancelGenerationWithOutputs(
          { db: deps.db, clock: deps.clock, providers: deps.providers, log: request.log },
          userId,
          id,
        ),
    },
  });
}
