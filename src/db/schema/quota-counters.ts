import { date, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * One row per quota subject per UTC day: `subject` is a user id for keyed calls or
 * `ip:<address>` for anonymous ones. Incremented atomically with a guarded upsert that
 * grants up to N calls at once (request coalescing).
 */
export const quotaCounters = pgTable(
  "quota_counters",
  {
    subject: text("subject").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    count: integer("count").notNull(),
    /** The counter before the last increment: lets one upsert report how many calls it granted. */
    prevCount: integer("prev_count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.subject, t.day] })],
);
