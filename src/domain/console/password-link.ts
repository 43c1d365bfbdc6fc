import type { Db } from "../../db/client.ts";
import { insertPasswordToken } from "../../db/repositories/passwords.ts";
import { newId } from "../../ids.ts";
import { generateSecret, hashKeySecret } from "../auth/api-key-secret.ts";

/** How long a password setup link works, seconds (24 h). */
export const PASSWORD_LINK_TTL_SEC = 24 * 3600;

/**
 * Issues a one-time link that sets `userId`'s console password, valid 24 hours; earlier
 * unused links of that user stop working. Only the token's SHA-256 is stored.
 *
 * @param publicUrl - the server's base URL without trailing slash.
 * @returns `<publicUrl>/console/setup?token=crp_…` and its expiry.
 */
export async function issuePasswordLink(
  db: Db,
  input: { userId: string; publicUrl: string; now?: Date },
): Promise<{ url: string; expiresAt: Date }> {
  const now = input.now ?? new Date();
  const token = generateSecret("crp");
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_TTL_SEC * 1000);
  await insertPasswordToken(db, {
    id: newId("pwt"),
    userId: input.userId,
    hash: hashKeySecret(token),
    createdAt: now,
    expiresAt,
  });
  return { url: `${input.publicUrl}/console/setup?token=${token}`, expiresAt };
}
