import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import { AUTOEDIT_STATUSES } from "../../../db/schema/autoedits.ts";
import {
  cancelAutoedit,
  getAutoedit,
  isAutoeditFinished,
  listAutoedits,
  requestAutoedit,
} from "../../../domain/autoedit/autoedits.ts";
import type { Enqueue } from "../../../queue/enqueue.ts";
import { presentAutoedit } from "../../presenters/autoedits.ts";
import { Autoedit, AutoeditCreate, AutoeditParams } from "../../schemas/autoedit.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import type { KeyApp } from "../../types.ts";
import { registerJobResourceRoutes } from "../job-resource.ts";

/** What the auto-edit routes need. */
export interface AutoeditRouteDeps {
  db: Db;
  clock: Clock;
  enqueue: Enqueue;
  /** WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL. */
  allowPrivateCallbacks?: boolean;
}

const RETRY_AFTER = "3";

/** Auto-edit routes: request (always queued), list, fetch, cancel. */
export function registerAutoeditRoutes(app: KeyApp, deps: AutoeditRouteDeps): void {
  app.post(
    "/api/v1/autoedit",
    {
      config: { scope: "write" },
      schema: {
        operationId: "createAutoedit",
        summary: "Turn recordings into short clips as editable compositions",
        description:
          "Always **202** with the queued auto-edit (`Location: /api/v1/autoedits/{id}`, `Retry-After`). The job transcribes each upload with the server's engine (offline PocketSphinx by default; an earlier transcript is reused) and analyses its sound, then lists ranked `candidates` (whole sentences, at most `target.maxDuration` s each, with the reasons of their score) before building anything. For the top `target.count` it builds a composition in the project, one version per automated step (`cut`, `reframe`: the target aspect, each clip cropped by a window that follows the faces in it, `captions`: karaoke from speech, `silences`: silences and fillers cut, `music`: ducked under speech, `loudness`: the `audio.loudness` target every render meets), so any step can be reverted. With `render: true` it starts a render of each. Poll `GET /api/v1/autoedits/{id}` or pass `callbackUrl` (`autoedit.succeeded` / `autoedit.failed`). An upload that is not yours is a 404; one that is not a video with sound a 400 naming `/uploadIds/<i>`.",
        tags: ["Auto-edit"],
        body: AutoeditCreate,
        response: responses({ 202: Autoedit }, [...AUTH_ERRORS, 403, 404, 503]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await requestAutoedit(deps, auth.userId, request.body);
      reply.header("Location", `/api/v1/autoedits/${row.id}`);
      reply.header("Retry-After", RETRY_AFTER);
      return reply.code(202).send(presentAutoedit(row));
    },
  );

  registerJobResourceRoutes(app, {
    path: "/api/v1/autoedits",
    idParam: "id",
    noun: "Auto-edit",
    tag: "Auto-edit",
    schema: Autoedit,
    params: AutoeditParams,
    find: (userId, id) => getAutoedit(deps.db, userId, id),
    retryAfter: (a) => (isAutoeditFinished(a) ? undefined : RETRY_AFTER),
    present: presentAutoedit,
    list: {
      operationId: "listAutoedits",
      summary: "List the caller's auto-edits, newest first",
      pageTitle: "AutoeditPage",
      filters: {
        status: Type.Optional(Type.Enum([...AUTOEDIT_STATUSES])),
        projectId: Type.Optional(Type.String({ maxLength: 64 })),
      },
      page: (userId, query, limit, afterId) =>
        listAutoedits(deps.db, {
          userId,
          status: query.status as (typeof AUTOEDIT_STATUSES)[number] | undefined,
          projectId: query.projectId,
          limit,
          afterId,
        }),
    },
    get: {
      operationId: "getAutoedit",
      summary: "Fetch an auto-edit: its candidates, compositions and renders so far",
      description: "Until it is terminal the response carries `Retry-After`.",
    },
    cancel: {
      operationId: "cancelAutoedit",
      summary: "Cancel an auto-edit (idempotent)",
      description:
        "A queued or running auto-edit becomes `cancelled` at once and the compositions it made are deleted (the worker stops within seconds, and cancels the transcription it started). A finished one is returned unchanged. 200 with the resource either way.",
      ok: { 200: Autoedit },
      errors: [403, 404],
      run: (_request, userId, id) => cancelAutoedit(deps, userId, id),
    },
  });
}
