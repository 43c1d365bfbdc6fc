/**
 * The check every stored string passes, JSON bodies and multipart text fields alike: PostgreSQL
 * text cannot hold NUL, and an unpaired UTF-16 surrogate cannot be encoded as UTF-8.
 */

/** A NUL character or a UTF-16 surrogate (paired or not); the slow check runs only on a match. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this looks for.
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** Why `s` cannot be stored, or null: NUL characters and unpaired surrogates are refused. */
export function stringProblem(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes("\u0000")) return "must not contain NUL characters (U+0000)";
  if (!s.isWellFormed()) return "must not contain unpaired UTF-16 surrogates";
  return null;
}
