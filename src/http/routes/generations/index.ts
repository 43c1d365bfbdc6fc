import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { GenerationConfig } from "../../../config.ts";
import type { Db } from "../../../db/client.ts";
import type { Notifications } from "../../../db/notifications.ts";
import {
  findGeneration,
  GENERATION_TERMINAL,
  type GenerationRow,
  listGenerationsPage,
  outputsOf,
} from "../../../db/repositories/generations.ts";
import { GENERATION_STATUSES } from "../../../db/schema/generations.ts";
import {
  cancelGeneration,
  createImageGeneration,
  createVideoGeneration,
  type ImageGenerationInput,
} from "../../../domain/generation/create.ts";
import type { ProviderSet } from "../../../domain/generation/providers/types.ts";
import { waitForSettled } from "../../../domain/generation/settled.ts";
import { presentGeneration, presentGenerationRow } from "../../../domain/presenters.ts";
import { checkWebhookTarget } from "../../../domain/webhooks/target.ts";
import { notFound } from "../../../errors.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { decodeCursor, encodeCursor } from "../../pagination.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import {
  Generation,
  GenerationParams,
  ImageGenerationCreate,
  VideoGenerationCreate,
} from "../../schemas/generation.ts";
import { type App, requireAuth } from "../../types.ts";

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

/** 400 naming `/callbackUrl` when the request's callback URL is refused. */
async function checkCallback(deps: GenerationRouteDeps, callbackUrl: string | undefined): Promise<void> {
  if (callbackUrl) await checkWebhookTarget(callbackUrl, deps.allowPrivateCallbacks ?? false, "/callbackUrl");
}

const CREATE_ERRORS = [...AUTH_ERRORS, 403, 404, 503] as const;

/**
 * Generation routes: image (waits up to IMAGE_WAIT_SEC for the result), still-to-video (always
 * queued), list, fetch and cancel. Outputs are ordinary uploads of the caller.
 */
export function registerGenerationRoutes(app: App, deps: GenerationRouteDeps): void {
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
      const auth = requireAuth(request);
      await checkCallback(deps, request.body.callbackUrl);
      const created = await createImageGeneration(
        deps,
        { userId: auth.userId, imageModel: auth.user.imageModel },
        request.body as ImageGenerationInput,
      );
      const row =
        (await waitForSettled(deps, created.id, { timeoutMs: deps.generation.imageWaitSec * 1000 })) ??
        created;
      const done = GENERATION_TERMINAL.includes(row.status);
      reply.header("Location", `/api/v1/generations/${row.id}`);
      if (!done) reply.header("Retry-After", RETRY_AFTER.image);
      return reply.code(done ? 201 : 202).send(await presentGenerationRow(deps.db, deps, row));
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
      const auth = requireAuth(request);
      await checkCallback(deps, request.body.callbackUrl);
      const row = await createVideoGeneration(
        deps,
        { userId: auth.userId, imageModel: auth.user.imageModel },
        request.body,
      );
      reply.header("Location", `/api/v1/generations/${row.id}`);
      reply.header("Retry-After", RETRY_AFTER.video);
      return reply.code(202).send(await presentGeneration(deps, row, []));
    },
  );

  app.get(
    "/api/v1/generations",
    {
      schema: {
        operationId: "listGenerations",
        summary: "List the caller's generations, newest first",
        tags: ["Generation"],
        querystring: Type.Object({
          ...PageQuery,
          kind: Type.Optional(Type.Enum(["image", "video"])),
          status: Type.Optional(Type.Enum([...GENERATION_STATUSES])),
          projectId: Type.Optional(
            Type.String({
              maxLength: 64,
              description: "Only generations of this project; `none` for those made outside any project",
            }),
          ),
        }),
        response: responses({ 200: Page(Generation, "GenerationPage") }),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const page = await listGenerationsPage(deps.db, {
        userId: auth.userId,
        kind: request.query.kind as "image" | "video" | undefined,
        status: request.query.status as GenerationRow["status"] | undefined,
        projectId: request.query.projectId === "none" ? null : request.query.projectId,
        limit: request.query.limit ?? 25,
        afterId: decodeCursor(request.query.cursor),
      });
      const outputs = await outputsOf(
        deps.db,
        page.rows.map((r) => r.id),
      );
      const last = page.rows.at(-1);
      return {
        data: await Promise.all(page.rows.map((r) => presentGeneration(deps, r, outputs.get(r.id) ?? []))),
        nextCursor: page.hasMore && last ? encodeCursor(last.id) : null,
      };
    },
  );

  app.get(
    "/api/v1/generations/:id",
    {
      schema: {
        operationId: "getGeneration",
        summary: "Fetch a generation",
        description: "Until it is terminal the response carries `Retry-After`.",
        tags: ["Generation"],
        params: GenerationParams,
        response: responses({ 200: Generation }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const g = await findGeneration(deps.db, auth.userId, request.params.id);
      if (!g) throw notFound(`Generation ${request.params.id}`);
      if (!GENERATION_TERMINAL.includes(g.status)) reply.header("Retry-After", RETRY_AFTER[g.kind]);
      return presentGenerationRow(deps.db, deps, g);
    },
  );

  app.delete(
    "/api/v1/generations/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "cancelGeneration",
        summary: "Cancel a generation (idempotent)",
        description:
          "A queued or running generation becomes `cancelled`, and its vendor request is cancelled too. A finished one is returned unchanged. 200 with the resource either way.",
        tags: ["Generation"],
        params: GenerationParams,
        response: responses({ 200: Generation }, [...AUTH_ERRORS, 403, 404]),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const g = await cancelGeneration(
        { db: deps.db, clock: deps.clock, providers: deps.providers, log: request.log },
        auth.userId,
        request.params.id,
      );
      return presentGenerationRow(deps.db, deps, g);
    },
  );
}
