import type { FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../../clock.ts";
import type { Db, SqlExecutor } from "../../db/client.ts";
import { authenticateAndCount } from "../../db/repositories/api-keys.ts";
import { countCall } from "../../db/repositories/quota.ts";
import { hashKeySecret, isWellFormedKey } from "../../domain/auth/api-key-secret.ts";
import { hasScope } from "../../domain/auth/scopes.ts";
import {
  planDailyLimit,
  type QuotaState,
  quotaDay,
  quotaState,
  resetAtIso,
  secondsUntilReset,
} from "../../domain/quota/daily-quota.ts";
import { AppError } from "../../errors.ts";
import type { App } from "../types.ts";
import { createAuthBatcher } from "./auth-batcher.ts";

const INVALID_KEY = "Invalid or revoked API key";
const BEARER = /^Bearer[ \t]+(\S+)$/i;

function setQuotaHeaders(reply: FastifyReply, q: QuotaState): void {
  reply.headers({
    "X-RateLimit-Limit": String(q.limit),
    "X-RateLimit-Remaining": String(q.remaining),
    "X-RateLimit-Reset": resetAtIso(q.resetAt),
  });
}

function rateLimited(now: Date, what: string): AppError {
  const retry = secondsUntilReset(now);
  return new AppError("rate_limited", `${what} daily quota is used up; it resets at midnight UTC`, {
    headers: { "Retry-After": String(retry) },
  });
}

/**
 * Registers the onRequest hook that authenticates every non-public request (DESIGN §3),
 * counts it against the daily quota (DESIGN §4) and enforces route scopes. Public routes
 * and requests without a valid key count against the caller IP's anonymous quota.
 * Quota headers are set before any error so that every response carries them.
 */
export function registerAuth(
  app: App,
  deps: {
    db: Db;
    sql: SqlExecutor;
    clock: Clock;
    anonDailyLimit: number;
    /** Signed file downloads per UTC day per client IP. */
    filesDailyLimit: number;
    planLimits: { standard: number; upgraded: number };
  },
): void {
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

  app.addHook("onRequest", async (request, reply) => {
    const config = request.routeOptions.config;
    const now = deps.clock.now();
    if (config.public) {
      await countAnonymous(request, reply, now, {
        refuse: !config.neverThrottle,
        files: config.signedUrl === true,
      });
      return;
    }
    // A header that is not `Bearer <token>` (another scheme, a bare key, no token) carries
    // no API key: "Missing API key". A Bearer token that is no known key is "Invalid".
    const header = request.headers.authorization?.trim();
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) {
      await countAnonymous(request, reply, now, { refuse: true });
      throw new AppError("unauthorized", "Missing API key", {
        headers: { "WWW-Authenticate": 'Bearer realm="cutroom"' },
      });
    }
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
    request.auth = { userId: found.userId, plan: found.plan, user: found.user, key: found.key, quota };
    const needed = config.scope;
    if (needed && !hasScope(found.key.scopes, needed)) {
      throw new AppError("insufficient_scope", `This operation needs a key with the "${needed}" scope`);
    }
  });
}
