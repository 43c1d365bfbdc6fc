import { doublePrecision, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { RenderErrorJson, RenderWarning } from "../../domain/render/types.ts";
import { renders } from "./renders.ts";

/** Statuses of one part of a split render. */
export const RENDER_PART_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
/** One status of a split render's part. */
export type RenderPartStatus = (typeof RENDER_PART_STATUSES)[number];

/** What a part of a split render makes: a video segment (a frame range) or the whole timeline's sound. */
export type RenderPartKind = "video" | "audio";

/**
 * The parts of a split render: one row per video segment (output frames `[start_frame,
 * end_frame)` of the render) and one for the audio of the whole timeline. Each part is its own
 * job with its own fenced `attempt`; its finished file is in the blob store under `key`, so any
 * worker on any host can take any part and the join can fetch them all.
 */
export const renderSegments = pgTable(
  "render_segments",
  {
    id: text("id").primaryKey(),
    renderId: text("render_id")
      .notNull()
      .references(() => renders.id, { onDelete: "cascade" }),
    kind: text("kind").$type<RenderPartKind>().notNull(),
    /** Position of a video segment (0 = first); 0 for the audio part. */
    index: integer("index").notNull(),
    /** First output frame (inclusive) of the render this part makes; 0 for the audio. */
    startFrame: integer("start_frame").notNull(),
    /** Output frame after the last one (exclusive); the render's frame count for the audio. */
    endFrame: integer("end_frame").notNull(),
    status: text("status").$type<RenderPartStatus>().notNull().default("queued"),
    attempt: integer("attempt").notNull().default(0),
    /** Share of the part done, 0..1. */
    progress: doublePrecision("progress").notNull().default(0),
    /** Blob-store key of the finished part. */
    key: text("key"),
    error: jsonb("error").$type<RenderErrorJson | null>(),
    /**
     * What the part's ffmpeg run found (e.g. `SOURCE_DAMAGED` for a source read in its range);
     * the join merges every part's into the render's, without duplicates.
     */
    warnings: jsonb("warnings").$type<RenderWarning[]>().notNull().default([]),
    /**
     * The render-cache entry (content key, of the render's account) this part is copied from
     * instead of rendered; null: rendered.
     */
    reuseKey: text("reuse_key"),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("render_segments_part_idx").on(t.renderId, t.kind, t.index)],
);
