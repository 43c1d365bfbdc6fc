import { date, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * One row per quota subject per UTC day: `subject` is a user id for keyed calls or
 * `ip:<address>` for anonymous ones. Incremented atomically with a guarded upsert.
 */
export const quotaCounters = pgTable(
  "quota_counters",
  {
    subject: text("subject").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.day] })],
);
