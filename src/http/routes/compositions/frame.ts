import { Type } from "typebox";
import type { FramePreview } from "../../../domain/preview/render-frame.ts";
import { AUTH_ERRORS, responses, STANDARD_HEADERS } from "../../schemas/common.ts";
import { CompositionParams } from "../../schemas/composition.ts";
import {
  PreviewProxy,
  PreviewWidth,
  previewSourcesHeader,
  previewSourcesValue,
  serverTiming,
  serverTimingHeader,
} from "../../schemas/preview.ts";
import type { KeyApp } from "../../types.ts";

const FrameQuery = Type.Object({
  t: Type.Number({ minimum: 0, description: "Time on the timeline, seconds", examples: [12.3] }),
  width: PreviewWidth,
  proxy: PreviewProxy,
});

/** `GET /api/compositions/:id/frame`: one frame at a time, drawn by the renderer, for previews. */
export function registerFrameRoute(app: KeyApp, deps: { frames: FramePreview }): void {
  app.get(
    "/api/compositions/:id/frame",
    {
      schema: {
        operationId: "getCompositionFrame",
        summary: "Render one preview frame of a composition (JPEG)",
        description:
          "Renders the frame at `t` seconds with the real renderer (the same plan as a `jpg` render with `frameAt` and `width`, at draft quality: planned at that width, only the clips near `t`), synchronously. Video clips are decoded from their uploads' preview proxies (640 px, a keyframe every 0.5 s) where these are ready and have pixels enough for the clip at this width, else from the originals (`X-Preview-Sources` says which); a proxy frame differs from a render's by its resolution only. `t` is snapped to the canvas frame that shows at that time. Frames are cached by composition version, canvas frame and width: `ETag` is the version, frame and width, and a new version never answers an old frame. `Server-Timing` says where the time went (`prepare` and `ffmpeg` milliseconds, or `cache`). `X-Composition-Version` says which version the frame shows. 400 naming `/t` past the end; 409 `conflict` with `error.renderError` ({ code, message, clipId? }) when the composition cannot be rendered as it is (e.g. an upload it uses was deleted); 429 with `Retry-After` when too many frames are being rendered.",
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
                  'The version, canvas frame index and width of the frame, e.g. `"3-f369-640"`; send it back as `If-None-Match`',
              },
              "Server-Timing": serverTimingHeader,
              "X-Preview-Sources": previewSourcesHeader,
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
      const auth = request.auth;
      const frame = await deps.frames.frame(
        auth.userId,
        request.params.id,
        request.query.t,
        request.query.width ?? 640,
        { proxies: request.query.proxy ?? true, signal: request.signal },
      );
      const etag = `"${frame.version}-f${frame.frame}-${frame.width}"`;
      reply
        .header("content-type", "image/jpeg")
        .header("server-timing", serverTiming(frame.spans))
        .header("etag", etag)
        // The URL names no version: a browser may keep the frame but must ask (ETag) before reuse.
        .header("cache-control", "private, no-cache")
        .header("x-composition-version", String(frame.version));
      const sources = previewSourcesValue(frame.spans?.sources);
      if (sources) reply.header("x-preview-sources", sources);
      if (request.headers["if-none-match"] === etag) return reply.code(304).send(null);
      return reply.send(frame.jpeg);
    },
  );
}
