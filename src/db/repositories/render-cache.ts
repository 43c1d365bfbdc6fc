import { and, arrayContains, eq, inArray, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../client.ts";
import { renderCacheEntries } from "../schema/render-cache.ts";
import { renders } from "../schema/renders.ts";

/** A cached part of an account: its content key. */
export interface CacheEntryRef {
  userId: string;
  key: string;
}

/**
 * The keys among `keys` that account `userId` has a cache entry for; each one found is marked
 * used at `now` (it is about to be copied, so eviction takes others first).
 */
export async function touchCacheEntries(
  db: Db,
  userId: string,
  keys: string[],
  now: Date,
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .update(renderCacheEntries)
    .set({ lastUsedAt: now })
    .where(and(eq(renderCacheEntries.userId, userId), inArray(renderCacheEntries.key, keys)))
    .returning({ key: renderCacheEntries.key });
  return new Set(rows.map((r) => r.key));
}

/** Records a part stored in the cache (or refreshes the entry of the same key), used at `now`. */
export async function upsertCacheEntry(
  db: Db,
  entry: CacheEntryRef & { bytes: number; uploadIds: string[]; now: Date },
): Promise<void> {
  await db
    .insert(renderCacheEntries)
    .values({
      userId: entry.userId,
      key: entry.key,
      bytes: entry.bytes,
      uploadIds: entry.uploadIds,
      createdAt: entry.now,
      lastUsedAt: entry.now,
    })
    .onConflictDoUpdate({
      target: [renderCacheEntries.userId, renderCacheEntries.key],
      set: { bytes: entry.bytes, uploadIds: entry.uploadIds, lastUsedAt: entry.now },
    });
}

/**
 * Deletes the least recently used entries (of every account) beyond `capBytes` in all, and
 * returns them: what is kept is the longest run of most recently used entries within the cap.
 */
export async function evictCacheEntriesBeyond(db: Db, capBytes: number): Promise<CacheEntryRef[]> {
  const result = await db.execute(sql`
    WITH ranked AS (
      SELECT user_id, key,
        sum(bytes) OVER (ORDER BY last_used_at DESC, user_id, key) AS running
      FROM render_cache_entries
    )
    DELETE FROM render_cache_entries e USING ranked r
    WHERE e.user_id = r.user_id AND e.key = r.key AND r.running > ${capBytes}
    RETURNING e.user_id, e.key`);
  return rowsOf<{ user_id: string; key: string }>(result).map((r) => ({ userId: r.user_id, key: r.key }));
}

/** Deletes account `userId`'s entries of parts that read upload `uploadId`, and returns their keys. */
export async function deleteCacheEntriesOfUpload(
  db: Db,
  userId: string,
  uploadId: string,
): Promise<string[]> {
  const rows = await db
    .delete(renderCacheEntries)
    .where(
      and(eq(renderCacheEntries.userId, userId), arrayContains(renderCacheEntries.uploadIds, [uploadId])),
    )
    .returning({ key: renderCacheEntries.key });
  return rows.map((r) => r.key);
}

/** Deletes one entry (its file was found missing). */
export async function deleteCacheEntry(db: Db, entry: CacheEntryRef): Promise<void> {
  await db
    .delete(renderCacheEntries)
    .where(and(eq(renderCacheEntries.userId, entry.userId), eq(renderCacheEntries.key, entry.key)));
}

/**
 * Counts one part of render `renderId` as rendered after all, not copied (its entry was gone
 * when the part ran): one fewer reused part, `seconds` fewer saved.
 */
export async function countPartNotReused(db: Db, renderId: string, seconds: number): Promise<void> {
  await db
    .update(renders)
    .set({
      reuse: sql`jsonb_build_object(
        'segments', (${renders.reuse}->>'segments')::int,
        'reused', greatest(0, (${renders.reuse}->>'reused')::int - 1),
        'secondsSaved', greatest(0, (${renders.reuse}->>'secondsSaved')::float8 - ${seconds}))`,
    })
    .where(and(eq(renders.id, renderId), sql`${renders.reuse} IS NOT NULL`));
}
