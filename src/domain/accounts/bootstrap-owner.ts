import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { countUsers, insertUser, type UserRow } from "../../db/repositories/users.ts";
import { issueApiKey } from "./issue-api-key.ts";

/** Arbitrary constant key of the transaction advisory lock that makes bootstrap run once. */
const BOOTSTRAP_LOCK_KEY = 727_002;

/**
 * On an empty database, creates the owner account (plan `admin`) and one write key.
 * Runs in a transaction holding an advisory lock, so two processes starting together
 * create exactly one owner. Returns null when any user already exists (never again).
 *
 * @returns the owner and the key secret, to be printed once.
 */
export async function bootstrapOwner(
  db: Db,
  input: { email?: string; name?: string } = {},
): Promise<{ user: UserRow; secret: string } | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`);
    const txDb = tx as unknown as Db;
    if ((await countUsers(txDb)) > 0) return null;
    const user = await insertUser(txDb, {
      email: input.email ?? "owner@localhost",
      name: input.name ?? "Owner",
      plan: "admin",
    });
    const { secret } = await issueApiKey(txDb, {
      userId: user.id,
      name: "owner key",
      scopes: ["read", "write"],
    });
    return { user, secret };
  });
}
