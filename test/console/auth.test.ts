// Console sign-in through HTTP: setup links, sign-in and its rate limit, session fixation,
// CSRF on every cookie-authenticated write, sign-out, sessions, password change, sign-up.
import { sql } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/client.ts";
import { bootstrapOwner } from "../../src/domain/accounts/bootstrap-owner.ts";
import { bearer, fakeClock, startTestApp, type TestApp } from "../helpers/app.ts";
import { type ConsoleLogin, login, sessionCookie, setPassword } from "./helpers.ts";

const PASSWORD = "correct horse battery";
let t: TestApp;
const clock = fakeClock("2026-03-01T10:00:00Z");

beforeAll(async () => {
  t = await startTestApp({ clock, env: { LOGIN_MAX_FAILURES: "3", LOGIN_MAX_ATTEMPTS_PER_IP: "1000" } });
});
afterAll(() => t.close());

const inject = (opts: InjectOptions) => t.app.inject(opts);

describe("setup link", () => {
  it("first start prints a one-time link that sets the owner's password and signs in", async () => {
    const owner = await bootstrapOwner(t.database.db, {
      email: "owner@example.test",
      publicUrl: t.config.publicUrl,
    });
    expect(owner).not.toBeNull();
    const url = new URL(owner?.setupUrl as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${t.config.publicUrl}/console/setup`);
    const token = url.searchParams.get("token");

    const short = await inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: "short" },
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.details[0].path).toBe("/password");

    const res = await inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(res.json().user.email).toBe("owner@example.test");

    const again = await inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: PASSWORD },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.message).toMatch(/used or expired/);
  });

  it("expires after 24 hours", async () => {
    const a = await t.createAccount();
    const { issuePasswordLink } = await import("../../src/domain/console/password-link.ts");
    const { url } = await issuePasswordLink(t.database.db, {
      userId: a.userId,
      publicUrl: t.config.publicUrl,
      now: clock.now(),
    });
    clock.set(new Date(clock.now().getTime() + 24 * 3600_000 + 1000));
    const res = await inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token: new URL(url).searchParams.get("token"), password: PASSWORD },
    });
    expect(res.statusCode).toBe(400);
  });
  it("leaves the link unused, the password and the other sessions as they were when a write fails", async () => {
    const a = await t.createAccount();
    const before = await setPassword(t, a.userId, PASSWORD);
    const { issuePasswordLink } = await import("../../src/domain/console/password-link.ts");
    const { url } = await issuePasswordLink(t.database.db, {
      userId: a.userId,
      publicUrl: t.config.publicUrl,
      now: clock.now(),
    });
    const token = new URL(url).searchParams.get("token") as string;
    const db = t.database.db;
    const state = async () => {
      const rows = await db.execute(sql`
        select (select hash from user_passwords where user_id = ${a.userId}) as password,
               (select count(*)::int from password_tokens where user_id = ${a.userId} and used_at is null) as unused,
               (select count(*)::int from console_sessions where user_id = ${a.userId} and revoked_at is null) as live,
               (select count(*)::int from console_sessions where user_id = ${a.userId}) as sessions`);
      return rowsOf(rows)[0];
    };
    const was = await state();
    expect(was).toMatchObject({ unused: 1, live: 1, sessions: 1 });

    // The last write of the setup (the new session) fails, after the link, the password and the
    // other sessions were written.
    await db.execute(sql`create function refuse_session() returns trigger language plpgsql as $$
      begin raise exception 'refused by the test'; end $$`);
    await db.execute(sql`create trigger refuse_session before insert on console_sessions
      for each row execute function refuse_session()`);
    try {
      const failed = await inject({
        method: "POST",
        url: "/api/v1/auth/setup",
        payload: { token, password: "another good password" },
      });
      expect(failed.statusCode).toBe(500);
    } finally {
      await db.execute(sql`drop trigger refuse_session on console_sessions`);
      await db.execute(sql`drop function refuse_session()`);
    }
    expect(await state()).toEqual(was);
    const still = await inject({ url: "/api/v1/auth/session", headers: { cookie: before.cookie } });
    expect(still.statusCode).toBe(200);

    // The link still works once nothing fails.
    const ok = await inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: "another good password" },
    });
    expect(ok.statusCode).toBe(200);
    expect(await state()).toMatchObject({ unused: 0, live: 1, sessions: 2 });
  });
});

describe("sign-in", () => {
  let email: string;
  beforeAll(async () => {
    email = `signin-${Date.now()}@example.test`;
    const a = await t.createAccount({ email });
    await setPassword(t, a.userId, PASSWORD);
  });

  it("answers an unknown email and a wrong password alike, and rate-limits failures per account", async () => {
    const wrong = await inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email, password: "nope nope nope" },
    });
    const unknown = await inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email: "nobody@example.test", password: "nope nope nope" },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.message).toBe(wrong.json().error.message);

    for (let i = 0; i < 2; i++) {
      const r = await inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload: { email, password: "x" },
      });
      expect(r.statusCode).toBe(401);
    }
    // Three failures: the account is blocked for the window, even with the right password.
    const blocked = await inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email, password: PASSWORD },
    });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.message).toMatch(/Too many sign-in attempts/);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    // The same limit applies to an unknown email: a 429 reveals nothing.
    for (let i = 0; i < 3; i++) {
      await inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload: { email: "ghost@example.test", password: "x" },
      });
    }
    const ghost = await inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email: "ghost@example.test", password: "x" },
    });
    expect(ghost.statusCode).toBe(429);
    expect(ghost.json().error.message).toBe(blocked.json().error.message);

    clock.set(new Date(clock.now().getTime() + 16 * 60_000));
    const s = await login(t, email, PASSWORD);
    const me = await inject({ url: "/api/v1/me", headers: { cookie: s.cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json().apiKey).toBeNull();
    expect(me.json().user.email).toBe(email);
  });

  it("never keeps a session id the client brought (session fixation)", async () => {
    const planted = await login(t, email, PASSWORD);
    const res = await inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email, password: PASSWORD },
      headers: { cookie: planted.cookie },
    });
    expect(res.statusCode).toBe(200);
    const fresh = sessionCookie(res.headers["set-cookie"] as string);
    expect(fresh).not.toBe(planted.cookie);
    expect((await inject({ url: "/api/v1/me", headers: { cookie: planted.cookie } })).statusCode).toBe(401);
    expect((await inject({ url: "/api/v1/me", headers: { cookie: fresh } })).statusCode).toBe(200);
    // A made-up cookie value is never adopted either.
    const made = "cutroom_session=crs_0000000000000000000000000000000000000000";
    const r2 = await inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email, password: PASSWORD },
      headers: { cookie: made },
    });
    expect(sessionCookie(r2.headers["set-cookie"] as string)).not.toBe(made);
  });
});

describe("cookie-authenticated writes", () => {
  let s: ConsoleLogin;
  let userId: string;
  let email: string;
  beforeAll(async () => {
    email = `csrf-${Date.now()}@example.test`;
    const a = await t.createAccount({ email });
    userId = a.userId;
    s = await setPassword(t, userId, PASSWORD);
  });

  it("every write operation refuses a session cookie without the CSRF token", async () => {
    const doc = (await inject({ url: "/api/v1/openapi.json" })).json() as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const writes = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(([m, op]) => ["post", "put", "patch", "delete"].includes(m) && !(op.security?.length === 0))
        .map(([m]) => ({ method: m.toUpperCase(), url: p.replace(/\{[^}]+\}/g, "x_1") })),
    );
    expect(writes.length).toBeGreaterThan(10);
    for (const w of writes) {
      for (const headers of [{ cookie: s.cookie }, { cookie: s.cookie, "x-csrf-token": "wrong" }]) {
        const res = await inject({ method: w.method as "POST", url: w.url, headers, payload: {} });
        expect(res.statusCode, `${w.method} ${w.url}`).toBe(403);
        expect(res.json().error.message).toMatch(/X-CSRF-Token/);
      }
    }
    const ok = await inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: s.write,
      payload: { name: "csrf ok" },
    });
    expect(ok.statusCode).toBe(201);
  });

  it("lists sessions, signs out others, and sign-out ends the session for every holder", async () => {
    const other = await login(t, email, PASSWORD);
    const list = await inject({ url: "/api/v1/auth/sessions", headers: { cookie: s.cookie } });
    expect(list.statusCode).toBe(200);
    const data = list.json().data as { id: string; current: boolean }[];
    expect(data.length).toBeGreaterThanOrEqual(2);
    expect(data.filter((x) => x.current)).toHaveLength(1);

    const state = await inject({ url: "/api/v1/auth/session", headers: { cookie: other.cookie } });
    expect(state.json().csrfToken).toBe(other.csrf);

    const rev = await inject({
      method: "POST",
      url: "/api/v1/auth/sessions/revoke-others",
      headers: s.write,
    });
    expect(rev.json().revoked).toBeGreaterThanOrEqual(1);
    expect((await inject({ url: "/api/v1/me", headers: { cookie: other.cookie } })).statusCode).toBe(401);

    const out = await inject({ method: "POST", url: "/api/v1/auth/logout", headers: s.write });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers["set-cookie"])).toMatch(/cutroom_session=;/);
    const after = await inject({ url: "/api/v1/projects", headers: { cookie: s.cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.message).toMatch(/not signed in/);
  });

  it("changes the password only with the current one, and signs out the other sessions", async () => {
    const a = await login(t, email, PASSWORD);
    const b = await login(t, email, PASSWORD);
    const bad = await inject({
      method: "POST",
      url: "/api/v1/auth/password",
      headers: a.write,
      payload: { currentPassword: "wrong wrong wrong", newPassword: "a new password 1" },
    });
    expect(bad.statusCode).toBe(400);
    const res = await inject({
      method: "POST",
      url: "/api/v1/auth/password",
      headers: a.write,
      payload: { currentPassword: PASSWORD, newPassword: "a new password 1" },
    });
    expect(res.statusCode).toBe(204);
    expect((await inject({ url: "/api/v1/me", headers: { cookie: b.cookie } })).statusCode).toBe(401);
    expect((await inject({ url: "/api/v1/me", headers: { cookie: a.cookie } })).statusCode).toBe(200);
    await login(t, email, "a new password 1");
  });
});

describe("key management", () => {
  it("accepts a console session only; API keys get 403", async () => {
    const a = await t.createAccount();
    const s = await setPassword(t, a.userId, PASSWORD);
    for (const [method, url] of [
      ["GET", "/api/v1/keys"],
      ["POST", "/api/v1/keys"],
      ["DELETE", `/api/v1/keys/${a.keyId}`],
      ["GET", "/api/v1/auth/sessions"],
    ] as const) {
      const res = await inject({
        method,
        url,
        headers: bearer(a.key),
        payload: method === "POST" ? { name: "x", scopes: ["read"] } : undefined,
      });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.message).toMatch(/console session/);
    }
    expect((await inject({ url: "/api/v1/keys" })).statusCode).toBe(401);

    const created = await inject({
      method: "POST",
      url: "/api/v1/keys",
      headers: s.write,
      payload: { name: "ci", scopes: ["read"] },
    });
    expect(created.statusCode).toBe(201);
    const { key, secret } = created.json();
    expect(key.scopes).toEqual(["read"]);
    expect(secret).toMatch(/^crk_/);
    expect((await inject({ url: "/api/v1/projects", headers: bearer(secret) })).statusCode).toBe(200);
    expect(
      (
        await inject({
          method: "POST",
          url: "/api/v1/projects",
          headers: bearer(secret),
          payload: { name: "p" },
        })
      ).statusCode,
    ).toBe(403);

    const listed = (await inject({ url: "/api/v1/keys", headers: { cookie: s.cookie } })).json().data as {
      id: string;
    }[];
    expect(listed.map((k) => k.id)).toContain(key.id);
    const del = await inject({ method: "DELETE", url: `/api/v1/keys/${key.id}`, headers: s.write });
    expect(del.statusCode).toBe(204);
    expect((await inject({ url: "/api/v1/projects", headers: bearer(secret) })).statusCode).toBe(401);
    expect(
      (await inject({ method: "DELETE", url: `/api/v1/keys/${key.id}`, headers: s.write })).statusCode,
    ).toBe(204);

    const b = await t.createAccount();
    expect(
      (await inject({ method: "DELETE", url: `/api/v1/keys/${b.keyId}`, headers: s.write })).statusCode,
    ).toBe(404);
  });
});

describe("a second server: open sign-up, https, IP limit, no console build", () => {
  let u: TestApp;
  beforeAll(async () => {
    u = await startTestApp({
      env: {
        SIGNUP: "open",
        PUBLIC_URL: "https://cutroom.example.test",
        LOGIN_MAX_ATTEMPTS_PER_IP: "4",
        CONSOLE_DIR: "/nonexistent/console",
      },
    });
  });
  afterAll(() => u?.close());

  it("sign-up is closed by default and opens with SIGNUP=open; the cookie is Secure on https", async () => {
    const closed = await inject({
      method: "POST",
      url: "/api/v1/auth/signup",
      payload: { email: "new@example.test", password: PASSWORD },
    });
    expect(closed.statusCode).toBe(403);
    expect((await inject({ url: "/api/v1/auth/options" })).json()).toEqual({ signup: false });
    expect((await u.app.inject({ url: "/api/v1/auth/options" })).json()).toEqual({ signup: true });

    const res = await u.app.inject({
      method: "POST",
      url: "/api/v1/auth/signup",
      payload: { email: "new@example.test", password: PASSWORD },
    });
    expect(res.statusCode).toBe(201);
    expect(String(res.headers["set-cookie"])).toMatch(/Secure/);
    expect(res.json().user.plan).toBe("standard");
    const dup = await u.app.inject({
      method: "POST",
      url: "/api/v1/auth/signup",
      payload: { email: "new@example.test", password: PASSWORD },
    });
    expect(dup.statusCode).toBe(409);
  });

  it("rate-limits sign-in attempts per client IP, whatever the email", async () => {
    const codes: number[] = [];
    for (const who of [
      "a@example.test",
      "b@example.test",
      "c@example.test",
      "d@example.test",
      "e@example.test",
    ]) {
      const r = await u.app.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload: { email: who, password: "x" },
      });
      codes.push(r.statusCode);
    }
    expect(codes).toEqual([401, 401, 401, 401, 429]);
  });

  it("without a console build, /console says how to build it and the API still works", async () => {
    const page = await u.app.inject({ url: "/console/keys" });
    expect(page.statusCode).toBe(503);
    expect(page.body).toMatch(/npm run build:console/);
    expect((await u.app.inject({ url: "/api/v1/health" })).statusCode).toBe(200);
  });
});
