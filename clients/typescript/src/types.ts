import type { components, paths } from "./schema.js";

/** The JSON body of response `S` of operation `M` on path `P`, from the generated types. */
export type ResponseBody<
  P extends keyof paths,
  M extends keyof paths[P],
  S extends number,
> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? R[S] extends { content: { "application/json": infer J } }
      ? J
      : never
    : never
  : never;

/** The JSON request body of operation `M` on path `P`. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody: { content: { "application/json": infer J } };
}
  ? J
  : never;

/** An uploaded file (video, audio, image, subtitle or font) with its signed URL and media facts. */
export type Upload = ResponseBody<"/api/v1/uploads/{id}", "get", 200>;
/** A project. */
export type Project = ResponseBody<"/api/v1/projects/{projectId}", "get", 200>;
/** A stored composition (timeline) at its current version. */
export type Composition = ResponseBody<"/api/compositions/{id}", "get", 200>;
/** The body that creates or replaces a composition. */
export type CompositionInput = RequestBody<"/api/compositions", "post">;
/** One RFC 6902 operation of a composition PATCH. */
export type JsonPatchOperation = NonNullable<
  paths["/api/compositions/{id}"]["patch"]["requestBody"]
>["content"]["application/json-patch+json"][number];
/** One version of a composition (who wrote it, when, a summary and the patch from the one before). */
export type CompositionVersion = ResponseBody<"/api/compositions/{id}/versions", "get", 200>["data"][number];
/** The RFC 6902 patch between two versions of a composition. */
export type CompositionVersionDiff = ResponseBody<
  "/api/compositions/{id}/versions/{version}/diff",
  "get",
  200
>;
/** A render job. */
export type Render = ResponseBody<"/api/render/{jobId}", "get", 200>;
/** Output options of a render (format, size, fps, quality, range…). */
export type RenderOutputOptions = NonNullable<RequestBody<"/api/render", "post">["output"]>;
/** A generation (image or video) and its outputs. */
export type Generation = ResponseBody<"/api/v1/generations/{id}", "get", 200>;
/** An assistant session. */
export type AssistantSession = ResponseBody<"/api/assistant/session/{id}", "get", 200>;
/** One event of an assistant run (`session`, `text`, `tool_*`, `patch`, then `done` or `error`). */
export type AssistantEvent = components["schemas"][Extract<
  keyof components["schemas"],
  `AssistantEvent_${string}`
>];
/** The error body every status ≥ 400 carries. */
export type ErrorBody = ResponseBody<"/api/v1/projects/{projectId}", "get", 404>;
