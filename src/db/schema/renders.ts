import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users.ts";

/** Render job statuses (docs/composition.md, The render resource). */
export const RENDER_STATUSES = [
  "queued",
  "preparing",
  "rendering",
  "finalizing",
  "succeeded",
  "failed",
  "cancelling",
  "cancelled",
] as const;
/** One render job status. */
export type RenderStatus = (typeof RENDER_STATUSES)[number];

/**
 * Render jobs: the source of truth for a render's state (pg-boss only carries the work).
 * Every status write is fenced by `attempt`, so a lost worker cannot overwrite a newer attempt.
 * `composition_id` has no foreign key: a render keeps its frozen copy when the composition goes.
 */
export const renders = pgTable(
  "renders",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    compositionId: text("composition_id").notNull(),
    compositionVersion: integer("composition_version").notNull(),
    /** The frozen composition (full resource as of `composition_version`). */
    composition: jsonb("composition").$type<Record<string, unknown>>().notNull(),
    /** Output options as requested (format, size, quality, range, frameAt). */
    options: jsonb("options").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<RenderStatus>().notNull().default("queued"),
    progress: jsonb("progress").$type<Record<string, unknown>>().notNull(),
    attempt: integer("attempt").notNull().default(0),
    output: jsonb("output").$type<Record<string, unknown> | null>(),
    error: jsonb("error").$type<Record<string, unknown> | null>(),
    warnings: jsonb("warnings").$type<Record<string, unknown>[]>().notNull().default([]),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("renders_user_idx").on(t.userId, t.id),
    index("renders_composition_idx").on(t.compositionId),
    uniqueIndex("renders_idempotency_idx").on(t.userId, t.idempotencyKey),
  ],
);
