import { Type } from "typebox";
import type { Db } from "../../../db/client.ts";
import {
  deleteComposition,
  getComposition,
  listCompositions,
} from "../../../domain/composition/compositions.ts";
import {
  createComposition,
  patchComposition,
  replaceComposition,
  type WriteContext,
} from "../../../domain/composition/edit-composition.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { invalidRequest } from "../../../errors.ts";
import { pageWindow, toPage } from "../../pagination.ts";
import { presentComposition, presentCompositionWithWarnings } from "../../presenters/compositions.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import {
  CompositionParams,
  CompositionResponse,
  CompositionWriteBody,
  JsonPatchOperation,
} from "../../schemas/composition.ts";
import type { KeyApp, KeyAuth, SessionAuth } from "../../types.ts";
import { versionAuthor } from "../../version-author.ts";
import { parseIfMatch } from "./if-match.ts";
import { registerRelinkRoute } from "./relink.ts";
import { registerCompositionVersionRoutes } from "./versions.ts";

const WRITE_ERRORS = [...AUTH_ERRORS, 403, 404, 413, 415] as const;

/** The 400 of composition writes: validation, including the render cost limits. */
const WRITE_ERROR_TEXT = {
  400: "Invalid composition: every problem is in `error.details` as `{ path, message }`. Besides structure, ranges, overlaps and references, the render cost limits apply: canvas width and height (`RENDER_MAX_WIDTH`, `RENDER_MAX_HEIGHT`, default 3840 px each), frame area (`RENDER_MAX_PIXELS`, default 3840×2160), fps (`RENDER_MAX_FPS`, default 60), timeline length (`RENDER_MAX_DURATION_SEC`, default 14400 s) and clips over all tracks (`COMPOSITION_MAX_CLIPS`, default 1000); the detail's path names the field (`/canvas/width`, `/canvas/fps`, `/canvas/duration`, `/tracks`).",
};

/**
 * Composition routes (docs/composition.md, Composition routes): list, create, fetch, replace (PUT with
 * optimistic concurrency), JSON Patch (RFC 6902) and delete, and their versions (`versions.ts`).
 * Responses carry `ETag: "<version>"`.
 */
export function registerCompositionRoutes(
  app: KeyApp,
  deps: { db: Db; clock: { now(): Date }; renderLimits: RenderLimits },
): void {
  const ctx = (auth: KeyAuth | SessionAuth): WriteContext => ({
    db: deps.db,
    userId: auth.userId,
    now: deps.clock.now(),
    limits: deps.renderLimits,
    author: versionAuthor(auth),
  });

  app.get(
    "/api/compositions",
    {
      schema: {
        operationId: "listCompositions",
        summary: "List compositions, newest first",
        tags: ["Compositions"],
        querystring: Type.Object({ ...PageQuery, projectId: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: responses({ 200: Page(CompositionResponse, "CompositionPage") }),
      },
    },
    async (request) => {
      const auth = request.auth;
      const page = await listCompositions(deps.db, {
        userId: auth.userId,
        projectId: request.query.projectId,
        ...pageWindow(request.query),
      });
      return toPage(page, presentComposition);
    },
  );

  app.post(
    "/api/compositions",
    {
      config: { scope: "write" },
      schema: {
        operationId: "createComposition",
        summary: "Create a composition",
        description:
          "Validates structure, ranges, clip overlaps and upload references (each `uploadId` must be the caller's, with a matching type). Track, clip and marker ids are assigned when missing.",
        tags: ["Compositions"],
        body: CompositionWriteBody,
        response: responses({ 201: CompositionResponse }, WRITE_ERRORS, WRITE_ERROR_TEXT),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await createComposition(ctx(auth), request.body);
      return reply.code(201).header("ETag", `"${row.version}"`).send(presentComposition(row));
    },
  );

  app.get(
    "/api/compositions/:id",
    {
      schema: {
        operationId: "getComposition",
        summary: "Fetch a composition",
        tags: ["Compositions"],
        params: CompositionParams,
        response: responses({ 200: CompositionResponse }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await getComposition(deps.db, auth.userId, request.params.id);
      return reply
        .header("ETag", `"${row.version}"`)
        .send(await presentCompositionWithWarnings(deps.db, row));
    },
  );

  app.put(
    "/api/compositions/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "replaceComposition",
        summary: "Replace a composition (optimistic concurrency)",
        description:
          'Send the version your copy is based on as body `version` or `If-Match: "<version>"`. A stale version is a 409 `version_conflict` carrying `currentVersion`; nothing is overwritten.',
        tags: ["Compositions"],
        params: CompositionParams,
        headers: Type.Object({ "if-match": Type.Optional(Type.String()) }),
        body: CompositionWriteBody,
        response: responses({ 200: CompositionResponse }, [...WRITE_ERRORS, 409], WRITE_ERROR_TEXT),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const headerVersion = parseIfMatch(request.headers["if-match"]);
      const bodyVersion = request.body.version;
      if (headerVersion !== undefined && bodyVersion !== undefined && headerVersion !== bodyVersion) {
        throw invalidRequest("If-Match and body version disagree", [
          { path: "/version", message: "differs from If-Match" },
        ]);
      }
      const baseVersion = headerVersion ?? bodyVersion;
      if (baseVersion === undefined) {
        throw invalidRequest('Send the version this write is based on: body "version" or If-Match', [
          { path: "/version", message: "required (or If-Match)" },
        ]);
      }
      const row = await replaceComposition(ctx(auth), {
        id: request.params.id,
        baseVersion,
        body: request.body,
      });
      return reply
        .header("ETag", `"${row.version}"`)
        .send(await presentCompositionWithWarnings(deps.db, row));
    },
  );

  app.patch(
    "/api/compositions/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "patchComposition",
        summary: "Apply a JSON Patch (RFC 6902) atomically",
        description:
          "Content-Type `application/json-patch+json`. Paths address the composition resource as GET returns it. The result is validated like a PUT; a failed `test` operation is a 409. `If-Match` is honoured.",
        tags: ["Compositions"],
        consumes: ["application/json-patch+json"],
        params: CompositionParams,
        headers: Type.Object({ "if-match": Type.Optional(Type.String()) }),
        body: Type.Array(JsonPatchOperation, {
          maxItems: 1000,
          examples: [[{ op: "replace", path: "/name", value: "Final cut" }]],
        }),
        response: responses({ 200: CompositionResponse }, [...WRITE_ERRORS, 409], WRITE_ERROR_TEXT),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const row = await patchComposition(ctx(auth), {
        id: request.params.id,
        patch: request.body,
        ifMatch: parseIfMatch(request.headers["if-match"]),
      });
      return reply
        .header("ETag", `"${row.version}"`)
        .send(await presentCompositionWithWarnings(deps.db, row));
    },
  );

  app.delete(
    "/api/compositions/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "deleteComposition",
        summary: "Delete a composition (idempotent)",
        description: "Answers 204 whether or not it existed. Renders keep their frozen copy.",
        tags: ["Compositions"],
        params: CompositionParams,
        response: responses({ 204: null }, [...AUTH_ERRORS, 403]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await deleteComposition(deps.db, auth.userId, request.params.id);
      return reply.code(204).send();
    },
  );
  registerCompositionVersionRoutes(app, deps);
  registerRelinkRoute(app, deps);
}
