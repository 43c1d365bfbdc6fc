import type { Readable } from "node:stream";
import { Type } from "typebox";
import { PREVIEW_MAX_SECONDS, type PreviewStream } from "../../../domain/preview/preview-stream.ts";
import { AUTH_ERRORS, responses, STANDARD_HEADERS } from "../../schemas/common.ts";
import { CompositionParams } from "../../schemas/composition.ts";
import {
  PreviewProxy,
  PreviewWidth,
  previewSourcesHeader,
  previewSourcesValue,
} from "../../schemas/preview.ts";
import type { KeyApp } from "../../types.ts";

/** Default length of a preview video, seconds. */
const DEFAULT_SECONDS = 6;

const PreviewQuery = Type.Object({
  from: Type.Number({
    minimum: 0,
    description: "Where the preview starts on the timeline, seconds",
    examples: [12],
  }),
  duration: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: PREVIEW_MAX_SECONDS,
      description: `Seconds of timeline to play, at most ${PREVIEW_MAX_SECONDS} (cut at the composition's end); default ${DEFAULT_SECONDS}`,
      examples: [6],
    }),
  ),
  width: PreviewWidth,
  proxy: PreviewProxy,
});

/**
 * `GET /api/compositions/:id/preview.mp4`: "Play from here", a draft render of the next seconds
 * streamed as fragmented MP4 while ffmpeg encodes it.
 */
export function registerPreviewRoute(app: KeyApp, deps: { previews: PreviewStream }): void {
  app.get(
    "/api/compositions/:id/preview.mp4",
    {
      // A HEAD would start (and at once stop) an ffmpeg for nothing.
      exposeHeadRoute: false,
      schema: {
        operationId: "getCompositionPreviewVideo",
        summary: "Stream a preview video of a composition (fragmented MP4)",
        description: `"Play from here": renders \`duration\` seconds (default ${DEFAULT_SECONDS}, at most ${PREVIEW_MAX_SECONDS}) of the composition from \`from\` with the real renderer, exactly as a \`POST /api/render\` of that \`range\` with \`quality: draft\` and \`width\` would (except that video clips are decoded from their uploads' 640-px preview proxies where these are ready and have pixels enough at this width: \`X-Preview-Sources\`), and streams it while ffmpeg encodes it: a fragmented MP4 (H.264 + AAC; a keyframe and a fragment after the first 0.1 s, then every 0.5 s) that a \`<video>\` plays from its first fragment. Nothing is stored; closing the connection stops ffmpeg and removes its files. Answers once ffmpeg has written the header (the plan runs), so 409 \`conflict\` with \`error.renderError\` ({ code, message, clipId? }) still comes as an error; a failure later ends the stream early. 400 naming \`/from\` at or past the end, \`/duration\` or \`/width\` out of range; 429 with \`Retry-After\` when too many preview videos are being streamed.`,
        tags: ["Compositions"],
        params: CompositionParams,
        querystring: PreviewQuery,
        response: {
          ...responses({}, [...AUTH_ERRORS, 404, 409]),
          200: {
            description: "The preview video, streamed (chunked, no length)",
            headers: {
              ...STANDARD_HEADERS,
              "X-Composition-Version": { type: "integer", description: "The version the video shows" },
              "Accept-Ranges": {
                type: "string",
                description: "`none`: the video is written while it is sent, so it has no byte ranges",
              },
              "X-Preview-Sources": previewSourcesHeader,
              "X-Preview-Duration": {
                type: "number",
                description:
                  "Seconds of timeline the video holds (the request's, cut at the composition's end)",
              },
            },
            content: {
              "video/mp4": {
                schema: Type.Unsafe<Readable>({
                  type: "string",
                  format: "binary",
                  examples: ["(fragmented MP4 bytes)"],
                }),
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      // When the client goes away (also while the preview is starting), ffmpeg goes with it.
      const video = await deps.previews.open(
        auth.userId,
        request.params.id,
        {
          from: request.query.from,
          duration: request.query.duration ?? DEFAULT_SECONDS,
          width: request.query.width ?? 640,
          proxies: request.query.proxy ?? true,
        },
        request.signal,
      );
      return reply
        .header("content-type", "video/mp4")
        .header("cache-control", "no-store")
        .header("accept-ranges", "none")
        .header("x-composition-version", String(video.version))
        .header("x-preview-duration", String(video.duration))
        .header("x-preview-sources", previewSourcesValue(video.sources) ?? "")
        .send(video.body);
    },
  );
}
