import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { CallerIdentity } from "../domain/auth/caller.ts";
import type { Scope } from "../domain/auth/scopes.ts";
import type { QuotaState } from "../domain/quota/daily-quota.ts";

/** The Fastify instance with the TypeBox type provider, as every route module receives it. */
export type App = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * Who is calling: set on `request.auth` by the auth hook for every authenticated request.
 * `via` says which credential: an API key (`key` set), a console session cookie (`sessionId`
 * set) or a phone capture token (`captureProjectId` set, uploads into that project only).
 */
export interface AuthContext extends Omit<CallerIdentity, "key"> {
  via: "key" | "session" | "capture";
  key: CallerIdentity["key"] | null;
  sessionId: string | null;
  captureProjectId: string | null;
  quota: QuotaState;
  /** Set on the in-process requests an MCP tool call makes on the caller's behalf. */
  mcp?: true;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** No key needed; counted against the caller IP's anonymous quota. */
    public?: boolean;
    /** Counted but never refused with 429 (health checks). */
    neverThrottle?: boolean;
    /**
     * A public route whose credential is a URL signature the handler checks (signed file
     * URLs): counted against the caller IP's separate, larger file-download quota instead
     * of the anonymous one.
     */
    signedUrl?: boolean;
    /** Scope a key needs beyond `read` (docs/conventions.md, Scopes). */
    scope?: Scope;
    /** Only a console session may call it (API keys and capture tokens get 403). */
    consoleOnly?: boolean;
    /** A phone capture token may call it (403 on every other route). */
    captureUpload?: boolean;
    /** Public and not counted against any quota (the console's static files). */
    uncounted?: boolean;
  }
  interface FastifyInstance {
    /** `"METHOD /path"` of every route registered with `config.scope = "write"`. */
    writeRoutes(): string[];
  }
  interface FastifyRequest {
    /** Set by the auth hook on keyed routes; null on public routes. */
    auth: AuthContext | null;
  }
}

/**
 * The caller of a keyed route. Throws when called on a public route — a programming error.
 */
export function requireAuth(request: { auth: AuthContext | null }): AuthContext {
  if (!request.auth) throw new Error("requireAuth on a route without authentication");
  return request.auth;
}
