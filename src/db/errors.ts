/** Fields of a PostgreSQL error (node-postgres and PGlite both expose them), possibly wrapped. */
export interface PgErrorFields {
  code?: string;
  message?: string;
  table?: string;
  column?: string;
  detail?: string;
  constraint?: string;
  cause?: unknown;
}

/** What a row of each table is called in messages for people, with its article. */
const ROW_NOUNS: Record<string, [string, string]> = {
  users: ["a", "user"],
  api_keys: ["an", "API key"],
  projects: ["a", "project"],
  uploads: ["an", "upload"],
  compositions: ["a", "composition"],
  renders: ["a", "render"],
};

/**
 * The PostgreSQL error inside `err` (Drizzle wraps driver errors in a `cause` that carries the
 * SQLSTATE `code`), or `undefined` when there is none.
 */
export function findPgError(err: unknown): PgErrorFields | undefined {
  for (let e = err as PgErrorFields | undefined, depth = 0; e && depth < 10; depth++) {
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e;
    e = e.cause as PgErrorFields | undefined;
  }
  return undefined;
}

/**
 * A one-line, plain-language message for a constraint violation, without SQL or parameters:
 * unique (23505) → "a user with that email already exists"; foreign key (23503) → "the user
 * it refers to does not exist"; not null (23502) → "email is required". `undefined` for any
 * other error (the caller shows its own message).
 */
export function describeConstraintError(err: unknown): string | undefined {
  const pg = findPgError(err);
  if (!pg) return undefined;
  const named = (table: string | undefined) => (table && ROW_NOUNS[table]) || ["a", "row"];
  const noun = (table: string | undefined) => named(table)[1];
  const keyColumns = /Key \(([^)]+)\)/.exec(pg.detail ?? "")?.[1];
  switch (pg.code) {
    case "23505":
      return `${named(pg.table).join(" ")} with that ${keyColumns ?? "value"} already exists`;
    case "23503": {
      const referenced = /is not present in table "([^"]+)"/.exec(pg.detail ?? "")?.[1];
      return referenced
        ? `the ${noun(referenced)} it refers to does not exist`
        : `that ${noun(pg.table)} is still in use or refers to something that does not exist`;
    }
    case "23502":
      return `${pg.column ?? "a required value"} is required`;
    default:
      return undefined;
  }
}
