import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../client.ts";
import { captureTokens } from "../schema/console-auth.ts";
import { users } from "../schema/users.ts";
import type { UserRow } from "./users.ts";

/** A phone capture token row (the secret itself is never stored). */
export type CaptureTokenRow = typeof captureTokens.$inferSelect;

/** Inserts a capture token given its hash. */
export async function insertCaptureToken(
  db: Db,
  input: { id: string; userId: string; projectId: string; hash: string; createdAt: Date; expiresAt: Date },
): Promise<CaptureTokenRow> {
  const [row] = await db.insert(captureTokens).values(input).returning();
  return row as CaptureTokenRow;
}

/** The live (unrevoked, unexpired) token with this hash and its owner, or null. */
export async function findLiveCaptureToken(
  db: Db,
  hash: string,
  now: Date,
): Promise<{ token: CaptureTokenRow; user: UserRow } | null> {
  const [row] = await db
    .select({ token: captureTokens, user: users })
    .from(captureTokens)
    .innerJoin(users, eq(users.id, captureTokens.userId))
    .where(
      and(eq(captureTokens.hash, hash), isNull(captureTokens.revokedAt), gt(captureTokens.expiresAt, now)),
    )
    .limit(1);
  return row ?? null;
}

/** The live tokens of one of the user's projects, newest first. */
export function listLiveCaptureTokens(
  db: Db,
  input: { userId: string; projectId: string; now: Date },
): Promise<CaptureTokenRow[]> {
  return db
    .select()
    .from(captureTokens)
    .where(
      and(
        eq(captureTokens.userId, input.userId),
        eq(captureTokens.projectId, input.projectId),
        isNull(captureTokens.revokedAt),
        gt(captureTokens.expiresAt, input.now),
      ),
    )
    .orderBy(desc(captureTokens.id));
}

/**
 * Revokes one of the user's capture tokens (idempotent).
 *
 * @returns false when the user has no token with this id.
 */
export async function revokeCaptureToken(
  db: Db,
  input: { userId: string; id: string; now: Date },
): Promise<boolean> {
  const mine = and(eq(captureTokens.id, input.id), eq(captureTokens.userId, input.userId));
  const [existing] = await db.select({ id: captureTokens.id }).from(captureTokens).where(mine).limit(1);
  if (!existing) return false;
  await db
    .update(captureTokens)
    .set({ revokedAt: input.now })
    .where(and(mine, isNull(captureTokens.revokedAt)));
  return true;
}
