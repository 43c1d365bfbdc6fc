import { api, type Composition, errorMessage, type PatchOperation } from "./client";

/** What a composition PATCH came to: the new composition, a version conflict, or another error. */
export type PatchResult =
  | { ok: true; composition: Composition }
  | { ok: false; conflict: boolean; message: string };

/**
 * Applies a JSON Patch (RFC 6902) to composition `id` through `PATCH /api/compositions/{id}`,
 * sent as `application/json-patch+json` with `If-Match` naming `version`: when someone else
 * changed it since, the answer is a conflict and nothing is applied.
 */
export async function patchComposition(
  id: string,
  version: number,
  ops: PatchOperation[],
): Promise<PatchResult> {
  const { data, error, response } = await api.PATCH("/api/compositions/{id}", {
    params: { path: { id }, header: { "if-match": `"${version}"` } },
    body: ops,
    headers: { "content-type": "application/json-patch+json" },
  });
  if (data) return { ok: true, composition: data };
  return { ok: false, conflict: response.status === 409, message: errorMessage(error) };
}

/** One version of a composition: who wrote it, when, a one-line summary and its patch. */
export type CompositionVersion = Awaited<ReturnType<typeof listCompositionVersions>>["versions"][number];

/**
 * The newest versions of composition `id` (`GET /api/compositions/{id}/versions`, newest first,
 * up to `limit`), and whether that reaches the oldest stored one.
 * @throws Error with the API's message when the list cannot be read.
 */
export async function listCompositionVersions(id: string, limit = 100) {
  const { data, error } = await api.GET("/api/compositions/{id}/versions", {
    params: { path: { id }, query: { limit } },
  });
  if (!data) throw new Error(errorMessage(error));
  return { versions: data.data, complete: data.nextCursor === null };
}

/**
 * Reverts composition `id` to `version` (`POST /api/compositions/{id}/revert` with `If-Match`
 * naming `current`): a new version whose document equals that one's. A conflict when the
 * composition moved on from `current`.
 */
export async function revertComposition(id: string, current: number, version: number): Promise<PatchResult> {
  const { data, error, response } = await api.POST("/api/compositions/{id}/revert", {
    params: { path: { id }, header: { "if-match": `"${current}"` } },
    body: { version },
  });
  if (data) return { ok: true, composition: data };
  return { ok: false, conflict: response.status === 409, message: errorMessage(error) };
}
