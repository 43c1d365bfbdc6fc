import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { countUsers, insertUser, type UserRow } from "../../db/repositories/users.ts";
import { issuePasswordLink } from "../console/password-link.ts";
import { issueApiKey } from "./api-keys.ts";

/** Arbitrary constant key of the transaction advisory lock that makes bootstrap run once. */
const BOOTSTRAP_LOCK_KEY = 727_002;

/**
 * On an empty database, creates the owner account (plan `admin`), one write key and a
 * one-time link (valid 24 h) that sets the owner's console password.
 * Runs in a transaction holding an advisory lock, so two processes starting together
 * create exactly one owner. Returns null when any user already exists (never again).
 *
 * @param publicUrl - the server's base URL, for the setup link.
 * @returns the owner, the key secret and the setup link, to be printed once.
 */
export async function bootstrapOwner(
  db: Db,
  input: { email?: string; name?: string; publicUrl?: string } = {},
): Promise<{ user: UserRow; secret: string; setupUrl: string } | null> {
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
    const link = await issuePasswordLink(txDb, {
      userId: user.id,
      publicUrl: input.publicUrl ?? "http://127.0.0.1:3000",
    });
    return { user, secret, setupUrl: link.url };
  });
}
