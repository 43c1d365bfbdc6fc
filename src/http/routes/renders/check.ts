import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { preflightRender } from "../../../domain/render-jobs/preflight.ts";
import type { StartRenderBody } from "../../../domain/render-jobs/start-render.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import { CompositionParams } from "../../schemas/composition.ts";
import { RenderCheck, RenderCheckQuery, RenderCreate } from "../../schemas/render.ts";
import type { KeyApp } from "../../types.ts";

/** What the render check routes need. */
export interface RenderCheckRouteDeps {
  db: Db;
  clock: Clock;
  store: BlobStore;
  renderLimits: RenderLimits;
  /** Scratch space of the check (`WORK_DIR`). */
  workRoot: string;
}

const CHECK_DESCRIPTION =
  "Runs every check a render makes before the encoder starts, without rendering: the request's checks (as `POST /api/render`: 400/404/409), then the sources (each upload still there, each remote `src` downloaded and probed), the fonts, and the plan. Answers 200 with `ok`, the `problems` that would fail the render (each as `Render.error` would say it, naming the clip and upload) and the `warnings` the render would record (`TRANSITION_HANDLE_MISSING`, `SOURCE_TOO_SHORT`, `GLYPH_MISSING`, …), and for an mp4 the smart rendering plan (`smartRender`: the frames it would copy from their sources, and why it would encode the rest; planned as a render in one piece: a split render also encodes the frames from each segment's start to the next keyframe). Nothing is stored or queued and the daily render minutes are not charged; the call counts against the daily call quota like any other.";

/**
 * The render preflight (`preflightRender`): `POST /api/render/check` takes a `POST /api/render`
 * body (stored or inline composition, merge values, output options) and
 * `GET /api/compositions/:id/check` checks a stored composition with output options from the
 * query. Closing the connection aborts the check's downloads.
 */
export function registerRenderCheckRoutes(app: KeyApp, deps: RenderCheckRouteDeps): void {
  const check = (userId: string, body: StartRenderBody, signal: AbortSignal) =>
    preflightRender(
      {
        db: deps.db,
        store: deps.store,
        workRoot: deps.workRoot,
        limits: deps.renderLimits,
        now: deps.clock.now(),
      },
      { userId, body, signal },
    );

  app.post(
    "/api/render/check",
    {
      schema: {
        operationId: "checkRender",
        summary: "Check a render without rendering (preflight)",
        description: `${CHECK_DESCRIPTION} \`callbackUrl\` and \`Idempotency-Key\` are not used.`,
        tags: ["Renders"],
        body: RenderCreate,
        response: responses({ 200: RenderCheck }, [...AUTH_ERRORS, 404, 409, 413, 415], {
          400: "The request is one `POST /api/render` would refuse (invalid composition, merge values or output options, over a cost limit); `error.details[].path` names the field.",
        }),
      },
    },
    async (request) => {
      const auth = request.auth;
      return check(auth.userId, request.body, request.signal);
    },
  );

  app.get(
    "/api/compositions/:id/check",
    {
      schema: {
        operationId: "checkComposition",
        summary: "Check that a stored composition renders (preflight)",
        description: `${CHECK_DESCRIPTION} The query holds the output options (default mp4 at the canvas size).`,
        tags: ["Compositions"],
        params: CompositionParams,
        querystring: RenderCheckQuery,
        response: responses({ 200: RenderCheck }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request) => {
      const auth = request.auth;
      return check(auth.userId, { compositionId: request.params.id, output: request.query }, request.signal);
    },
  );
}
