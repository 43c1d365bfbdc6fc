import { hash, verify } from "@node-rs/argon2";
import { invalidRequest } from "../../errors.ts";

/** Shortest and longest accepted password, characters. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/**
 * argon2id with the OWASP Password Storage Cheat Sheet's first configuration
 * (m = 19 MiB, t = 2, p = 1; RFC 9106 §4 names argon2id the recommended variant).
 */
/** `algorithm: 2` is the binding's `Algorithm.Argon2id` (a const enum we cannot import here). */
const PARAMS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Hashes a password to an argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

let dummyHash: Promise<string> | null = null;

/**
 * Checks `password` against a stored PHC hash. With `stored = null` (unknown account or no
 * password set) it verifies against a throw-away hash anyway and answers false, so that
 * the time taken does not tell whether the account exists.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    dummyHash ??= hashPassword("not a password of anyone");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

/**
 * Rejects passwords that are too short or too long.
 *
 * @param field - the JSON Pointer named in the error's details, e.g. `/password`.
 * @throws {AppError} 400 `invalid_request`.
 */
export function assertPasswordPolicy(password: string, field: string): void {
  if (password.length < PASSWORD_MIN) {
    throw invalidRequest(`The password must have at least ${PASSWORD_MIN} characters`, [
      { path: field, message: `must have at least ${PASSWORD_MIN} characters` },
    ]);
  }
  if (password.length > PASSWORD_MAX) {
    throw invalidRequest(`The password must have at most ${PASSWORD_MAX} characters`, [
      { path: field, message: `must have at most ${PASSWORD_MAX} characters` },
    ]);
  }
}
