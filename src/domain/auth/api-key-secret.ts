import { hash, randomInt } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = /^crk_[0-9A-Za-z]{40}$/;

/**
 * Generates a new API key secret: `crk_` + 40 base62 characters drawn uniformly from
 * the CSPRNG (`crypto.randomInt`, no modulo bias) — about 238 bits of entropy (DESIGN §3).
 */
export function generateKeySecret(): string {
  let body = "";
  for (let i = 0; i < 40; i++) body += BASE62[randomInt(62)];
  return `crk_${body}`;
}

/** True when `secret` has the shape of a Cutroom key (`crk_` + 40 base62); says nothing of validity. */
export function isWellFormedKey(secret: string): boolean {
  return KEY_PATTERN.test(secret);
}

/** Hex SHA-256 of a key secret: the only form in which keys are stored. */
export function hashKeySecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Display prefix kept beside the hash (`crk_` + first 6 characters), e.g. `crk_a1B2c3`. */
export function keyDisplayPrefix(secret: string): string {
  return secret.slice(0, 10);
}
