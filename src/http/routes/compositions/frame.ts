import { Type } from "typebox";
import type { FramePreview } from "../../../domain/render-jobs/render-frame.ts";
import { AUTH_ERRORS, responses, STANDARD_HEADERS } from "../../schemas/common.ts";
import { CompositionParams } from "../../schemas/composition.ts";
import { type App, requireAuth } from "../../types.ts";

const FrameQuery = Type.Object({
  t: Type.Number({ minimum: 0, description: "Time on the timeline, seconds", examples: [12.3] }),
  width: Type.Optional(
    Type.Integer({
      minimum: 16,
      maximum: 1920,
      description: "Width in pixels (height follows the canvas aspect); default 640",
      examples: [640],
    }),
  ),
});

/** `GET /api/compositions/:id/frame`: one frame at a time, drawn by the renderer, for previews. */
export function registerFrameRoute(app: App, deps: { frames: FramePreview }): void {
  app.get(
    "/api/compositions/:id/frame",
    {
      schema: {
        operationId: "getCompositionFrame",
        summary: "Render one preview frame of a composition (JPEG)",
        description:
          "Renders the frame at `t` seconds with the real renderer (the same plan as a `jpg` render with `frameAt`, at draft quality), synchronously. Frames are cached by composition version, time and width: `ETag` is the version and time, and a new version never answers an old frame. `X-Composition-Version` says which version the frame shows. 400 naming `/t` past the end; 409 `conflict` with `error.renderError` ({ code, message, clipId? }) when the composition cannot be rendered as it is (e.g. an upload it uses was deleted); 429 with `Retry-After` when too many frames are being rendered.",
        tags: ["Compositions"],
        params: CompositionParams,
        querystring: FrameQuery,
        response: {
          ...responses({}, [...AUTH_ERRORS, 404, 409]),
          200: {
            description: "The frame",
            headers: {
              ...STANDARD_HEADERS,
              "X-Composition-Version": { type: "integer", description: "The version the frame shows" },
              ETag: {
                type: "string",
                description:
                  'The version, time and width of the frame, e.g. `"3-12.3-640"`; send it back as `If-None-Match`',
              },
            },
            content: {
              "image/jpeg": {
                schema: Type.Unsafe<Buffer>({
                  type: "string",
                  format: "binary",
                  examples: ["(JPEG image bytes)"],
                }),
              },
            },
          },
          304: {
            description: "Not modified: the frame of this `ETag` is still current",
            headers: STANDARD_HEADERS,
            type: "null",
          },
        },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const frame = await deps.frames.frame(
        auth.userId,
        request.params.id,
        request.query.t,
        request.query.width ?? 640,
      );
      const etag = `"${frame.version}-${frame.t}-${frame.width}"`;
      reply
        .header("content-type", "image/jpeg")
        .header("etag", etag)
        .header("cache-control", "private, max-age=3600")
        .header("x-composition-version", String(frame.version));
      if (request.headers["if-none-match"] === etag) return reply.code(304).send(null);
      return reply.send(frame.jpeg);
    },
  );
}
