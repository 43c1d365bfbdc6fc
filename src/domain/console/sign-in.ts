/**
 * Console sign-in use cases: sign in with email and password (rate-limited), set a password from
 * a one-time setup link, sign up (when the server's sign-up policy is open) and change the
 * password. Each one that writes does all its writes, the new session included, in one
 * transaction; passwords are hashed before it opens.
 */
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { revokeSessions } from "../../db/repositories/console-sessions.ts";
import {
  consumePasswordToken,
  findPasswordHash,
  upsertPasswordHash,
} from "../../db/repositories/passwords.ts";
import { findUser, insertUser, type UserRow } from "../../db/repositories/users.ts";
import { AppError, conflict, invalidRequest } from "../../errors.ts";
import { hashKeySecret, isWellFormedSecret } from "../auth/api-key-secret.ts";
import type { LoginLimiter } from "./login-limiter.ts";
import { assertPasswordPolicy, hashPassword, verifyPassword } from "./passwords.ts";
import { replaceSession, type SignInRequest, type StartedSession } from "./sessions.ts";

/** What the sign-in use cases need. */
export interface SignInDeps {
  db: Db;
  clock: Clock;
  /** Lifetime of a new console session, seconds. */
  sessionTtlSec: number;
  /** Counts sign-in and password-change attempts per IP and per account. */
  limiter: LoginLimiter;
  /** SIGNUP: whether anyone may create an account. */
  signup: Config["signup"];
}

/** A user signed in: the account and the session started for it. */
export interface SignedIn extends StartedSession {
  user: UserRow;
}

const WRONG_CREDENTIALS = "Wrong email or password";

/**
 * Signs in with email and password, replacing the session the request came with.
 *
 * @throws AppError 429 `rate_limited` (with `Retry-After`) when the IP or the account from this
 *   IP has made too many attempts; 401 `unauthorized` for an unknown email or a wrong password
 *   alike.
 */
export async function logIn(
  deps: SignInDeps,
  input: { email: string; password: string; request: SignInRequest },
): Promise<SignedIn> {
  const { email, password, request } = input;
  const retry = await deps.limiter.attempt(request.ip, email);
  if (retry !== null) {
    throw new AppError(
      "rate_limited",
      `Too many sign-in attempts. Wait ${Math.ceil(retry / 60)} minute(s) and try again.`,
      { headers: { "Retry-After": String(retry) } },
    );
  }
  const user = await findUser(deps.db, email.trim());
  const ok = await verifyPassword(user ? await findPasswordHash(deps.db, user.id) : null, password);
  if (!user || !ok) throw new AppError("unauthorized", WRONG_CREDENTIALS);
  await deps.limiter.succeeded(request.ip, email);
  return deps.db.transaction(async (tx) => ({ user, ...(await startFor(deps, tx, user, request)) }));
}

/**
 * Sets the password of the account a one-time setup link (`crp_…`, 24 h) was issued for and
 * signs it in. In one transaction: the link is used up, the password stored, the account's
 * other sessions ended and the new session started; a failure leaves the link unused.
 *
 * @throws AppError 400 `invalid_request` naming `/password` when it breaks the password policy,
 *   or `/token` when the link is invalid, already used or expired.
 */
export async function setUpPassword(
  deps: SignInDeps,
  input: { token: string; password: string; request: SignInRequest },
): Promise<SignedIn> {
  const { token, password, request } = input;
  assertPasswordPolicy(password, "/password");
  const invalidLink = () =>
    invalidRequest(
      "This setup link is invalid, already used or expired; ask for a new one (cutroom users reset-password)",
      [{ path: "/token", message: "is invalid, used or expired" }],
    );
  if (!isWellFormedSecret(token, "crp")) throw invalidLink();
  const hash = await hashPassword(password);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const userId = await consumePasswordToken(tx, hashKeySecret(token), now);
    const user = userId ? await findUser(tx, userId) : null;
    if (!user) throw invalidLink();
    await upsertPasswordHash(tx, user.id, hash, now);
    await revokeSessions(tx, { userId: user.id, now });
    return { user, ...(await startFor(deps, tx, user, request, now)) };
  });
}

/**
 * Creates a `standard` account with a password and signs it in, in one transaction.
 * @param input.name - the display name; the email's local part when not given.
 * @throws AppError 403 `forbidden` when sign-up is closed on this server; 400 `invalid_request`
 *   naming `/password` when it breaks the password policy; 409 `conflict` when the email is taken.
 */
export async function signUp(
  deps: SignInDeps,
  input: { email: string; password: string; name?: string | undefined; request: SignInRequest },
): Promise<SignedIn> {
  if (deps.signup !== "open") throw new AppError("forbidden", "Sign-up is closed on this server");
  assertPasswordPolicy(input.password, "/password");
  const address = input.email.trim();
  if (await findUser(deps.db, address)) throw conflict("An account with this email already exists");
  const hash = await hashPassword(input.password);
  return deps.db.transaction(async (tx) => {
    const user = await insertUser(tx, {
      email: address,
      name: input.name ?? address.split("@")[0] ?? address,
      plan: "standard",
    });
    await upsertPasswordHash(tx, user.id, hash, deps.clock.now());
    return { user, ...(await startFor(deps, tx, user, input.request)) };
  });
}

/**
 * Changes the password of a signed-in user after checking the current one (rate-limited like
 * sign-in) and ends the account's other sessions, in one transaction.
 *
 * @param input.user - the signed-in account and the session to keep.
 * @throws AppError 429 `rate_limited` (with `Retry-After`) after too many attempts;
 *   400 `invalid_request` naming `/currentPassword` when it is wrong, or `/newPassword` when the
 *   new one breaks the password policy.
 */
export async function changePassword(
  deps: Pick<SignInDeps, "db" | "clock" | "limiter">,
  input: {
    user: { id: string; email: string; sessionId: string };
    currentPassword: string;
    newPassword: string;
    ip: string;
  },
): Promise<void> {
  const { user, ip } = input;
  const retry = await deps.limiter.attempt(ip, user.email);
  if (retry !== null) {
    throw new AppError("rate_limited", "Too many password attempts. Wait and try again.", {
      headers: { "Retry-After": String(retry) },
    });
  }
  if (!(await verifyPassword(await findPasswordHash(deps.db, user.id), input.currentPassword))) {
    throw invalidRequest("The current password is wrong", [
      { path: "/currentPassword", message: "is wrong" },
    ]);
  }
  await deps.limiter.succeeded(ip, user.email);
  assertPasswordPolicy(input.newPassword, "/newPassword");
  const hash = await hashPassword(input.newPassword);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await upsertPasswordHash(tx, user.id, hash, now);
    await revokeSessions(tx, { userId: user.id, now, except: user.sessionId });
  });
}

/** Starts the session of a sign-in inside `tx`. */
function startFor(
  deps: Pick<SignInDeps, "clock" | "sessionTtlSec">,
  tx: Db,
  user: UserRow,
  request: SignInRequest,
  now = deps.clock.now(),
): Promise<StartedSession> {
  return replaceSession(tx, { userId: user.id, request, now, ttlSec: deps.sessionTtlSec });
}
