import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { clearLoginWindow, countLoginAttempt, findLoginWindows } from "../../db/repositories/login-limits.ts";

/** Limits of {@link createLoginLimiter}. */
export interface LoginLimits {
  /** Sign-in attempts allowed per client IP in one window. */
  maxPerIp: number;
  /** Failed attempts allowed per account (email, known or not) from one client IP in one window. */
  maxFailuresPerAccount: number;
  /** Window length, seconds (at most a day: pruning drops windows older than that). */
  windowSec: number;
}

const ipSubject = (ip: string) => `ip:${ip}`;
/** An account as tried from one client: its failures lock out that client only. */
const accountSubject = (email: string, ip: string) => `acct:${email.trim().toLowerCase()}|ip:${ip}`;

/**
 * Fixed-window sign-in counters in the database (`login_limits`), so every API process
 * sharing it enforces one limit. Every attempt counts against the client IP and against the
 * email tried from that IP; a successful sign-in clears that count, so what remains are
 * failures (and attempts still being checked, which keeps concurrent guesses within the limit
 * too). The failure limit is per account *and* client, as the OWASP Authentication Cheat Sheet
 * advises against plain account lockout: a guesser is stopped after `maxFailuresPerAccount`
 * failures from its address (and after `maxPerIp` attempts on any accounts), while the owner
 * signing in from another address is not locked out of their account.
 * Unknown emails are counted exactly like known ones, so a 429 says nothing about whether an
 * account exists. A refused attempt counts against nothing.
 */
export function createLoginLimiter(db: Db, limits: LoginLimits, clock: Clock) {
  const windowMs = limits.windowSec * 1000;
  return {
    /**
     * Counts an attempt from `ip` for `email`.
     *
     * @returns null when allowed, else the seconds (≥ 1) until every full window blocking it ends.
     */
    async attempt(ip: string, email: string): Promise<number | null> {
      const now = clock.now();
      const subjects = [
        { subject: ipSubject(ip), max: limits.maxPerIp },
        { subject: accountSubject(email, ip), max: limits.maxFailuresPerAccount },
      ];
      if (await countLoginAttempt(db, { subjects, now, windowSec: limits.windowSec })) return null;
      const max = new Map(subjects.map((s) => [s.subject, s.max]));
      const ends = (await findLoginWindows(db, [...max.keys()]))
        .filter((w) => w.count >= (max.get(w.subject) ?? 0))
        .map((w) => w.windowStart.getTime() + windowMs);
      return Math.max(1, Math.ceil((Math.max(now.getTime(), ...ends) - now.getTime()) / 1000));
    },
    /** Clears the account's count from `ip` after a successful sign-in from there. */
    async succeeded(ip: string, email: string): Promise<void> {
      await clearLoginWindow(db, accountSubject(email, ip));
    },
  };
}

/** The limiter's interface. */
export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
