import { and, desc, eq, gt, isNull, lt, ne, or } from "drizzle-orm";
import type { Db } from "../client.ts";
import { captureTokens, consoleSessions, passwordTokens } from "../schema/console-auth.ts";
import { users } from "../schema/users.ts";
import type { UserRow } from "./users.ts";

/** A console session row. */
export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;

/** Inserts a session (the caller generated the id, the cookie secret's hash and the CSRF token). */
export async function insertSession(
  db: Db,
  input: {
    id: string;
    userId: string;
    hash: string;
    csrfToken: string;
    userAgent: string | null;
    ip: string | null;
    now: Date;
    expiresAt: Date;
  },
): Promise<ConsoleSessionRow> {
  const { now, ...rest } = input;
  const [row] = await db
    .insert(consoleSessions)
    .values({ ...rest, createdAt: now, lastSeenAt: now })
    .returning();
  return row as ConsoleSessionRow;
}

/**
 * The live session whose cookie secret hashes to `hash` and its user, or null when unknown,
 * revoked or expired. Touches `last_seen_at` at most once a minute.
 */
export async function findLiveSession(
  db: Db,
  hash: string,
  now: Date,
): Promise<{ session: ConsoleSessionRow; user: UserRow } | null> {
  const [row] = await db
    .select({ session: consoleSessions, user: users })
    .from(consoleSessions)
    .innerJoin(users, eq(users.id, consoleSessions.userId))
    .where(
      and(
        eq(consoleSessions.hash, hash),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, now),
      ),
    )
    .limit(1);
  if (!row) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() > 60_000) {
    await db.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.id, row.session.id));
  }
  return row;
}

/** A user's live sessions, newest first. */
export function listLiveSessions(db: Db, userId: string, now: Date): Promise<ConsoleSessionRow[]> {
  return db
    .select()
    .from(consoleSessions)
    .where(
      and(
        eq(consoleSessions.userId, userId),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, now),
      ),
    )
    .orderBy(desc(consoleSessions.id));
}

/**
 * Revokes sessions of `userId`: one (`only`), all but one (`except`), or all. Idempotent.
 *
 * @returns how many live sessions were revoked.
 */
export async function revokeSessions(
  db: Db,
  input: { userId: string; now: Date; only?: string; except?: string },
): Promise<number> {
  const rows = await db
    .update(consoleSessions)
    .set({ revokedAt: input.now })
    .where(
      and(
        eq(consoleSessions.userId, input.userId),
        isNull(consoleSessions.revokedAt),
        input.only ? eq(consoleSessions.id, input.only) : undefined,
        input.except ? ne(consoleSessions.id, input.except) : undefined,
      ),
    )
    .returning({ id: consoleSessions.id });
  return rows.length;
}

/**
 * Deletes console sessions and phone capture tokens that expired or were revoked before
 * `before`, and password links that expired or were used before it (housekeeping).
 *
 * @returns rows deleted.
 */
export async function deleteDeadConsoleCredentials(db: Db, before: Date): Promise<number> {
  const sessions = await db
    .delete(consoleSessions)
    .where(or(lt(consoleSessions.expiresAt, before), lt(consoleSessions.revokedAt, before)))
    .returning({ id: consoleSessions.id });
  const captures = await db
    .delete(captureTokens)
    .where(or(lt(captureTokens.expiresAt, before), lt(captureTokens.revokedAt, before)))
    .returning({ id: captureTokens.id });
  const links = await db
    .delete(passwordTokens)
    .where(or(lt(passwordTokens.expiresAt, before), lt(passwordTokens.usedAt, before)))
    .returning({ id: passwordTokens.id });
  return sessions.length + captures.length + links.length;
}

/** One session by id (any state), or null. */
export async function findSessionById(db: Db, id: string): Promise<ConsoleSessionRow | null> {
  const [row] = await db.select().from(consoleSessions).where(eq(consoleSessions.id, id)).limit(1);
  return row ?? null;
}
