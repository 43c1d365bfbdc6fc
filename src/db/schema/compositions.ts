import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { Timeline } from "../../domain/composition/schema.ts";
import { projects } from "./projects.ts";
import { users } from "./users.ts";

/**
 * The timeline document of a composition: everything but the row's own columns (canvas, tracks,
 * markers, metadata), normalised (every id present, clips sorted) and validated before it is stored.
 */
export type CompositionDocument = Timeline;

/** Compositions (docs/composition.md). `version` increments on every write (optimistic concurrency). */
export const compositions = pgTable(
  "compositions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    schemaVersion: integer("schema_version").notNull().default(1),
    version: integer("version").notNull().default(1),
    document: jsonb("document").$type<CompositionDocument>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("compositions_user_idx").on(t.userId, t.id),
    index("compositions_project_idx").on(t.projectId),
  ],
);
