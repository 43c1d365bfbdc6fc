import type {} from "@fastify/cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Config } from "../../../config.ts";
import type { Db } from "../../../db/client.ts";
import {
  type ConsoleSessionRow,
  findLiveSession,
  findSessionById,
  listLiveSessions,
  revokeSessions,
} from "../../../db/repositories/console-sessions.ts";
import {
  consumePasswordToken,
  findPasswordHash,
  upsertPasswordHash,
} from "../../../db/repositories/passwords.ts";
import { findUser, insertUser, type UserRow } from "../../../db/repositories/users.ts";
import { hashKeySecret, isWellFormedSecret } from "../../../domain/auth/api-key-secret.ts";
import { createLoginLimiter } from "../../../domain/console/login-limiter.ts";
import { assertPasswordPolicy, hashPassword, verifyPassword } from "../../../domain/console/passwords.ts";
import { startSession } from "../../../domain/console/sessions.ts";
import { AppError, conflict, invalidRequest } from "../../../errors.ts";
import { SESSION_COOKIE } from "../../plugins/auth.ts";
import { presentUser } from "../../presenters/users.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import {
  AuthOptions,
  CONSOLE_SECURITY,
  ConsoleSession,
  LoginBody,
  NO_SECURITY,
  PasswordChangeBody,
  SessionState,
  SetupBody,
  SignupBody,
} from "../../schemas/console.ts";
import { type App, requireAuth } from "../../types.ts";

/** What the console sign-in routes need. */
export interface ConsoleAuthDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, "publicUrl" | "signup" | "sessionTtlSec" | "loginLimits">;
}

function presentSession(s: ConsoleSessionRow, currentId: string | null) {
  return {
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    userAgent: s.userAgent,
    ip: s.ip,
    current: s.id === currentId,
  };
}

const WRONG_CREDENTIALS = "Wrong email or password";

/**
 * Console sign-in: options, sign-in (rate-limited per IP and per account), sign-up (SIGNUP=open),
 * password setup links, the current session with its CSRF token, sign-out, the session list,
 * and password change. Sessions live in `console_sessions`; the cookie holds only a secret.
 */
export function registerConsoleAuthRoutes(app: App, deps: ConsoleAuthDeps): void {
  const { db, clock, config } = deps;
  const limiter = createLoginLimiter(db, config.loginLimits, clock);
  const secure = config.publicUrl.startsWith("https:");

  /** Replaces any session the request came with by a new one and sets its cookie. */
  async function signIn(request: FastifyRequest, reply: FastifyReply, user: UserRow) {
    const now = clock.now();
    const presented = request.cookies[SESSION_COOKIE];
    if (presented && isWellFormedSecret(presented, "crs")) {
      const old = await findLiveSession(db, hashKeySecret(presented), now);
      if (old) await revokeSessions(db, { userId: old.user.id, now, only: old.session.id });
    }
    const { session, secret } = await startSession(db, {
      userId: user.id,
      userAgent: request.headers["user-agent"] ?? null,
      ip: request.ip,
      now,
      ttlSec: config.sessionTtlSec,
    });
    reply.setCookie(SESSION_COOKIE, secret, {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure,
      maxAge: config.sessionTtlSec,
    });
    return {
      user: presentUser(user),
      session: presentSession(session, session.id),
      csrfToken: session.csrfToken,
    };
  }

  const publicAuth = { config: { public: true } } as const;

  app.get(
    "/api/v1/auth/options",
    {
      ...publicAuth,
      schema: {
        operationId: "getAuthOptions",
        summary: "What the console's sign-in page offers",
        tags: ["Console"],
        security: NO_SECURITY,
        response: responses({ 200: AuthOptions }, [429, 500]),
      },
    },
    async () => ({ signup: config.signup === "open" }),
  );

  app.post(
    "/api/v1/auth/login",
    {
      ...publicAuth,
      schema: {
        operationId: "login",
        summary: "Sign in to the console with email and password",
        description:
          "Sets the HttpOnly session cookie and returns the CSRF token for later writes. An unknown email and a wrong password get the same 401. Attempts are limited per client IP and failures per account (429 with Retry-After).",
        tags: ["Console"],
        security: NO_SECURITY,
        body: LoginBody,
        response: responses({ 200: SessionState }, [400, 401, 429, 500]),
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const retry = await limiter.attempt(request.ip, email);
      if (retry !== null) {
        throw new AppError(
          "rate_limited",
          `Too many sign-in attempts. Wait ${Math.ceil(retry / 60)} minute(s) and try again.`,
          { headers: { "Retry-After": String(retry) } },
        );
      }
      const user = await findUser(db, email.trim());
      const ok = await verifyPassword(user ? await findPasswordHash(db, user.id) : null, password);
      if (!user || !ok) throw new AppError("unauthorized", WRONG_CREDENTIALS);
      await limiter.succeeded(request.ip, email);
      return signIn(request, reply, user);
    },
  );

  app.post(
    "/api/v1/auth/setup",
    {
      ...publicAuth,
      schema: {
        operationId: "setupPassword",
        summary: "Set a password from a one-time setup link and sign in",
        description:
          "The token comes from a link `<PUBLIC_URL>/console/setup?token=…` printed at first start or by `cutroom users create` / `cutroom users reset-password`. Valid 24 hours, once. Ends the account's other console sessions.",
        tags: ["Console"],
        security: NO_SECURITY,
        body: SetupBody,
        response: responses({ 200: SessionState }, [400, 429, 500]),
      },
    },
    async (request, reply) => {
      const { token, password } = request.body;
      assertPasswordPolicy(password, "/password");
      const now = clock.now();
      const userId = isWellFormedSecret(token, "crp")
        ? await consumePasswordToken(db, hashKeySecret(token), now)
        : null;
      const user = userId ? await findUser(db, userId) : null;
      if (!user) {
        throw invalidRequest(
          "This setup link is invalid, already used or expired; ask for a new one (cutroom users reset-password)",
          [{ path: "/token", message: "is invalid, used or expired" }],
        );
      }
      await upsertPasswordHash(db, user.id, await hashPassword(password), now);
      await revokeSessions(db, { userId: user.id, now });
      return signIn(request, reply, user);
    },
  );

  app.post(
    "/api/v1/auth/signup",
    {
      ...publicAuth,
      schema: {
        operationId: "signup",
        summary: "Create an account and sign in (only when SIGNUP=open)",
        tags: ["Console"],
        security: NO_SECURITY,
        body: SignupBody,
        response: responses({ 201: SessionState }, [400, 403, 409, 429, 500]),
      },
    },
    async (request, reply) => {
      if (config.signup !== "open") throw new AppError("forbidden", "Sign-up is closed on this server");
      const { email, password } = request.body;
      assertPasswordPolicy(password, "/password");
      const address = email.trim();
      if (await findUser(db, address)) throw conflict("An account with this email already exists");
      const user = await insertUser(db, {
        email: address,
        name: request.body.name ?? address.split("@")[0] ?? address,
        plan: "standard",
      });
      await upsertPasswordHash(db, user.id, await hashPassword(password), clock.now());
      return reply.code(201).send(await signIn(request, reply, user));
    },
  );

  const consoleOnly = { config: { consoleOnly: true } } as const;

  app.get(
    "/api/v1/auth/session",
    {
      ...consoleOnly,
      schema: {
        operationId: "getSession",
        summary: "The signed-in user, this session and its CSRF token",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        response: responses({ 200: SessionState }, [401, 403, 429, 500]),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const session = (await findSessionById(db, auth.sessionId as string)) as ConsoleSessionRow;
      return {
        user: presentUser({ id: auth.userId, plan: auth.plan, ...auth.user }),
        session: presentSession(session, session.id),
        csrfToken: session.csrfToken,
      };
    },
  );

  app.post(
    "/api/v1/auth/logout",
    {
      ...consoleOnly,
      schema: {
        operationId: "logout",
        summary: "Sign out: ends this session on the server and clears the cookie",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        response: responses({ 204: null }, [401, 403, 429, 500]),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      await revokeSessions(db, { userId: auth.userId, now: clock.now(), only: auth.sessionId as string });
      reply.clearCookie(SESSION_COOKIE, { path: "/" });
      return reply.code(204).send();
    },
  );

  app.get(
    "/api/v1/auth/sessions",
    {
      ...consoleOnly,
      schema: {
        operationId: "listSessions",
        summary: "The account's live console sessions, newest first",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        response: responses(
          { 200: Type.Object({ data: Type.Array(ConsoleSession) }, { title: "SessionList" }) },
          [401, 403, 429, 500],
        ),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const rows = await listLiveSessions(db, auth.userId, clock.now());
      return { data: rows.map((s) => presentSession(s, auth.sessionId)) };
    },
  );

  app.delete(
    "/api/v1/auth/sessions/:sessionId",
    {
      ...consoleOnly,
      schema: {
        operationId: "revokeSession",
        summary: "Sign out one of the account's sessions (idempotent)",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        params: Type.Object({ sessionId: Type.String({ maxLength: 64 }) }),
        response: responses({ 204: null }, [401, 403, 429, 500]),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      await revokeSessions(db, { userId: auth.userId, now: clock.now(), only: request.params.sessionId });
      return reply.code(204).send();
    },
  );

  app.post(
    "/api/v1/auth/sessions/revoke-others",
    {
      ...consoleOnly,
      schema: {
        operationId: "revokeOtherSessions",
        summary: "Sign out every other session of the account",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        response: responses(
          { 200: Type.Object({ revoked: Type.Integer() }, { title: "RevokedCount" }) },
          [401, 403, 429, 500],
        ),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const revoked = await revokeSessions(db, {
        userId: auth.userId,
        now: clock.now(),
        except: auth.sessionId as string,
      });
      return { revoked };
    },
  );

  app.post(
    "/api/v1/auth/password",
    {
      ...consoleOnly,
      schema: {
        operationId: "changePassword",
        summary: "Change the password (signs out the account's other sessions)",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        body: PasswordChangeBody,
        response: responses({ 204: null }, [...AUTH_ERRORS, 403]),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { currentPassword, newPassword } = request.body;
      const retry = await limiter.attempt(request.ip, auth.user.email);
      if (retry !== null) {
        throw new AppError("rate_limited", "Too many password attempts. Wait and try again.", {
          headers: { "Retry-After": String(retry) },
        });
      }
      if (!(await verifyPassword(await findPasswordHash(db, auth.userId), currentPassword))) {
        throw invalidRequest("The current password is wrong", [
          { path: "/currentPassword", message: "is wrong" },
        ]);
      }
      await limiter.succeeded(request.ip, auth.user.email);
      assertPasswordPolicy(newPassword, "/newPassword");
      const now = clock.now();
      await upsertPasswordHash(db, auth.userId, await hashPassword(newPassword), now);
      await revokeSessions(db, { userId: auth.userId, now, except: auth.sessionId as string });
      return reply.code(204).send();
    },
  );
}
