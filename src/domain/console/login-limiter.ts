import { LRUCache } from "lru-cache";
import type { Clock } from "../../clock.ts";

/** Limits of {@link createLoginLimiter}. */
export interface LoginLimits {
  /** Sign-in attempts allowed per client IP in one window. */
  maxPerIp: number;
  /** Failed attempts allowed per account (email, known or not) in one window. */
  maxFailuresPerAccount: number;
  /** Window length, seconds. */
  windowSec: number;
}

interface Window {
  count: number;
  startedAt: number;
}

/**
 * In-process fixed-window counters for sign-in: every attempt counts against the client IP,
 * every failure against the email tried. Unknown emails are counted exactly like known ones,
 * so a 429 says nothing about whether an account exists. Bounded memory (LRU of 100,000 keys).
 */
export function createLoginLimiter(limits: LoginLimits, clock: Clock) {
  const windows = new LRUCache<string, Window>({ max: 100_000 });
  const windowMs = limits.windowSec * 1000;

  const current = (key: string, now: number): Window | undefined => {
    const w = windows.get(key);
    return w && now - w.startedAt < windowMs ? w : undefined;
  };
  const bump = (key: string, now: number) => {
    const w = current(key, now);
    if (w) w.count++;
    else windows.set(key, { count: 1, startedAt: now });
  };
  const account = (email: string) => `acct:${email.trim().toLowerCase()}`;

  return {
    /**
     * Counts an attempt from `ip` for `email`.
     *
     * @returns null when allowed, else the seconds until the blocking window ends.
     */
    attempt(ip: string, email: string): number | null {
      const now = clock.now().getTime();
      const byIp = current(`ip:${ip}`, now);
      const byAccount = current(account(email), now);
      const blocked = [
        byIp && byIp.count >= limits.maxPerIp ? byIp : undefined,
        byAccount && byAccount.count >= limits.maxFailuresPerAccount ? byAccount : undefined,
      ].filter((w): w is Window => w !== undefined);
      if (blocked.length > 0) {
        const ends = Math.max(...blocked.map((w) => w.startedAt + windowMs));
        return Math.max(1, Math.ceil((ends - now) / 1000));
      }
      bump(`ip:${ip}`, now);
      return null;
    },
    /** Records a failed attempt for `email`. */
    failed(email: string): void {
      bump(account(email), clock.now().getTime());
    },
    /** Clears the account's failures after a successful sign-in. */
    succeeded(email: string): void {
      windows.delete(account(email));
    },
  };
}

/** The limiter's interface. */
export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
