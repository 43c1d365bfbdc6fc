import { jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import type { MediaAnalysis } from "../../media/analysis/types.ts";
import { uploads } from "./uploads.ts";

/**
 * Cached scene, silence, loudness and peak analyses of an upload, one row per set of
 * parameters (`params_key`, e.g. `silence=-35dB/0.5s;scene=0.3`). Computed once, read after.
 */
export const uploadAnalyses = pgTable(
  "upload_analyses",
  {
    uploadId: text("upload_id")
      .notNull()
      .references(() => uploads.id, { onDelete: "cascade" }),
    paramsKey: text("params_key").notNull(),
    result: jsonb("result").$type<MediaAnalysis>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.paramsKey] })],
);
