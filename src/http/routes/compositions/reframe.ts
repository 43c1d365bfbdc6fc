import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { reframeStoredComposition } from "../../../domain/reframe/reframe.ts";
import { invalidRequest } from "../../../errors.ts";
import type { FaceDetector } from "../../../media/faces/detector.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { presentCompositionWithWarnings } from "../../presenters/compositions.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import { CompositionParams } from "../../schemas/composition.ts";
import { ReframeBody, ReframeResponse } from "../../schemas/reframe.ts";
import type { KeyApp } from "../../types.ts";
import { versionAuthor } from "../../version-author.ts";
import { parseIfMatch } from "./if-match.ts";

/** `POST /api/compositions/:id/reframe`: a new aspect ratio, each video clip cropped to follow the faces in it. */
export function registerReframeRoute(
  app: KeyApp,
  deps: {
    db: Db;
    clock: Clock;
    store: BlobStore;
    workRoot: string;
    renderLimits: RenderLimits;
    faces: FaceDetector;
  },
): void {
  app.post(
    "/api/compositions/:id/reframe",
    {
      config: { scope: "write" },
      schema: {
        operationId: "reframeComposition",
        summary: "Reframe for another aspect ratio, following faces",
        description:
          'Changes the canvas to `aspectRatio` (its shorter side kept) and gives each video clip a `reframe`: a window of the clip box\'s aspect that follows the faces in its picture, shot by shot (the upload\'s scene cuts). Faces are found by a face detector that runs on this server (sampled 4 times a second; fewer on clips over 2 minutes), tracked and smoothed so that a still face gives a still window, and the window always keeps the detected face inside. Two people too far apart for one window get a split layout (two stacked windows, the left person above); a shot without faces gets the most active region, or the centre; `reasons` says which, shot by shot. A clip whose shots need different layouts is split at those cuts. Stored as one new version (summary like "reframed 9:16, 6 shots"), so one revert undoes it. Send the current version as `If-Match: "<version>"`: a stale one is a 409 `version_conflict`. Takes about a second per 5 seconds of footage.',
        tags: ["Compositions"],
        params: CompositionParams,
        headers: Type.Object({ "if-match": Type.Optional(Type.String()) }),
        body: ReframeBody,
        response: responses({ 200: ReframeResponse }, [...AUTH_ERRORS, 403, 404, 409]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch === undefined) {
        throw invalidRequest('Send the version this reframe is based on as If-Match, e.g. If-Match: "7"', [
          { path: "/headers/if-match", message: "required" },
        ]);
      }
      const out = await reframeStoredComposition(
        {
          db: deps.db,
          userId: auth.userId,
          now: deps.clock.now(),
          limits: deps.renderLimits,
          author: versionAuthor(auth),
        },
        { store: deps.store, clock: deps.clock, workRoot: deps.workRoot, faces: deps.faces },
        {
          id: request.params.id,
          ifMatch,
          aspectRatio: request.body.aspectRatio,
          clipIds: request.body.clipIds,
          signal: request.signal,
        },
      );
      return reply.header("ETag", `"${out.row.version}"`).send({
        composition: await presentCompositionWithWarnings(deps.db, out.row),
        summary: out.summary,
        shots: out.shots,
        reasons: out.reasons,
      });
    },
  );
}
