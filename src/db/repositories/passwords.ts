import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../client.ts";
import { passwordTokens, userPasswords } from "../schema/console-auth.ts";

/** The user's argon2id password hash, or null when no password was ever set. */
export async function findPasswordHash(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ hash: userPasswords.hash })
    .from(userPasswords)
    .where(eq(userPasswords.userId, userId))
    .limit(1);
  return row?.hash ?? null;
}

/** Sets (inserts or replaces) the user's password hash. */
export async function upsertPasswordHash(db: Db, userId: string, hash: string, now: Date): Promise<void> {
  await db
    .insert(userPasswords)
    .values({ userId, hash, updatedAt: now })
    .onConflictDoUpdate({ target: userPasswords.userId, set: { hash, updatedAt: now } });
}

/**
 * Stores a password setup token, retiring the user's earlier unused ones (only the newest
 * link works).
 */
export async function insertPasswordToken(
  db: Db,
  input: { id: string; userId: string; hash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .update(passwordTokens)
    .set({ usedAt: input.createdAt })
    .where(and(eq(passwordTokens.userId, input.userId), isNull(passwordTokens.usedAt)));
  await db.insert(passwordTokens).values(input);
}

/**
 * Marks the unused, unexpired token with this hash used, atomically (one use only).
 *
 * @returns the token's user id, or null when the token is unknown, used or expired.
 */
export async function consumePasswordToken(db: Db, hash: string, now: Date): Promise<string | null> {
  const [row] = await db
    .update(passwordTokens)
    .set({ usedAt: now })
    .where(
      and(eq(passwordTokens.hash, hash), isNull(passwordTokens.usedAt), gt(passwordTokens.expiresAt, now)),
    )
    .returning({ userId: passwordTokens.userId });
  return row?.userId ?? null;
}
