import type { VersionAuthor } from "../domain/composition/versions.ts";
import type { Auth } from "./types.ts";

/**
 * Who a request writes as, for the composition version it makes: `mcp` for an MCP tool call,
 * `console` for a console session, `api` for an API key (with the key's id when there is one).
 */
export function versionAuthor(auth: Auth): VersionAuthor {
  const keyId = auth.kind === "key" ? auth.key.id : undefined;
  const kind = auth.mcp ? "mcp" : auth.kind === "session" ? "console" : "api";
  return { kind, ...(keyId ? { keyId } : {}) };
}
