/**
 * The text the API prints once, on its first start: the owner's write key, the one-time link
 * that sets the owner's console password, and how to get a new link later. With the embedded
 * database (no DATABASE_URL) the CLI cannot open it while the server runs, so the banner says
 * to stop the server first.
 */
export function firstStartBanner(input: {
  secret: string;
  setupUrl: string;
  email: string;
  publicUrl: string;
  /** Whether the database is the embedded one (PGlite in DATA_DIR), which serves one process. */
  embedded: boolean;
}): string {
  const resetLink = `npm run cli -- users reset-password ${input.email}`;
  return [
    "",
    "  Cutroom created the owner account (plan admin) and a write key. It is shown only this once:",
    "",
    `    ${input.secret}`,
    "",
    "  Set the owner's console password (one-time link, valid 24 hours):",
    "",
    `    ${input.setupUrl}`,
    "",
    "  Try the key:",
    `    curl -H "Authorization: Bearer ${input.secret}" ${input.publicUrl}/api/v1/me`,
    "",
    `  Then sign in at ${input.publicUrl}/console (user ${input.email}) to manage keys and uploads.`,
    input.embedded
      ? `  A new link later: stop the server (its embedded database serves one process), then ${resetLink}`
      : `  A new link later: ${resetLink}`,
    "",
  ].join("\n");
}
