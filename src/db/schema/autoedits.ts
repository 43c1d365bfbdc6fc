import { index, integer, jsonb, pgTable, real, text, timestamp } from "drizzle-orm/pg-core";
import type { AutoeditRequest, AutoeditResult, AutoeditStage } from "../../domain/autoedit/types.ts";
import { projects } from "./projects.ts";
import { users } from "./users.ts";

/** Auto-edit statuses (the same lifecycle as transcriptions: `DELETE` cancels at once). */
export const AUTOEDIT_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
/** One auto-edit status. */
export type AutoeditStatus = (typeof AUTOEDIT_STATUSES)[number];

/**
 * Auto-edit jobs: from uploaded recordings to ranked candidates and one composition per chosen
 * candidate. The source of truth of a job's state; worker writes are fenced by `attempt`, and
 * `result` is written as the job goes (candidates before any composition).
 */
export const autoedits = pgTable(
  "autoedits",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Where the compositions go. */
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    status: text("status").$type<AutoeditStatus>().notNull().default("queued"),
    request: jsonb("request").$type<AutoeditRequest>().notNull(),
    attempt: integer("attempt").notNull().default(0),
    progress: real("progress"),
    stage: text("stage").$type<AutoeditStage>(),
    result: jsonb("result").$type<AutoeditResult | null>(),
    error: jsonb("error").$type<{ code: string; message: string } | null>(),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("autoedits_user_idx").on(t.userId, t.id)],
);
