import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

import type { Plan } from "../../domain/quota/daily-quota.ts";

/** Accounts. Everything else (keys, projects, uploads, compositions, renders) is owned by one user. */
export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  plan: text("plan").$type<Plan>().notNull().default("standard"),
  /** Image model preference from the settings' skills section: the model `POST /api/v1/generate/image` uses. */
  imageModel: text("image_model"),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
