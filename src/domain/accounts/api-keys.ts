/** An account's API keys: issue (the secret shown once), list and revoke. */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { type ApiKeyRow, insertApiKey, listApiKeys, revokeApiKey } from "../../db/repositories/api-keys.ts";
import { notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { generateKeySecret, hashKeySecret, keyDisplayPrefix } from "../auth/api-key-secret.ts";
import type { Scope } from "../auth/scopes.ts";

/**
 * Creates an API key for `userId`. The secret is returned once and never stored: the
 * database keeps its SHA-256 digest and a display prefix (docs/conventions.md, Authentication).
 *
 * @returns the stored key row and the secret `crk_…` to hand to the owner.
 */
export async function issueApiKey(
  db: Db,
  input: { userId: string; name: string; scopes: Scope[] },
): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = generateKeySecret();
  const key = await insertApiKey(db, {
    id: newId("key"),
    userId: input.userId,
    name: input.name,
    prefix: keyDisplayPrefix(secret),
    hash: hashKeySecret(secret),
    scopes: input.scopes,
  });
  return { key, secret };
}

/** The keys of `userId`, oldest first, revoked ones included. */
export function listAccountApiKeys(db: Db, userId: string): Promise<ApiKeyRow[]> {
  return listApiKeys(db, userId);
}

/**
 * Revokes a key of `userId` (idempotent: a key already revoked stays so); it stops working on
 * its next request.
 * @throws AppError 404 `not_found` when `userId` has no key `keyId` (another owner's included).
 */
export async function revokeAccountApiKey(
  deps: { db: Db; clock: Clock },
  userId: string,
  keyId: string,
): Promise<void> {
  const mine = (await listApiKeys(deps.db, userId)).some((k) => k.id === keyId);
  if (!mine) throw notFound(`Key ${keyId}`);
  await revokeApiKey(deps.db, keyId, deps.clock.now());
}
