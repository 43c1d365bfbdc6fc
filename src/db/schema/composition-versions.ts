import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { Operation } from "fast-json-patch";
import { compositions } from "./compositions.ts";
import { users } from "./users.ts";

/**
 * What a version records of a composition: its name, project and timeline (the resource as GET
 * returns it, without `id`, `version`, `schemaVersion`, `createdAt` and `updatedAt`).
 */
export type VersionState = Record<string, unknown>;

/** Who made a version: the kind of write, and the API key or assistant run behind it when known. */
export type VersionAuthorKind = "api" | "console" | "assistant" | "mcp" | "import" | "revert" | "autoedit";

/**
 * One accepted write of a composition (docs/composition.md, Versions). `patch` is the RFC 6902
 * patch from the previous stored version's state (from `{}` for the oldest stored one);
 * `snapshot`, on every 50th row or so, is the whole state, so a version is rebuilt from the
 * nearest snapshot at or before it and the patches after that.
 */
export const compositionVersions = pgTable(
  "composition_versions",
  {
    id: text("id").primaryKey(),
    compositionId: text("composition_id")
      .notNull()
      .references(() => compositions.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    authorKind: text("author_kind").$type<VersionAuthorKind>().notNull(),
    authorKeyId: text("author_key_id"),
    authorRunId: text("author_run_id"),
    summary: text("summary").notNull(),
    patch: jsonb("patch").$type<Operation[]>().notNull(),
    snapshot: jsonb("snapshot").$type<VersionState>(),
  },
  (t) => [
    uniqueIndex("composition_versions_composition_version_idx").on(t.compositionId, t.version),
    index("composition_versions_created_idx").on(t.createdAt),
  ],
);
