import { invalidRequest } from "../../../errors.ts";

/**
 * Parses an `If-Match` header carrying a composition version: `"3"`, `W/"3"` or `3`.
 * @returns the version, or undefined when the header is absent.
 * @throws 400 when present but not one version.
 */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!m) {
    throw invalidRequest('If-Match must carry one composition version, e.g. If-Match: "3"', [
      { path: "/headers/if-match", message: "not a version" },
    ]);
  }
  return Number(m[1]);
}
