import { api, type Composition, errorMessage, type PatchOperation } from "./client";

/** What a composition PATCH came to: the new composition, a version conflict, or another error. */
export type PatchResult =
  | { ok: true; composition: Composition }
  | { ok: false; conflict: boolean; message: string; error: unknown };

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
  return { ok: false, conflict: response.status === 409, message: errorMessage(error), error };
}
