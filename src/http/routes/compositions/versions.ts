import { Type } from "typebox";
import type { Db } from "../../../db/client.ts";
import { revertComposition } from "../../../domain/composition/edit-composition.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { diffVersions, getVersion, listVersions } from "../../../domain/composition/versions.ts";
import { invalidRequest } from "../../../errors.ts";
import { pageWindow, toPage } from "../../pagination.ts";
import { presentCompositionVersion } from "../../presenters/composition-versions.ts";
import { presentComposition } from "../../presenters/compositions.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import { CompositionParams, CompositionResponse } from "../../schemas/composition.ts";
import {
  CompositionVersionParams,
  CompositionVersionResponse,
  RevertBody,
  VersionDiffQuery,
  VersionDiffResponse,
} from "../../schemas/composition-version.ts";
import type { KeyApp } from "../../types.ts";
import { versionAuthor } from "../../version-author.ts";
import { parseIfMatch } from "./if-match.ts";

const READ_ERRORS = [...AUTH_ERRORS, 404] as const;

/**
 * Version routes of compositions (docs/composition.md, Versions): list, one version, the diff
 * between two, and revert (a new version equal to an old one, with If-Match).
 */
export function registerCompositionVersionRoutes(
  app: KeyApp,
  deps: { db: Db; clock: { now(): Date }; renderLimits: RenderLimits },
): void {
  app.get(
    "/api/compositions/:id/versions",
    {
      schema: {
        operationId: "listCompositionVersions",
        summary: "List the versions of a composition, newest first",
        description:
          "Every accepted write (create, PUT, PATCH, the assistant, the console, MCP, imports, reverts) is a version, kept as the retention rule says: every version of the last 30 days, then the last of each day, and always the current one.",
        tags: ["Compositions"],
        params: CompositionParams,
        querystring: Type.Object(PageQuery),
        response: responses({ 200: Page(CompositionVersionResponse, "CompositionVersionPage") }, READ_ERRORS),
      },
    },
    async (request) => {
      const auth = request.auth;
      const page = await listVersions(deps.db, {
        userId: auth.userId,
        compositionId: request.params.id,
        ...pageWindow(request.query),
      });
      return toPage(page, presentCompositionVersion);
    },
  );

  app.get(
    "/api/compositions/:id/versions/:version",
    {
      schema: {
        operationId: "getCompositionVersion",
        summary: "Fetch a composition as it was at a version",
        description:
          "The composition resource at that version (`version` and `updatedAt` are the version's). 404 when the version was never written or was pruned.",
        tags: ["Compositions"],
        params: CompositionVersionParams,
        response: responses({ 200: CompositionResponse }, READ_ERRORS),
      },
    },
    async (request) => {
      const auth = request.auth;
      const found = await getVersion(deps.db, {
        userId: auth.userId,
        compositionId: request.params.id,
        version: request.params.version,
      });
      return found.composition;
    },
  );

  app.get(
    "/api/compositions/:id/versions/:version/diff",
    {
      schema: {
        operationId: "diffCompositionVersions",
        summary: "The JSON Patch from one version of a composition to another",
        description:
          "RFC 6902 operations that turn version `from` into this version; applied to `GET …/versions/{from}` (without its server fields) they give this version. `from` may be later than this version.",
        tags: ["Compositions"],
        params: CompositionVersionParams,
        querystring: VersionDiffQuery,
        response: responses({ 200: VersionDiffResponse }, READ_ERRORS),
      },
    },
    async (request) => {
      const auth = request.auth;
      const patch = await diffVersions(deps.db, {
        userId: auth.userId,
        compositionId: request.params.id,
        from: request.query.from,
        to: request.params.version,
      });
      return { from: request.query.from, to: request.params.version, patch };
    },
  );

  app.post(
    "/api/compositions/:id/revert",
    {
      config: { scope: "write" },
      schema: {
        operationId: "revertComposition",
        summary: "Revert a composition to an earlier version",
        description:
          'Writes a new version whose name and timeline equal version `version` (the composition stays in its project); its author is `revert`. Send the current version as `If-Match: "<version>"`: a stale one is a 409 `version_conflict` carrying `currentVersion`. A 400 when the old document no longer validates (an upload it used was deleted).',
        tags: ["Compositions"],
        params: CompositionParams,
        headers: Type.Object({ "if-match": Type.Optional(Type.String()) }),
        body: RevertBody,
        response: responses({ 200: CompositionResponse }, [...READ_ERRORS, 403, 409, 413, 415]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch === undefined) {
        throw invalidRequest('Send the version this revert is based on as If-Match, e.g. If-Match: "7"', [
          { path: "/headers/if-match", message: "required" },
        ]);
      }
      const row = await revertComposition(
        {
          db: deps.db,
          userId: auth.userId,
          now: deps.clock.now(),
          limits: deps.renderLimits,
          author: { ...versionAuthor(auth), kind: "revert" },
        },
        { id: request.params.id, version: request.body.version, ifMatch },
      );
      return reply.header("ETag", `"${row.version}"`).send(presentComposition(row));
    },
  );
}
