import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Sign-in rate-limit counters shared by every API process: one fixed window per subject
 * (`ip:<address>` counts attempts, `acct:<email>|ip:<address>` counts attempts on an account
 * from one client not yet followed by a successful sign-in from it). A window starts at the subject's first attempt after the previous one
 * ended; the guarded upsert that counts an attempt restarts it in place.
 */
export const loginLimits = pgTable("login_limits", {
  subject: text("subject").primaryKey(),
  windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
  count: integer("count").notNull(),
});
