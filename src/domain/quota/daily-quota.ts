/** Account plans; each has its daily quota (docs/conventions.md, Daily quota). */
export const PLANS = ["standard", "upgraded", "admin"] as const;
/** An account plan; decides the daily quota. */
export type Plan = (typeof PLANS)[number];

/**
 * The daily limit of `plan` (standard 1,000 and upgraded 10,000 by default,
 * configurable; admin unlimited) given the configured limits; null = unlimited.
 */
export function planDailyLimit(plan: Plan, limits: { standard: number; upgraded: number }): number | null {
  switch (plan) {
    case "standard":
      return limits.standard;
    case "upgraded":
      return limits.upgraded;
    case "admin":
      return null;
  }
}

/**
 * What `X-RateLimit-Limit` and `X-RateLimit-Remaining` say for a call no quota applies to (an
 * unlimited account, an uncounted console page): 2³¹−1, more calls than any day can hold, so a
 * client that waits when `Remaining` reaches 0 never waits. `GET /api/v1/me` keeps `null`.
 */
export const UNLIMITED_QUOTA_HEADER = 2_147_483_647;

/** The quota state sent as `X-RateLimit-*` headers and in `GET /api/v1/me`. */
export interface QuotaState {
  /** Calls allowed per day; null when unlimited (admin). */
  limit: number | null;
  /** Calls left today after this one (never negative); null when unlimited. */
  remaining: number | null;
  /** Start of the next UTC day, when the counter resets. */
  resetAt: Date;
}

/** The UTC calendar day of `now` as `YYYY-MM-DD` — the quota counter's key. */
export function quotaDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Midnight UTC after `now`: when today's counter stops applying. */
export function nextQuotaReset(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

let lastResetMs = Number.NaN;
let lastResetIso = "";

/**
 * `resetAt` as ISO 8601 (`2026-11-22T00:00:00.000Z`). It changes once a day, so the last
 * string is kept: every response's `X-RateLimit-Reset` header needs it.
 */
export function resetAtIso(resetAt: Date): string {
  const ms = resetAt.getTime();
  if (ms !== lastResetMs) {
    lastResetMs = ms;
    lastResetIso = resetAt.toISOString();
  }
  return lastResetIso;
}

/**
 * Quota state after a counted call.
 *
 * @param limit - daily limit, or null for unlimited.
 * @param used - the counter value after this call, or null when the call was refused (over quota).
 * @param now - the request time (injected clock).
 */
export function quotaState(limit: number | null, used: number | null, now: Date): QuotaState {
  const resetAt = nextQuotaReset(now);
  if (limit === null) return { limit: null, remaining: null, resetAt };
  return { limit, remaining: used === null ? 0 : Math.max(0, limit - used), resetAt };
}

/** Seconds from `now` until the reset, rounded up, at least 1 (for `Retry-After`). */
export function secondsUntilReset(now: Date): number {
  return Math.max(1, Math.ceil((nextQuotaReset(now).getTime() - now.getTime()) / 1000));
}
