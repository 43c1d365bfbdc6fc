import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { FrozenComposition } from "../../domain/composition/schema.ts";
import type {
  RenderErrorJson,
  RenderOutput,
  RenderOutputOptions,
  RenderProgress,
  RenderWarning,
  StoredSmartRender,
} from "../../domain/render/types.ts";
import { users } from "./users.ts";

/**
 * Parts of a split render copied from the account's render cache: `segments` parts in all
 * (video segments and the audio), `reused` of them copied, `secondsSaved` output seconds of
 * the video segments copied.
 */
export interface RenderReuse {
  segments: number;
  reused: number;
  secondsSaved: number;
}

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
 * An inline render (a composition sent with the render request) has no `composition_id` and no
 * `composition_version`.
 */
export const renders = pgTable(
  "renders",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The stored composition rendered; null for an inline render. */
    compositionId: text("composition_id"),
    /** Its version when the render started; null for an inline render. */
    compositionVersion: integer("composition_version"),
    /**
     * The frozen composition: the full resource as of `composition_version` (or the normalised
     * inline document), with any template placeholders filled. What the worker renders.
     */
    composition: jsonb("composition").$type<FrozenComposition>().notNull(),
    /** Output options with defaults applied (format, size, quality, range, frameAt). */
    options: jsonb("options").$type<RenderOutputOptions>().notNull(),
    status: text("status").$type<RenderStatus>().notNull().default("queued"),
    progress: jsonb("progress").$type<RenderProgress>().notNull(),
    attempt: integer("attempt").notNull().default(0),
    output: jsonb("output").$type<RenderOutput | null>(),
    error: jsonb("error").$type<RenderErrorJson | null>(),
    warnings: jsonb("warnings").$type<RenderWarning[]>().notNull().default([]),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
    /** Video segments of a split render (null: rendered in one piece). */
    segmentCount: integer("segment_count"),
    /** Video segments of a split render finished so far. */
    segmentsDone: integer("segments_done").notNull().default(0),
    /** What a split render copied from the render cache instead of rendering (null: nothing looked up). */
    reuse: jsonb("reuse").$type<RenderReuse | null>(),
    /** What a smart render copied and why it encoded the rest (null: not an mp4, `smartRender: "off"`, or not yet planned). */
    smartRender: jsonb("smart_render").$type<StoredSmartRender | null>(),
  },
  (t) => [
    index("renders_user_idx").on(t.userId, t.id),
    index("renders_composition_idx").on(t.compositionId),
    uniqueIndex("renders_idempotency_idx").on(t.userId, t.idempotencyKey),
  ],
);
