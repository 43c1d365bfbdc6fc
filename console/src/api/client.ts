import createClient, { type Middleware } from "openapi-fetch";
import type { RequestBody, ResponseBody } from "../../../clients/typescript/src/types.ts";
import type { paths } from "./schema";

/**
 * Wire shapes of the documented API, taken from the operations that return them (with the
 * TypeScript client's `ResponseBody`: both are generated from the same OpenAPI document).
 */
export interface Schemas {
  Upload: ResponseBody<"/api/v1/uploads", "get", 200>["data"][number];
  Project: ResponseBody<"/api/v1/projects/{projectId}", "get", 200>;
  Me: ResponseBody<"/api/v1/me", "get", 200>;
  ApiKey: ResponseBody<"/api/v1/keys", "get", 200>["data"][number];
  ConsoleSession: ResponseBody<"/api/v1/auth/sessions", "get", 200>["data"][number];
  SessionState: ResponseBody<"/api/v1/auth/session", "get", 200>;
  CaptureTokenCreated: ResponseBody<"/api/v1/projects/{projectId}/capture-tokens", "post", 201>;
  Models: ResponseBody<"/api/v1/generate/models", "get", 200>;
  Composition: ResponseBody<"/api/compositions/{id}", "get", 200>;
  Render: ResponseBody<"/api/render/{jobId}", "get", 200>;
  Generation: ResponseBody<"/api/v1/generations/{id}", "get", 200>;
}
export type Upload = Schemas["Upload"];
export type Composition = Schemas["Composition"];
export type Track = Composition["tracks"][number];
export type Clip = Track["clips"][number];
/** A named point of a composition's timeline (a chapter, a beat, a note). */
export type Marker = NonNullable<Composition["markers"]>[number];
/** A transition into a clip: its type and duration (seconds, centred on the cut). */
export type Transition = NonNullable<Clip["transition"]>;
export type Render = Schemas["Render"];
export type Generation = Schemas["Generation"];
/** The body of `POST /api/compositions`. */
export type CompositionInput = RequestBody<"/api/compositions", "post">;
/** One JSON Patch operation of `PATCH /api/compositions/{id}`. */
export type { JsonPatchOperation as PatchOperation } from "../../../clients/typescript/src/types.ts";

let csrfToken: string | null = null;

/** Remembers the session's CSRF token (from sign-in or GET /api/v1/auth/session). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The token cookie-authenticated writes send in `X-CSRF-Token`. */
export function getCsrfToken(): string | null {
  return csrfToken;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !["GET", "HEAD", "OPTIONS"].includes(request.method)) {
      request.headers.set("X-CSRF-Token", csrfToken);
    }
    return request;
  },
};

/** Typed client of the Cutroom API for the signed-in console (session cookie + CSRF header). */
export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });
api.use(csrf);

/** The message of an API error body, or a generic one. */
export function errorMessage(error: unknown, fallback = "Something went wrong; try again."): string {
  const e = error as { error?: { message?: string } } | undefined;
  return e?.error?.message ?? fallback;
}
