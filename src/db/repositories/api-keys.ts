import { and, asc, eq, isNull } from "drizzle-orm";
import type { CallerIdentity } from "../../domain/auth/caller.ts";
import type { Scope } from "../../domain/auth/scopes.ts";
import type { Plan } from "../../domain/quota/daily-quota.ts";
import { type Db, rowsOf, type SqlExecutor } from "../client.ts";
import { apiKeys } from "../schema/api-keys.ts";

/** An API key row (the secret itself is never stored). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Inserts a key given its hash and display prefix. */
export async function insertApiKey(
  db: Db,
  input: { id: string; userId: string; name: string; prefix: string; hash: string; scopes: Scope[] },
): Promise<ApiKeyRow> {
  const [row] = await db.insert(apiKeys).values(input).returning();
  return row as ApiKeyRow;
}

/** A user's keys, oldest first, revoked ones included. */
export function listApiKeys(db: Db, userId?: string): Promise<ApiKeyRow[]> {
  const q = db.select().from(apiKeys);
  return (userId ? q.where(eq(apiKeys.userId, userId)) : q).orderBy(asc(apiKeys.id));
}

/** Marks a key revoked (idempotent); returns the row, or null for an unknown id. */
export async function revokeApiKey(db: Db, keyId: string, now: Date): Promise<ApiKeyRow | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning();
  if (row) return row;
  const [existing] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  return existing ?? null;
}

/**
 * What the hot path learns about a live key and its owner in one round trip. Built once per
 * statement: every request the statement counted shares these objects.
 */
export interface AuthenticatedKey extends CallerIdentity {
  /** The account's counter before this batch; null when not counted (unlimited plan). */
  usedBefore: number | null;
  /** The counter after this batch; `usedAfter - usedBefore` calls were granted. */
  usedAfter: number | null;
}

/**
 * The hot-path statement, prepared once per connection. Parameters: $1 key hash, $2 quota
 * day, $3 calls, $4 now, $5 standard limit, $6 upgraded limit. Planning this statement costs
 * about twice its execution, so it runs as a named prepared statement (pgbench, one client:
 * 0.34 ms per call unnamed, 0.11 ms prepared).
 */
const AUTHENTICATE_AND_COUNT = `
  with k as (
    select k.id, k.name, k.prefix, k.scopes, k.created_at, k.last_used_at, k.user_id, u.plan,
           u.email, u.name as user_name, u.created_at as user_created_at, u.image_model,
           case u.plan when 'upgraded' then $6::int else $5::int end as lim
    from api_keys k join users u on u.id = k.user_id
    where k.hash = $1::text and k.revoked_at is null
  ),
  q as (
    insert into quota_counters (subject, day, count, prev_count)
    select user_id, $2::date, least($3::int, lim), 0 from k where plan <> 'admin'
    on conflict (subject, day) do update
      set prev_count = quota_counters.count,
          count = greatest(quota_counters.count, least(quota_counters.count + $3::int, (select lim from k)))
    returning prev_count, count
  ),
  touch as (
    update api_keys set last_used_at = $4::timestamptz
    where id = (select id from k)
      and (last_used_at is null or last_used_at < $4::timestamptz - interval '60 seconds')
    returning 1
  )
  select k.*, (select prev_count from q) as used_before, (select count from q) as used_after from k`;

/**
 * Looks up a live key by its hash and, in the same statement, counts `calls` calls
 * against the owner's daily quota and touches `last_used_at` (at most once a minute).
 *
 * The counter is one upsert, `count = greatest(count, least(count + calls, limit))`, that
 * also records the value it started from, so the caller learns exactly how many of the
 * calls were granted (`usedAfter - usedBefore`). PostgreSQL's row lock on the counter
 * serialises concurrent batches from any number of processes, so no call beyond the
 * limit is ever granted and none below it is refused.
 *
 * @param sqlx - the executor of the hot connection pool (`Database.hotSql`).
 * @param calls - calls to count at once (≥ 1; the auth batcher coalesces concurrent requests).
 * @param limits - daily limits of the counted plans (admin is never counted).
 * @returns null for an unknown or revoked key.
 */
export async function authenticateAndCount(
  sqlx: SqlExecutor,
  input: {
    hash: string;
    day: string;
    now: Date;
    calls: number;
    limits: { standard: number; upgraded: number };
  },
): Promise<AuthenticatedKey | null> {
  const { hash, day, now, calls, limits } = input;
  const result = await sqlx.executeSql(
    AUTHENTICATE_AND_COUNT,
    [hash, day, calls, now.toISOString(), limits.standard, limits.upgraded],
    "cutroom_authenticate_and_count",
  );
  const row = rowsOf(result)[0] as Record<string, unknown> | undefined;
  if (!row) return null;
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    key: {
      id: row.id as string,
      name: row.name as string,
      prefix: row.prefix as string,
      scopes: parsePgArray(row.scopes) as Scope[],
      createdAt: new Date(row.created_at as string),
      lastUsedAt: row.last_used_at ? new Date(row.last_used_at as string) : null,
    },
    userId: row.user_id as string,
    plan: row.plan as Plan,
    user: {
      email: row.email as string,
      name: row.user_name as string,
      createdAt: new Date(row.user_created_at as string),
      imageModel: (row.image_model as string | null) ?? null,
    },
    usedBefore: num(row.used_before),
    usedAfter: num(row.used_after),
  };
}

/** Raw `text[]` values arrive as arrays from node-postgres and PGlite; tolerate the literal form too. */
function parsePgArray(v: unknown): string[] {
  if (Array.isArray(v)) return v as string[];
  if (typeof v === "string")
    return v
      .replace(/^\{|\}$/g, "")
      .split(",")
      .filter(Boolean);
  return [];
}
