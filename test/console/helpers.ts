// Console sign-in helpers of the integration tests: set a password through a setup link and
// sign in with app.inject, keeping the session cookie and CSRF token.
import { issuePasswordLink } from "../../src/domain/console/password-link.ts";
import type { TestApp } from "../helpers/app.ts";

/** A signed-in console session as the tests use it. */
export interface ConsoleLogin {
  cookie: string;
  csrf: string;
  /** Headers of a cookie-authenticated write. */
  write: { cookie: string; "x-csrf-token": string };
}

/** The `cutroom_session=…` pair from a response's Set-Cookie header. */
export function sessionCookie(setCookie: string | string[] | undefined): string {
  const line = [setCookie ?? []].flat().find((c) => c.startsWith("cutroom_session="));
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(setCookie)}`);
  return line.split(";")[0] as string;
}

/** Sets `password` for `userId` through a fresh setup link; returns the session it starts. */
export async function setPassword(t: TestApp, userId: string, password: string): Promise<ConsoleLogin> {
  const { url } = await issuePasswordLink(t.database.db, { userId, publicUrl: t.config.publicUrl });
  const token = new URL(url).searchParams.get("token");
  const res = await t.app.inject({ method: "POST", url: "/api/v1/auth/setup", payload: { token, password } });
  if (res.statusCode !== 200) throw new Error(`setup failed: ${res.statusCode} ${res.body}`);
  return loginFromResponse(res);
}

/** Signs in; throws unless 200. */
export async function login(t: TestApp, email: string, password: string): Promise<ConsoleLogin> {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/auth/login", payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return loginFromResponse(res);
}

/** The session a sign-in or setup response started (its cookie and CSRF token). */
export function loginFromResponse(res: { headers: Record<string, unknown>; json(): unknown }): ConsoleLogin {
  const cookie = sessionCookie(res.headers["set-cookie"] as string[] | string | undefined);
  const csrf = (res.json() as { csrfToken: string }).csrfToken;
  return { cookie, csrf, write: { cookie, "x-csrf-token": csrf } };
}
