// The sign-in rate limit lives in the database: two app instances on one database (as two API
// processes would be) share the per-account and per-IP counts, concurrent guesses stay within
// the limit, and the hourly pruning removes ended windows.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { findLoginWindows } from "../../src/db/repositories/login-limits.ts";
import { retentionTasks, startRetention } from "../../src/domain/retention/retention.ts";
import { createLogger } from "../../src/logger.ts";
import { fakeClock, startTestApp, type TestApp } from "../helpers/app.ts";
import { setPassword } from "./helpers.ts";

const PASSWORD = "correct horse battery";
const clock = fakeClock("2026-05-04T08:00:00Z");
const env = { LOGIN_MAX_FAILURES: "3", LOGIN_MAX_ATTEMPTS_PER_IP: "8", LOGIN_WINDOW_MIN: "10" };
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  a = await startTestApp({ clock, env });
  b = await startTestApp({ clock, env, testDb: a.testDb });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

let ipSeq = 0;
/** A client address of its own, so the per-IP limit of one test does not touch another. */
const freshIp = () => `198.51.100.${++ipSeq}`;

const loginOn = (t: TestApp, email: string, password: string, remoteAddress = freshIp()) =>
  t.app.inject({ method: "POST", url: "/api/v1/auth/login", payload: { email, password }, remoteAddress });

async function accountWithPassword(): Promise<string> {
  const email = `limits-${++ipSeq}@example.test`;
  const acct = await a.createAccount({ email });
  await setPassword(a, acct.userId, PASSWORD);
  return email;
}

describe("two instances on one database", () => {
  it("share the per-account failure count of a client, for a known and an unknown email alike", async () => {
    const email = await accountWithPassword();
    const attacker = freshIp();
    for (const [t, who] of [
      [a, email],
      [b, email],
      [a, email],
      [b, "nobody@example.test"],
      [a, "nobody@example.test"],
      [b, "nobody@example.test"],
    ] as const) {
      expect((await loginOn(t, who, "wrong wrong wrong", attacker)).statusCode).toBe(401);
    }
    const blocked = await loginOn(b, email, PASSWORD, attacker);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.message).toMatch(/Too many sign-in attempts/);
    const retryAfter = Number(blocked.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    const ghost = await loginOn(a, "nobody@example.test", "wrong wrong wrong", attacker);
    expect(ghost.statusCode).toBe(429);
    expect(ghost.json().error.message).toBe(blocked.json().error.message);

    clock.set(new Date(clock.now().getTime() + 601_000));
    expect((await loginOn(a, email, PASSWORD, attacker)).statusCode).toBe(200);
  });

  it("a guesser's failures stop the guesser, not the owner signing in from another address", async () => {
    const email = await accountWithPassword();
    const attacker = freshIp();
    for (let i = 0; i < 3; i++) {
      expect((await loginOn(i % 2 ? a : b, email, `guess ${i}`, attacker)).statusCode).toBe(401);
    }
    expect((await loginOn(a, email, "guess 4", attacker)).statusCode).toBe(429);
    expect((await loginOn(b, email, PASSWORD, attacker)).statusCode).toBe(429);
    // The owner, elsewhere, still signs in (and fails and retries within their own count).
    const owner = freshIp();
    expect((await loginOn(a, email, "typo typo typo", owner)).statusCode).toBe(401);
    expect((await loginOn(b, email, PASSWORD, owner)).statusCode).toBe(200);
    // The guesser stays stopped.
    expect((await loginOn(a, email, PASSWORD, attacker)).statusCode).toBe(429);
  });

  it("a successful sign-in on one instance clears the failures counted on the other", async () => {
    const email = await accountWithPassword();
    const ip = freshIp();
    expect((await loginOn(a, email, "wrong wrong wrong", ip)).statusCode).toBe(401);
    expect((await loginOn(a, email, "wrong wrong wrong", ip)).statusCode).toBe(401);
    expect((await loginOn(b, email, PASSWORD, ip)).statusCode).toBe(200);
    expect(await findLoginWindows(a.database.db, [`acct:${email}|ip:${ip}`])).toEqual([]);
    for (let i = 0; i < 3; i++)
      expect((await loginOn(a, email, "wrong wrong wrong", ip)).statusCode).toBe(401);
    expect((await loginOn(b, email, PASSWORD, ip)).statusCode).toBe(429);
  });

  it("share the per-IP attempt count, and a refused attempt counts against nothing", async () => {
    const ip = freshIp();
    const codes: number[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await loginOn(i % 2 === 0 ? a : b, `ip-${i}@example.test`, "x", ip);
      codes.push(res.statusCode);
      if (res.statusCode === 429) expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(codes).toEqual([...Array(8).fill(401), 429]);
    // The refused ninth attempt did not count against its email.
    expect(await findLoginWindows(a.database.db, [`acct:ip-8@example.test|ip:${ip}`])).toEqual([]);
    // Another address is not affected.
    expect((await loginOn(b, "ip-0@example.test", "x")).statusCode).toBe(401);
  });

  it("concurrent guesses on both instances stay within the account's limit", async () => {
    const email = await accountWithPassword();
    const ip = freshIp();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => loginOn(i % 2 === 0 ? a : b, email, `guess number ${i}`, ip)),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 401)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(7);
    const [row] = await findLoginWindows(a.database.db, [`acct:${email}|ip:${ip}`]);
    expect(row?.count).toBe(3);
  });
});

describe("pruning", () => {
  it("the hourly pruning deletes windows that started more than a day ago", async () => {
    const email = await accountWithPassword();
    expect((await loginOn(a, email, "wrong wrong wrong", "203.0.113.9")).statusCode).toBe(401);
    const subjects = [`acct:${email}|ip:203.0.113.9`, "ip:203.0.113.9"];
    expect(await findLoginWindows(a.database.db, subjects)).toHaveLength(2);

    clock.set(new Date(clock.now().getTime() + 25 * 3600_000));
    expect((await loginOn(b, "fresh@example.test", "x", "203.0.113.10")).statusCode).toBe(401);
    const stop = startRetention({
      tasks: retentionTasks(a.database.db, clock, { quotaKeepDays: 1, webhookDeliveryRetentionDays: 30 }),
      log: createLogger("silent"),
    });
    try {
      await vi.waitFor(async () => expect(await findLoginWindows(a.database.db, subjects)).toEqual([]), {
        timeout: 30_000,
      });
    } finally {
      stop();
    }
    // A window that started within the day is kept.
    expect(await findLoginWindows(a.database.db, ["ip:203.0.113.10"])).toHaveLength(1);
  });
});
