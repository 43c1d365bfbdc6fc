import { index, integer, jsonb, pgTable, real, text, timestamp } from "drizzle-orm/pg-core";
import type { GenerationModel } from "../../domain/generation/models.ts";
import { projects } from "./projects.ts";
import { users } from "./users.ts";

/** Generation statuses. */
export const GENERATION_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
/** One generation status. */
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];

/** A warning on a generation (e.g. audio asked of the offline provider). */
export interface GenerationWarning {
  code: string;
  message: string;
}

/**
 * Image and still-to-video generations: the source of truth of a generation's state (the queue
 * only carries the work). `vendor_request_id` is written once, right after the vendor accepted the
 * request and before anyone waits on it, so a later attempt polls the same request instead of
 * paying for a second one. Worker writes are fenced by `attempt`. Outputs are uploads whose
 * `generation_id` points here.
 */
export const generations = pgTable(
  "generations",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    kind: text("kind").$type<"image" | "video">().notNull(),
    status: text("status").$type<GenerationStatus>().notNull().default("queued"),
    prompt: text("prompt").notNull(),
    /** The request's options as normalised (defaults filled in; `imageUrl` as given). */
    params: jsonb("params").$type<Record<string, unknown>>().notNull(),
    /** Where the still of a video comes from: `{ uploadId }` or `{ url }` (not shown to clients). */
    input: jsonb("input").$type<{ uploadId: string } | { url: string } | null>(),
    model: jsonb("model").$type<GenerationModel>().notNull(),
    vendorRequestId: text("vendor_request_id"),
    attempt: integer("attempt").notNull().default(0),
    progress: real("progress"),
    error: jsonb("error").$type<{ code: string; message: string } | null>(),
    warnings: jsonb("warnings").$type<GenerationWarning[]>().notNull().default([]),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("generations_user_idx").on(t.userId, t.id)],
);
