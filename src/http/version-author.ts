import type { VersionAuthor } from "../domain/composition/versions.ts";
import type { AuthContext } from "./types.ts";

/**
 * Who a request writes as, for the composition version it makes: `mcp` for an MCP tool call,
 * `console` for a console session, `api` for an API key (with the key's id when there is one).
 */
export function versionAuthor(auth: AuthContext): VersionAuthor {
  const keyId = auth.key?.id;
  const kind = auth.mcp ? "mcp" : auth.via === "session" ? "console" : "api";
  return { kind, ...(keyId ? { keyId } : {}) };
}
