import { Type } from "typebox";
import type { Db } from "../../../db/client.ts";
import { relinkComposition } from "../../../domain/composition/edit-composition.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { invalidRequest } from "../../../errors.ts";
import { presentCompositionWithWarnings } from "../../presenters/compositions.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import { CompositionParams, CompositionResponse } from "../../schemas/composition.ts";
import type { KeyApp } from "../../types.ts";
import { versionAuthor } from "../../version-author.ts";
import { parseIfMatch } from "./if-match.ts";

const RelinkBody = Type.Object(
  {
    from: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "The upload the clips use now (often a deleted one)",
    }),
    to: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "An upload of the caller that fits every such clip",
    }),
  },
  {
    additionalProperties: false,
    title: "RelinkBody",
    examples: [{ from: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C", to: "upl_01JD3Q7A2B4C6D8E0F2G4H6J8K" }],
  },
);

/** `POST /api/compositions/:id/relink`: points every clip of one upload at another. */
export function registerRelinkRoute(
  app: KeyApp,
  deps: { db: Db; clock: { now(): Date }; renderLimits: RenderLimits },
): void {
  app.post(
    "/api/compositions/:id/relink",
    {
      config: { scope: "write" },
      schema: {
        operationId: "relinkComposition",
        summary: "Relink the clips of one upload to another",
        description:
          'Every clip whose media asset or caption source is upload `from` (typically one deleted since: see `warnings`) uses upload `to` instead, as one new version; the rest of the composition is left as it is, even when other clips are still missing. `to` must be an upload of the caller that fits each clip (a 400 naming `/to` otherwise; another account\'s upload is not found). A 400 naming `/from` when no clip uses it. Send the current version as `If-Match: "<version>"`: a stale one is a 409 `version_conflict`. The same change can be made with a JSON Patch `replace` of `/tracks/{i}/clips/{j}/asset/uploadId`.',
        tags: ["Compositions"],
        params: CompositionParams,
        headers: Type.Object({ "if-match": Type.Optional(Type.String()) }),
        body: RelinkBody,
        response: responses({ 200: CompositionResponse }, [...AUTH_ERRORS, 403, 404, 409]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch === undefined) {
        throw invalidRequest('Send the version this relink is based on as If-Match, e.g. If-Match: "7"', [
          { path: "/headers/if-match", message: "required" },
        ]);
      }
      const row = await relinkComposition(
        {
          db: deps.db,
          userId: auth.userId,
          now: deps.clock.now(),
          limits: deps.renderLimits,
          author: versionAuthor(auth),
        },
        { id: request.params.id, from: request.body.from, to: request.body.to, ifMatch },
      );
      return reply
        .header("ETag", `"${row.version}"`)
        .send(await presentCompositionWithWarnings(deps.db, row));
    },
  );
}
