import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { Scope } from "../../domain/auth/scopes.ts";
import { users } from "./users.ts";

/** API keys, stored only as a SHA-256 digest of the secret plus a short display prefix. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** First characters of the secret (`crk_AbC1…`), for people to tell keys apart. */
    prefix: text("prefix").notNull(),
    /** Hex SHA-256 of the whole secret. */
    hash: text("hash").notNull().unique(),
    scopes: text("scopes").array().$type<Scope[]>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("api_keys_user_idx").on(t.userId, t.id)],
);
