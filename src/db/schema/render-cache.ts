import { bigint, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users.ts";

/**
 * Rendered parts kept for reuse (docs/architecture.md, Incremental renders): one row per
 * account and content key, whose file is in the blob store at `renderCacheKey(user, key)`.
 * A row is written only once its file is stored whole, so a row always names a complete file;
 * lookups go through the rows and never across accounts. `last_used_at` orders eviction under
 * `RENDER_CACHE_BYTES`; `upload_ids` are the uploads the part read (deleting one deletes the
 * entry).
 */
export const renderCacheEntries = pgTable(
  "render_cache_entries",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The part's content key (lowercase hex SHA-256, `partContentKeys`). */
    key: text("key").notNull(),
    /** Size of the stored file. */
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    uploadIds: text("upload_ids").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("render_cache_entries_lru_idx").on(t.lastUsedAt)],
);
