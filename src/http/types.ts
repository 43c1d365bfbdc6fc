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

/** What every authenticated caller is: the account, its plan and this call's quota state. */
interface CallerBase extends Omit<CallerIdentity, "key"> {
  /** The account's daily call quota after counting this call. */
  quota: QuotaState;
  /** Set on the in-process requests an MCP tool call makes on the caller's behalf. */
  mcp?: true;
}

/** A caller with an API key (`Authorization: Bearer crk_…`), limited to the key's scopes. */
export interface KeyAuth extends CallerBase {
  kind: "key";
  key: CallerIdentity["key"];
}

/** A caller with a console session cookie (writes carried the session's CSRF token). */
export interface SessionAuth extends CallerBase {
  kind: "session";
  sessionId: string;
}

/** A caller with a phone capture token (`Bearer crc_…`): uploads into `projectId` only. */
export interface CaptureAuth extends CallerBase {
  kind: "capture";
  projectId: string;
}

/** Who is calling: set on `request.auth` by the onRequest hook of the route's scope. */
export type Auth = KeyAuth | SessionAuth | CaptureAuth;

/** The route groups, each a Fastify context whose onRequest hook does its kind of authentication. */
export type ScopeKind = "public" | "key" | "console" | "capture";

/** `request.auth` in each scope: none on public routes; a console session alone on console routes. */
interface AuthByScope {
  public: null;
  key: KeyAuth | SessionAuth;
  console: SessionAuth;
  capture: Auth;
}

declare const scopeBrand: unique symbol;

/** The raw request type of a scope's routes: `IncomingMessage` branded (type only) with the scope. */
export type ScopedRawRequest<K extends ScopeKind> = IncomingMessage & { readonly [scopeBrand]: K };

/** `request.auth`'s type for a request of raw type `R`: narrowed in a scope, any caller or none outside. */
export type AuthOf<R> = R extends { readonly [scopeBrand]: infer K extends ScopeKind }
  ? AuthByScope[K]
  : Auth | null;

/** The Fastify instance of one scope: its routes' handlers see `request.auth` narrowed (see {@link AuthOf}). */
export type ScopedApp<K extends ScopeKind> = FastifyInstance<
  Server,
  ScopedRawRequest<K>,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
/** Routes that need no credential. */
export type PublicApp = ScopedApp<"public">;
/** The API: an API key or a console session. */
export type KeyApp = ScopedApp<"key">;
/** Console-only routes: the session cookie alone. */
export type ConsoleApp = ScopedApp<"console">;
/** Routes a phone capture token may call, besides keys and sessions. */
export type CaptureApp = ScopedApp<"capture">;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Scope a key needs beyond `read` (docs/conventions.md, Scopes). */
    scope?: Scope;
  }
  interface FastifyInstance {
    /** `"METHOD /path"` of every route registered with `config.scope = "write"`. */
    writeRoutes(): string[];
  }
  // Same type parameters as Fastify's own declaration, so that `auth` can follow the raw request type.
  interface FastifyRequest<
    RouteGeneric,
    RawServer,
    RawRequest,
    SchemaCompiler,
    TypeProvider,
    ContextConfig,
    Logger,
    RequestType,
  > {
    /** Set by the onRequest hook of the route's scope (see {@link AuthOf}). */
    auth: AuthOf<RawRequest>;
  }
}
