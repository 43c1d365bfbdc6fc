import type { Db } from "../../db/client.ts";
import { type ApiKeyRow, insertApiKey } from "../../db/repositories/api-keys.ts";
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
