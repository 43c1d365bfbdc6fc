import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { UploadType } from "../../domain/uploads/upload-type.ts";
import type { KeyframeIndex } from "../../media/keyframes.ts";
import type { MediaInfo } from "../../media/probe.ts";
import { generations } from "./generations.ts";
import { projects } from "./projects.ts";
import { users } from "./users.ts";

/** Probed media facts of an upload (`Upload.media`); null for subtitles and fonts. */
export type UploadMedia = MediaInfo;

/**
 * The preview proxy of a video upload (`preview_proxy`): a small H.264 copy with a keyframe every
 * 0.5 s that previews decode instead of the original. `pending` while its `preview_proxy` job is
 * queued or running; `ready` with its storage key, size (display pixels, square, rotation
 * applied) and bytes; `failed` when it could not be made (previews keep using the original).
 */
export type UploadPreviewProxy =
  | { status: "pending" }
  | { status: "ready"; key: string; width: number; height: number; bytes: number; buildMs: number }
  | { status: "failed"; message: string };

/** Stored files. `storage_key` is server-generated (never derived from the client's filename). */
export const uploads = pgTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    type: text("type").$type<UploadType>().notNull(),
    mimeType: text("mime_type").notNull(),
    /** The client's filename, metadata only. */
    name: text("name").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    storageKey: text("storage_key").notNull(),
    posterKey: text("poster_key"),
    /** The preview proxy of a video upload; null for other types and videos that get none. */
    previewProxy: jsonb("preview_proxy").$type<UploadPreviewProxy | null>(),
    media: jsonb("media").$type<UploadMedia | null>(),
    /**
     * Where a video upload's keyframes are (`probeKeyframes`), read once in the background with
     * its preview proxy or by the first render that needs them; null until then, and for other
     * types and sources with more than `MAX_STORED_KEYFRAMES` keyframes.
     */
    keyframes: jsonb("keyframes").$type<KeyframeIndex | null>(),
    /**
     * A font's family names, read from its name table when it was uploaded (what the renderer
     * matches text styles against); null for other types and for fonts stored before this column.
     */
    fontFamilies: jsonb("font_families").$type<string[] | null>(),
    /** `upload` (sent by the client) or `generated` (an output of generation `generation_id`). */
    origin: text("origin").$type<"upload" | "generated">().notNull().default("upload"),
    generationId: text("generation_id").references(() => generations.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("uploads_user_idx").on(t.userId, t.id),
    index("uploads_project_idx").on(t.projectId),
    index("uploads_generation_idx").on(t.generationId),
  ],
);
