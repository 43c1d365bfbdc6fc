import type {} from "@fastify/cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Config } from "../../../config.ts";
import type { Db } from "../../../db/client.ts";
import { createLoginLimiter } from "../../../domain/console/login-limiter.ts";
import {
  getCurrentSession,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  type SignInRequest,
} from "../../../domain/console/sessions.ts";
import {
  changePassword,
  logIn,
  type SignedIn,
  type SignInDeps,
  setUpPassword,
  signUp,
} from "../../../domain/console/sign-in.ts";
import { SESSION_COOKIE } from "../../plugins/auth.ts";
import type { RouteScopes } from "../../plugins/scopes.ts";
import { presentConsoleSession } from "../../presenters/console-sessions.ts";
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
import type { App } from "../../types.ts";

/** What the console sign-in routes need. */
export interface ConsoleAuthDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, "publicUrl" | "signup" | "sessionTtlSec" | "loginLimits">;
}

/**
 * Console sign-in: options, sign-in (rate-limited per IP and per account), sign-up (SIGNUP=open),
 * password setup links, the current session with its CSRF token, sign-out, the session list,
 * and password change. Sessions live in `console_sessions`; the cookie holds only a secret.
 * Sign-in routes are public; the session routes accept the console session alone.
 */
export async function registerConsoleAuthRoutes(
  app: App,
  scopes: RouteScopes,
  deps: ConsoleAuthDeps,
): Promise<void> {
  const { db, clock, config } = deps;
  const signInDeps: SignInDeps = {
    db,
    clock,
    sessionTtlSec: config.sessionTtlSec,
    limiter: createLoginLimiter(db, config.loginLimits, clock),
    signup: config.signup,
  };
  const secure = config.publicUrl.startsWith("https:");

  /** What a sign-in needs to know of the request. */
  function signInRequest(request: FastifyRequest): SignInRequest {
    return {
      presentedSecret: request.cookies[SESSION_COOKIE],
      userAgent: request.headers["user-agent"] ?? null,
      ip: request.ip,
    };
  }

  /** Sets the cookie of a session just started and presents the sign-in. */
  function signedIn(reply: FastifyReply, { user, session, secret }: SignedIn) {
    reply.setCookie(SESSION_COOKIE, secret, {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure,
      maxAge: config.sessionTtlSec,
    });
    return {
      user: presentUser(user),
      session: presentConsoleSession(session, session.id),
      csrfToken: session.csrfToken,
    };
  }

  await scopes.public(app, (publicApp) => {
    publicApp.get(
      "/api/v1/auth/options",
      {
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

    publicApp.post(
      "/api/v1/auth/login",
      {
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
        return signedIn(reply, await logIn(signInDeps, { email, password, request: signInRequest(request) }));
      },
    );

    publicApp.post(
      "/api/v1/auth/setup",
      {
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
        return signedIn(
          reply,
          await setUpPassword(signInDeps, { token, password, request: signInRequest(request) }),
        );
      },
    );

    publicApp.post(
      "/api/v1/auth/signup",
      {
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
        const { email, password, name } = request.body;
        const user = await signUp(signInDeps, { email, password, name, request: signInRequest(request) });
        return reply.code(201).send(signedIn(reply, user));
      },
    );
  });

  await scopes.console(app, (consoleApp) => {
    consoleApp.get(
      "/api/v1/auth/session",
      {
        schema: {
          operationId: "getSession",
          summary: "The signed-in user, this session and its CSRF token",
          tags: ["Console"],
          security: CONSOLE_SECURITY,
          response: responses({ 200: SessionState }, [401, 403, 429, 500]),
        },
      },
      async (request) => {
        const auth = request.auth;
        const session = await getCurrentSession(db, auth.sessionId);
        return {
          user: presentUser({ id: auth.userId, plan: auth.plan, ...auth.user }),
          session: presentConsoleSession(session, session.id),
          csrfToken: session.csrfToken,
        };
      },
    );

    consoleApp.post(
      "/api/v1/auth/logout",
      {
        schema: {
          operationId: "logout",
          summary: "Sign out: ends this session on the server and clears the cookie",
          tags: ["Console"],
          security: CONSOLE_SECURITY,
          response: responses({ 204: null }, [401, 403, 429, 500]),
        },
      },
      async (request, reply) => {
        const auth = request.auth;
        await revokeSession(deps, auth.userId, auth.sessionId);
        reply.clearCookie(SESSION_COOKIE, { path: "/" });
        return reply.code(204).send();
      },
    );

    consoleApp.get(
      "/api/v1/auth/sessions",
      {
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
        const auth = request.auth;
        const rows = await listSessions(deps, auth.userId);
        return { data: rows.map((s) => presentConsoleSession(s, auth.sessionId)) };
      },
    );

    consoleApp.delete(
      "/api/v1/auth/sessions/:sessionId",
      {
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
        const auth = request.auth;
        await revokeSession(deps, auth.userId, request.params.sessionId);
        return reply.code(204).send();
      },
    );

    consoleApp.post(
      "/api/v1/auth/sessions/revoke-others",
      {
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
        const auth = request.auth;
        return { revoked: await revokeOtherSessions(deps, auth.userId, auth.sessionId) };
      },
    );

    consoleApp.post(
      "/api/v1/auth/password",
      {
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
        const auth = request.auth;
        const { currentPassword, newPassword } = request.body;
        await changePassword(signInDeps, {
          user: { id: auth.userId, email: auth.user.email, sessionId: auth.sessionId },
          currentPassword,
          newPassword,
          ip: request.ip,
        });
        return reply.code(204).send();
      },
    );
  });
}
