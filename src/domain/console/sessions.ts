import { randomBytes } from "node:crypto";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  type ConsoleSessionRow,
  findLiveSession,
  findSessionById,
  insertSession,
  listLiveSessions,
  revokeSessions,
} from "../../db/repositories/console-sessions.ts";
import { newId } from "../../ids.ts";
import { generateSecret, hashKeySecret, isWellFormedSecret } from "../auth/api-key-secret.ts";

/**
 * Starts a console session for `userId`: a new row with a fresh cookie secret (never reused
 * from the request, so a planted cookie cannot be fixated) and a fresh CSRF token.
 *
 * @param ttlSec - lifetime, seconds.
 * @returns the row and the cookie secret `crs_…` (stored only as its SHA-256).
 */
export async function startSession(
  db: Db,
  input: { userId: string; userAgent: string | null; ip: string | null; now: Date; ttlSec: number },
): Promise<{ session: ConsoleSessionRow; secret: string }> {
  const secret = generateSecret("crs");
  const session = await insertSession(db, {
    id: newId("cns"),
    userId: input.userId,
    hash: hashKeySecret(secret),
    csrfToken: randomBytes(24).toString("base64url"),
    userAgent: input.userAgent?.slice(0, 300) ?? null,
    ip: input.ip,
    now: input.now,
    expiresAt: new Date(input.now.getTime() + input.ttlSec * 1000),
  });
  return { session, secret };
}

/** The request a sign-in comes with: the session cookie it presented (if any), its User-Agent and client IP. */
export interface SignInRequest {
  presentedSecret: string | undefined;
  userAgent: string | null;
  ip: string;
}

/** A session just started and its cookie secret `crs_…`. */
export interface StartedSession {
  session: ConsoleSessionRow;
  secret: string;
}

/**
 * Signs `userId` in: revokes the live session the request presented (whoever's it is) and
 * starts a new one. Run it inside the transaction of the use case that signs in.
 *
 * @param ttlSec - the new session's lifetime, seconds.
 */
export async function replaceSession(
  db: Db,
  input: { userId: string; request: SignInRequest; now: Date; ttlSec: number },
): Promise<StartedSession> {
  const { request, now } = input;
  const presented = request.presentedSecret;
  if (presented && isWellFormedSecret(presented, "crs")) {
    const old = await findLiveSession(db, hashKeySecret(presented), now);
    if (old) await revokeSessions(db, { userId: old.user.id, now, only: old.session.id });
  }
  return startSession(db, {
    userId: input.userId,
    userAgent: request.userAgent,
    ip: request.ip,
    now,
    ttlSec: input.ttlSec,
  });
}

/**
 * The session a console request was authenticated with (any state: the auth hook has checked it).
 * @throws Error when no session has that id (the auth hook only passes existing ones).
 */
export async function getCurrentSession(db: Db, sessionId: string): Promise<ConsoleSessionRow> {
  const session = await findSessionById(db, sessionId);
  if (!session) throw new Error(`console session ${sessionId} vanished`);
  return session;
}

/** The live sessions of `userId`, newest first. */
export function listSessions(deps: { db: Db; clock: Clock }, userId: string): Promise<ConsoleSessionRow[]> {
  return listLiveSessions(deps.db, userId, deps.clock.now());
}

/** Ends one session of `userId` (sign-out); nothing when it has none with that id (idempotent). */
export async function revokeSession(
  deps: { db: Db; clock: Clock },
  userId: string,
  sessionId: string,
): Promise<void> {
  await revokeSessions(deps.db, { userId, now: deps.clock.now(), only: sessionId });
}

/**
 * Ends every live session of `userId` but `keepSessionId`.
 * @returns how many were ended.
 */
export function revokeOtherSessions(
  deps: { db: Db; clock: Clock },
  userId: string,
  keepSessionId: string,
): Promise<number> {
  return revokeSessions(deps.db, { userId, now: deps.clock.now(), except: keepSessionId });
}
