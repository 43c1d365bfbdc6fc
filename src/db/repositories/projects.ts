import { and, eq } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { Db } from "../client.ts";
import { projects } from "../schema/projects.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** A project row. */
export type ProjectRow = typeof projects.$inferSelect;

/** Creates a project owned by `userId`. */
export async function insertProject(
  db: Db,
  input: { userId: string; name: string; description?: string },
): Promise<ProjectRow> {
  const [row] = await db
    .insert(projects)
    .values({
      id: newId("prj"),
      userId: input.userId,
      name: input.name,
      description: input.description ?? "",
    })
    .returning();
  return row as ProjectRow;
}

/**
 * One page of a user's projects, newest first (`newestFirstPage`).
 *
 * @param afterId - the last id of the previous page (from the decoded cursor), or undefined.
 */
export async function listProjectsPage(
  db: Db,
  input: { userId: string; limit: number; afterId: string | undefined },
): Promise<{ rows: ProjectRow[]; hasMore: boolean }> {
  return newestFirstPage(db, projects, [eq(projects.userId, input.userId)], input);
}

/** One project of `userId`, or null (also for another owner's project). */
export async function findProject(db: Db, userId: string, projectId: string): Promise<ProjectRow | null> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.userId, userId), eq(projects.id, projectId)))
    .limit(1);
  return row ?? null;
}

/** Renames a project or changes its description; returns the updated row or null (absent or another owner's). */
export async function updateProject(
  db: Db,
  input: { userId: string; projectId: string; name?: string; description?: string; now: Date },
): Promise<ProjectRow | null> {
  const [row] = await db
    .update(projects)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      updatedAt: input.now,
    })
    .where(and(eq(projects.userId, input.userId), eq(projects.id, input.projectId)))
    .returning();
  return row ?? null;
}
