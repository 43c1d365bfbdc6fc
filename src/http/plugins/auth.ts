import { randomBytes, timingSafeEqual } from "node:crypto";
import type {} from "@fastify/cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../../clock.ts";
import type { Db, SqlExecutor } from "../../db/client.ts";
import { authenticateAndCount } from "../../db/repositories/api-keys.ts";
import { findLiveCaptureToken } from "../../db/repositories/capture-tokens.ts";
import { findLiveSession } from "../../db/repositories/console-sessions.ts";
import { countCall } from "../../db/repositories/quota.ts";
import type { UserRow } from "../../db/repositories/users.ts";
import { hashKeySecret, isWellFormedKey, isWellFormedSecret } from "../../domain/auth/api-key-secret.ts";
import { hasScope } from "../../domain/auth/scopes.ts";
import {
  planDailyLimit,
  type QuotaState,
  quotaDay,
  quotaState,
  resetAtIso,
  secondsUntilReset,
  UNLIMITED_QUOTA_HEADER,
} from "../../domain/quota/daily-quota.ts";
import { AppError } from "../../errors.ts";
import type { App, Auth, CaptureAuth, KeyAuth, SessionAuth } from "../types.ts";
import { createAuthBatcher } from "./auth-batcher.ts";

const INVALID_KEY = "Invalid or revoked API key";
const INVALID_CAPTURE = "This phone capture link has expired or was revoked; make a new one in the console";

/** Name of the console session cookie. */
export const SESSION_COOKIE = "cutroom_session";
/** Header carrying the session's CSRF token on cookie-authenticated writes. */
export const CSRF_HEADER = "x-csrf-token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const BEARER = /^Bearer[ \t]+(\S+)$/i;

// --- Quota headers and refusals -------------------------------------------------------------

/**
 * The `X-RateLimit-*` headers of a call. A call no quota applies to (an unlimited account, an
 * uncounted route) says {@link UNLIMITED_QUOTA_HEADER} for its limit and remaining calls.
 */
export function setQuotaHeaders(reply: FastifyReply, q: QuotaState): void {
  reply.headers({
    "X-RateLimit-Limit": String(q.limit ?? UNLIMITED_QUOTA_HEADER),
    "X-RateLimit-Remaining": String(q.remaining ?? UNLIMITED_QUOTA_HEADER),
    "X-RateLimit-Reset": resetAtIso(q.resetAt),
  });
}

function rateLimited(now: Date, what: string): AppError {
  const retry = secondsUntilReset(now);
  return new AppError("rate_limited", `${what} daily quota is used up; it resets at midnight UTC`, {
    headers: { "Retry-After": String(retry) },
  });
}

// --- Calls on a caller's behalf -------------------------------------------------------------

/** Header of a request the server makes on a caller's behalf (see {@link lendAuth}). */
export const ON_BEHALF_HEADER = "x-cutroom-on-behalf";
const lent = new Map<string, KeyAuth | SessionAuth>();

/**
 * Lends an authenticated request's identity to the requests the server makes on its behalf
 * through `app.inject` (MCP tool calls): a request carrying the returned token in
 * {@link ON_BEHALF_HEADER} is that caller, with the same key scopes, and is not counted again
 * (the outer request was); console-only routes refuse it. The token is 32 random bytes, lives
 * only in this process and only until `release`; an unknown token is refused like an invalid key.
 */
export function lendAuth(auth: KeyAuth | SessionAuth): { token: string; release(): void } {
  const token = randomBytes(32).toString("base64url");
  lent.set(token, auth);
  return { token, release: () => lent.delete(token) };
}

/** The lent identity of a request made on a caller's behalf; undefined for any other request. */
function borrowedAuth(request: FastifyRequest): KeyAuth | SessionAuth | undefined {
  const onBehalf = request.headers[ON_BEHALF_HEADER];
  if (onBehalf === undefined) return undefined;
  const auth = typeof onBehalf === "string" ? lent.get(onBehalf) : undefined;
  if (!auth) throw new AppError("unauthorized", INVALID_KEY);
  return auth;
}

// --- Authentication per scope ---------------------------------------------------------------

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function userIdentity(user: UserRow) {
  return {
    userId: user.id,
    plan: user.plan,
    user: { email: user.email, name: user.name, createdAt: user.createdAt, imageModel: user.imageModel },
  };
}

/** A key's scopes against the route's `config.scope`; sessions and capture tokens are not scoped. */
function checkScope(request: FastifyRequest, auth: Auth): void {
  const needed = request.routeOptions.config.scope;
  if (needed && auth.kind === "key" && !hasScope(auth.key.scopes, needed)) {
    throw new AppError("insufficient_scope", `This operation needs a key with the "${needed}" scope`);
  }
}

/** How the calls of a public scope are counted against the caller IP's quotas. */
export type PublicQuota =
  /** The anonymous daily quota, refused with 429 beyond it. */
  | "anonymous"
  /** Counted against the anonymous quota but never refused (health checks). */
  | "never-refused"
  /**
   * The separate, larger file-download quota: for routes whose credential is a URL signature
   * the handler checks (signed file URLs).
   */
  | "files"
  /** Not counted at all, with the headers of a call no quota applies to (the console's static files). */
  | "none";

/** An onRequest hook: authenticates the request, counts it and sets `request.auth`, or throws. */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The onRequest hook of each kind of route scope (see `routeScopes`). */
export interface Authenticators {
  /** No credential: counts the call against the caller IP's quota. */
  public(quota: PublicQuota): AuthHook;
  /** An API key (`Bearer crk_…`) or, without an Authorization header, a console session. */
  key: AuthHook;
  /** A console session cookie alone. */
  console: AuthHook;
  /** As `key`, and also a phone capture token (`Bearer crc_…`). */
  capture: AuthHook;
}

/** What authentication reads and counts with. */
export interface AuthDeps {
  db: Db;
  sql: SqlExecutor;
  clock: Clock;
  anonDailyLimit: number;
  /** Signed file downloads per UTC day per client IP. */
  filesDailyLimit: number;
  planLimits: { standard: number; upgraded: number };
}

/**
 * Decorates requests with `auth` (null until a scope's hook sets it), authenticates unknown
 * routes (404/405) as API routes, and returns the onRequest hook of each kind of scope. Every
 * hook counts the call against the daily quota (the account's, or the caller IP's anonymous one
 * for public routes and for requests without a valid credential) and sets the quota headers
 * before any error, so that every response carries them; keyed hooks enforce `config.scope`.
 *
 * Credentials: `Authorization: Bearer crk_…` (API key), `Bearer crc_…` (phone capture token,
 * only in capture scopes) or, without an Authorization header, the console session cookie,
 * whose writes must carry the session's token in `X-CSRF-Token` (synchronizer token).
 * Register after the cookie plugin and before any scope.
 */
export function registerAuth(app: App, deps: AuthDeps): Authenticators {
  app.decorateRequest("auth", null);
  const checkKey = createAuthBatcher((hash, calls) => {
    const now = deps.clock.now();
    return authenticateAndCount(deps.sql, { hash, day: quotaDay(now), now, calls, limits: deps.planLimits });
  });

  async function countAnonymous(
    request: FastifyRequest,
    reply: FastifyReply,
    now: Date,
    opts: { refuse: boolean; files?: boolean },
  ) {
    const limit = opts.files ? deps.filesDailyLimit : deps.anonDailyLimit;
    const used = await countCall(deps.db, {
      subject: opts.files ? `files-ip:${request.ip}` : `ip:${request.ip}`,
      day: quotaDay(now),
      limit: opts.refuse ? limit : null,
    });
    setQuotaHeaders(reply, quotaState(limit, used, now));
    if (used === null)
      throw rateLimited(now, opts.files ? "This client's file-download" : "This client's anonymous");
  }

  async function countUser(reply: FastifyReply, user: UserRow, now: Date): Promise<QuotaState> {
    const limit = planDailyLimit(user.plan, deps.planLimits);
    const used =
      limit === null ? null : await countCall(deps.db, { subject: user.id, day: quotaDay(now), limit });
    const quota = quotaState(limit, used, now);
    setQuotaHeaders(reply, quota);
    if (limit !== null && used === null) throw rateLimited(now, "This account's");
    return quota;
  }

  /** The session of the request's cookie; null without a cookie; throws for a dead one. */
  async function sessionAuth(
    request: FastifyRequest,
    reply: FastifyReply,
    now: Date,
  ): Promise<SessionAuth | null> {
    const secret = request.cookies?.[SESSION_COOKIE];
    if (!secret) return null;
    const found = isWellFormedSecret(secret, "crs")
      ? await findLiveSession(deps.db, hashKeySecret(secret), now)
      : null;
    if (!found) {
      await countAnonymous(request, reply, now, { refuse: true });
      throw new AppError("unauthorized", "You are not signed in, or your session ended; sign in again");
    }
    if (!SAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== "string" || !sameToken(sent, found.session.csrfToken)) {
        throw new AppError(
          "forbidden",
          "Missing or wrong X-CSRF-Token header: cookie-authenticated writes must send the session's CSRF token (GET /api/v1/auth/session)",
        );
      }
    }
    const quota = await countUser(reply, found.user, now);
    return { ...userIdentity(found.user), kind: "session", sessionId: found.session.id, quota };
  }

  /** The capture token's caller; 403 (uncounted) where capture tokens may not call. */
  async function captureAuth(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    now: Date,
    allowed: boolean,
  ): Promise<CaptureAuth> {
    const found = await findLiveCaptureToken(deps.db, hashKeySecret(token), now);
    if (!found) {
      await countAnonymous(request, reply, now, { refuse: true });
      throw new AppError("unauthorized", INVALID_CAPTURE, {
        headers: { "WWW-Authenticate": 'Bearer realm="cutroom", error="invalid_token"' },
      });
    }
    if (!allowed) {
      throw new AppError("forbidden", "A phone capture token can only upload files (POST /api/v1/uploads)");
    }
    const quota = await countUser(reply, found.user, now);
    return { ...userIdentity(found.user), kind: "capture", projectId: found.token.projectId, quota };
  }

  /** The API key of a Bearer token (batched with concurrent checks of the same key). */
  async function keyAuth(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    now: Date,
  ): Promise<KeyAuth> {
    const check = isWellFormedKey(token) ? await checkKey(hashKeySecret(token)) : null;
    const found = check?.found;
    if (!check || !found) {
      await countAnonymous(request, reply, now, { refuse: true });
      throw new AppError("unauthorized", INVALID_KEY, {
        headers: { "WWW-Authenticate": 'Bearer realm="cutroom", error="invalid_token"' },
      });
    }
    const limit = planDailyLimit(found.plan, deps.planLimits);
    const quota = quotaState(limit, check.used, now);
    setQuotaHeaders(reply, quota);
    if (!check.granted) throw rateLimited(now, "This account's");
    // user and key are shared by every request the statement counted (see authenticateAndCount).
    return { userId: found.userId, plan: found.plan, user: found.user, key: found.key, kind: "key", quota };
  }

  /** An API key or a console session, and a capture token where `captureAllowed`. */
  async function callerAuth(
    request: FastifyRequest,
    reply: FastifyReply,
    captureAllowed: boolean,
  ): Promise<Auth> {
    const now = deps.clock.now();
    // A header that is not `Bearer <token>` (another scheme, a bare key, no token) carries
    // no API key: "Missing API key". A Bearer token that is no known key is "Invalid".
    const header = request.headers.authorization?.trim();
    const session = header ? null : await sessionAuth(request, reply, now);
    if (session) return session;
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) {
      await countAnonymous(request, reply, now, { refuse: true });
      throw new AppError("unauthorized", "Missing API key", {
        headers: { "WWW-Authenticate": 'Bearer realm="cutroom"' },
      });
    }
    if (isWellFormedSecret(token, "crc")) return captureAuth(request, reply, token, now, captureAllowed);
    return keyAuth(request, reply, token, now);
  }

  const keyed =
    (captureAllowed: boolean): AuthHook =>
    async (request, reply) => {
      const auth = borrowedAuth(request) ?? (await callerAuth(request, reply, captureAllowed));
      request.auth = auth;
      checkScope(request, auth);
    };
  const key = keyed(false);

  // Unknown routes (404, 405) answer as API routes do: authenticated and counted.
  app.addHook("onRequest", async (request, reply) => {
    if (request.is404) await key(request, reply);
  });

  return {
    public: (quota) => async (request, reply) => {
      if (quota === "none") return setQuotaHeaders(reply, quotaState(null, null, deps.clock.now()));
      if (borrowedAuth(request)) return;
      await countAnonymous(request, reply, deps.clock.now(), {
        refuse: quota !== "never-refused",
        files: quota === "files",
      });
    },
    key,
    capture: keyed(true),
    console: async (request, reply) => {
      if (borrowedAuth(request)) throw new AppError("forbidden", "This operation needs a console session");
      const now = deps.clock.now();
      const header = request.headers.authorization?.trim();
      const session = header ? null : await sessionAuth(request, reply, now);
      if (session) {
        request.auth = session;
        return;
      }
      if (!header) await countAnonymous(request, reply, now, { refuse: true });
      throw new AppError(
        header ? "forbidden" : "unauthorized",
        header
          ? "This operation needs a console session: sign in at /console (API keys cannot manage keys, sessions or capture links)"
          : "You are not signed in; sign in at /console",
      );
    },
  };
}
