/**
 * The prefixes of the bearer secrets Cutroom issues: `crk` API key, `crc` phone capture token,
 * `crs` console session cookie, `crp` password setup link. Shared by the auth domain, which
 * issues them, and the logger, which redacts them.
 */
export const SECRET_PREFIXES = ["crk", "crc", "crs", "crp"] as const;
/** One of {@link SECRET_PREFIXES}. */
export type SecretPrefix = (typeof SECRET_PREFIXES)[number];
