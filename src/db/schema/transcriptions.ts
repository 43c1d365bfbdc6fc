import { index, integer, jsonb, pgTable, real, text, timestamp } from "drizzle-orm/pg-core";
import type { TranscriptionEngineInfo, TranscriptResult } from "../../domain/transcription/types.ts";
import { projects } from "./projects.ts";
import { uploads } from "./uploads.ts";
import { users } from "./users.ts";

/** Transcription statuses (the same lifecycle as generations). */
export const TRANSCRIPTION_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
/** One transcription status. */
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/**
 * Speech-to-text jobs over an upload's audio: the source of truth of a transcription's state.
 * Worker writes are fenced by `attempt`; `result` is written with the `succeeded` status.
 */
export const transcriptions = pgTable(
  "transcriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    uploadId: text("upload_id")
      .notNull()
      .references(() => uploads.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    status: text("status").$type<TranscriptionStatus>().notNull().default("queued"),
    /** The language asked for (ISO 639-1), or null to detect it. */
    language: text("language"),
    engine: jsonb("engine").$type<TranscriptionEngineInfo>().notNull(),
    quality: text("quality").$type<"draft" | "standard">().notNull(),
    vendorRequestId: text("vendor_request_id"),
    attempt: integer("attempt").notNull().default(0),
    progress: real("progress"),
    result: jsonb("result").$type<TranscriptResult | null>(),
    error: jsonb("error").$type<{ code: string; message: string } | null>(),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("transcriptions_user_idx").on(t.userId, t.id),
    index("transcriptions_upload_idx").on(t.uploadId),
  ],
);
