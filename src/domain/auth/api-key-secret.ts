import { hash, randomInt } from "node:crypto";
import type { SecretPrefix } from "../../secret-formats.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const KEY_PATTERN = /^crk_[0-9A-Za-z]{40}$/;

/**
 * Generates a bearer secret: `<prefix>_` + 40 base62 characters drawn uniformly from the
 * CSPRNG (`crypto.randomInt`, no modulo bias) — about 238 bits of entropy.
 *
 * @param prefix - what the secret is: `crk` API key, `crc` phone capture token,
 *   `crs` console session cookie, `crp` password setup link.
 */
export function generateSecret(prefix: SecretPrefix): string {
  let body = "";
  for (let i = 0; i < 40; i++) body += BASE62[randomInt(62)];
  return `${prefix}_${body}`;
}

/** Generates a new API key secret `crk_…` (see {@link generateSecret}). */
export function generateKeySecret(): string {
  return generateSecret("crk");
}

/** True when `secret` has the shape of a secret made by {@link generateSecret} with `prefix`. */
export function isWellFormedSecret(secret: string, prefix: SecretPrefix): boolean {
  return secret.length === 44 && secret.startsWith(`${prefix}_`) && /^[0-9A-Za-z]{40}$/.test(secret.slice(4));
}

/** True when `secret` has the shape of a Cutroom key (`crk_` + 40 base62); says nothing of validity. */
export function isWellFormedKey(secret: string): boolean {
  return KEY_PATTERN.test(secret);
}

/** Hex SHA-256 of a key secret (or any secret of {@link generateSecret}): the only form stored. */
export function hashKeySecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Display prefix kept beside the hash (`crk_` + first 6 characters), e.g. `crk_a1B2c3`. */
export function keyDisplayPrefix(secret: string): string {
  return secret.slice(0, 10);
}
