import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import type { RenderRow } from "../../../db/repositories/renders.ts";
import { RENDER_STATUSES } from "../../../db/schema/renders.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { cancelUnfinishedRender } from "../../../domain/render-jobs/cancel-render.ts";
import { startRender } from "../../../domain/render-jobs/start-render.ts";
import { getRender, listRenders } from "../../../domain/renders/renders.ts";
import type { WebhookEvents } from "../../../domain/webhooks/events.ts";
import { AppError } from "../../../errors.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import type { FlowQueue } from "../../../queue/flow.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { presentRender } from "../../presenters/renders.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import { Render, RenderCreate, RenderParams } from "../../schemas/render.ts";
import type { KeyApp } from "../../types.ts";
import { registerJobResourceRoutes } from "../job-resource.ts";

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
/** The poll interval a render not yet terminal asks for, as `Retry-After` (seconds). */
const POLL_SECONDS = "1";

/** What the render routes need. */
export interface RenderRouteDeps {
  db: Db;
  clock: Clock;
  enqueue: Enqueue;
  store: BlobStore;
  signedUrlTtlSec: number;
  renderLimits: RenderLimits;
  /** Records `render.cancelled` when a queued render is cancelled. */
  events?: WebhookEvents;
  /** Cancels the queued part and join jobs of a split render that is cancelled. */
  flows: Pick<FlowQueue, "cancel">;
  /** WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL. */
  allowPrivateCallbacks?: boolean;
}

/**
 * Render job routes (docs/composition.md, Renders): start (202, Idempotency-Key), list,
 * poll one (non-terminal responses carry `Retry-After: 1`), cancel, and the retired
 * events stream (410).
 */
export function registerRenderRoutes(app: KeyApp, deps: RenderRouteDeps): void {
  app.post(
    "/api/render",
    {
      config: { scope: "write" },
      schema: {
        operationId: "startRender",
        summary: "Start a render job",
        description:
          "Send exactly one of `compositionId` (a stored composition: its current version is frozen, or 409 when `compositionVersion` is stale) and `composition` (an inline composition, validated as `POST /api/compositions` validates it, with detail paths under `/composition`; not stored, so the render's `compositionId` and `compositionVersion` are null). A template's `{{placeholders}}` (text, caption cues, `src`, colours) are filled from `merge` before the filled composition is validated and frozen; a placeholder without a value or a merge name the composition does not use is a 400 listing each, and so is a template sent without `merge`. Then the job is queued. With an `Idempotency-Key` header, repeating the same body returns the same render; another body with that key is a 409.",
        tags: ["Renders"],
        headers: Type.Object({
          "idempotency-key": Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        body: RenderCreate,
        response: responses({ 202: Render, 200: Render }, [...AUTH_ERRORS, 403, 404, 409, 413, 415, 503], {
          400: "Invalid request: not exactly one of `compositionId` and `composition`; an invalid inline composition (paths under `/composition`) or composition as filled from `merge`; placeholders without values (`/merge`), unknown merge names (`/merge/<name>`), or a merge value its placeholder cannot take (`/merge/<name>`: a media `src` takes an upload id or a signed URL of your upload on this server or an https URL, a colour `#rrggbb`); a `callbackUrl` that webhook address rules refuse or whose host does not resolve (`/callbackUrl`). Or the render is over a cost limit: output width or height (`RENDER_MAX_WIDTH`/`RENDER_MAX_HEIGHT`, default 3840 px), frame area (`RENDER_MAX_PIXELS`, default 3840×2160), fps (`RENDER_MAX_FPS`, default 60), rendered timeline length (`RENDER_MAX_DURATION_SEC`, default 14400 s) or clips (`COMPOSITION_MAX_CLIPS`, default 1000). `error.details[].path` names the field: `/output/width`, `/output/fps`, `/output/range/duration`, or `/compositionId` (`/composition` inline) for the composition's canvas, length or clips.",
          429: "`rate_limited`: the daily call quota is used up, the account already has `RENDER_MAX_ACTIVE_PER_ACCOUNT` renders queued or running (default 5), or this render's timeline seconds would exceed the plan's daily render minutes (`RENDER_MINUTES_STANDARD_DAILY` 120, `RENDER_MINUTES_UPGRADED_DAILY` 1200; admin unlimited). The message names the limit; `Retry-After` says when to try again (the next UTC midnight for the daily minutes).",
        }),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const { render, created } = await startRender(
        {
          db: deps.db,
          enqueue: deps.enqueue,
          now: deps.clock.now(),
          userId: auth.userId,
          limits: deps.renderLimits,
          allowPrivateCallbacks: deps.allowPrivateCallbacks,
          keyOfUrl: (url) => deps.store.keyOfUrl(url),
        },
        { body: request.body, idempotencyKey: request.headers["idempotency-key"] },
      );
      reply.header("Location", `/api/render/${render.id}`);
      if (!TERMINAL.has(render.status)) reply.header("Retry-After", POLL_SECONDS);
      if (!created) reply.header("Idempotent-Replayed", "true");
      return reply.code(created ? 202 : 200).send(await presentRender(deps, render));
    },
  );

  registerJobResourceRoutes(app, {
    path: "/api/render",
    idParam: "jobId",
    noun: "Render",
    tag: "Renders",
    schema: Render,
    params: RenderParams,
    find: (userId, id) => getRender(deps.db, userId, id),
    retryAfter: (r) => (TERMINAL.has(r.status) ? undefined : POLL_SECONDS),
    present: (r) => presentRender(deps, r),
    list: {
      operationId: "listRenders",
      summary: "List the caller's render jobs, newest first",
      pageTitle: "RenderPage",
      filters: {
        status: Type.Optional(Type.Union(RENDER_STATUSES.map((s) => Type.Literal(s)))),
        compositionId: Type.Optional(Type.String({ maxLength: 64 })),
        projectId: Type.Optional(
          Type.String({ maxLength: 64, description: "Only renders of compositions in this project" }),
        ),
      },
      page: (userId, query, limit, afterId) =>
        listRenders(deps.db, {
          userId,
          status: query.status as RenderRow["status"] | undefined,
          compositionId: query.compositionId,
          projectId: query.projectId,
          limit,
          afterId,
        }),
    },
    get: {
      operationId: "getRender",
      summary: "Poll a render job",
      description: "Until the job is terminal the response carries `Retry-After: 1`: poll at that interval.",
    },
    cancel: {
      operationId: "cancelRender",
      summary: "Cancel a render job",
      description:
        "Queued → `cancelled` (200). Running → `cancelling` (202): ffmpeg is stopped and partial output deleted within 2 s, then `cancelled`. A render split into segments of which none has started → `cancelled` (200). Already cancelled → 200. Succeeded or failed → 409.",
      ok: { 200: Render, 202: Render },
      errors: [403, 404, 409],
      run: (_request, userId, id) =>
        cancelUnfinishedRender(
          { db: deps.db, events: deps.events, split: { flows: deps.flows, store: deps.store } },
          { userId, id, now: deps.clock.now() },
        ),
      status: (r) => (r.status === "cancelled" ? 200 : 202),
    },
  });

  app.get(
    "/api/render/:jobId/events",
    {
      schema: {
        operationId: "renderEventsGone",
        summary: "Retired: the per-job event stream",
        deprecated: true,
        description: "Always 410 Gone. Poll `GET /api/render/{jobId}` instead.",
        tags: ["Renders"],
        params: RenderParams,
        response: responses({}, [...AUTH_ERRORS, 410]),
      },
    },
    async (request) => {
      throw new AppError(
        "gone",
        `The render events stream was retired; poll GET /api/render/${request.params.jobId} (it carries Retry-After)`,
      );
    },
  );
}
