import type { Db } from "../../db/client.ts";
import { type CaptureTokenRow, insertCaptureToken } from "../../db/repositories/capture-tokens.ts";
import { newId } from "../../ids.ts";
import { generateSecret, hashKeySecret } from "../auth/api-key-secret.ts";

/** Lifetime of a phone capture token, seconds (30 min). */
export const CAPTURE_TOKEN_TTL_SEC = 30 * 60;

/**
 * Issues a phone capture token for one of the user's projects: a bearer secret `crc_…`
 * that may only upload files into that project, for 30 minutes, counted against the
 * user's quota. Only its SHA-256 is stored.
 */
export async function issueCaptureToken(
  db: Db,
  input: { userId: string; projectId: string; now: Date },
): Promise<{ token: CaptureTokenRow; secret: string }> {
  const secret = generateSecret("crc");
  const token = await insertCaptureToken(db, {
    id: newId("cpt"),
    userId: input.userId,
    projectId: input.projectId,
    hash: hashKeySecret(secret),
    createdAt: input.now,
    expiresAt: new Date(input.now.getTime() + CAPTURE_TOKEN_TTL_SEC * 1000),
  });
  return { token, secret };
}
