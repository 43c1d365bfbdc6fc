import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { type ConsoleSessionRow, insertSession } from "../../db/repositories/console-sessions.ts";
import { newId } from "../../ids.ts";
import { generateSecret, hashKeySecret } from "../auth/api-key-secret.ts";

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
