import { and, count, eq, inArray, notInArray } from "drizzle-orm";
import type { Db } from "../client.ts";
import { assistantSessions } from "../schema/assistant.ts";
import { compositions } from "../schema/compositions.ts";
import { generations } from "../schema/generations.ts";
import { projects } from "../schema/projects.ts";
import { uploads } from "../schema/uploads.ts";
import { GENERATION_TERMINAL } from "./generations.ts";

/** How many of each resource a project holds. */
export interface ProjectContents {
  uploads: number;
  compositions: number;
  generations: number;
  /** Generations still queued or running (a project deleted with its contents must have none). */
  unfinishedGenerations: number;
  assistantSessions: number;
}

async function countWhere(
  db: Db,
  table: typeof uploads | typeof compositions | typeof assistantSessions,
  projectId: string,
) {
  const [row] = await db.select({ n: count() }).from(table).where(eq(table.projectId, projectId));
  return row?.n ?? 0;
}

/** Counts what project `projectId` holds (the caller has checked that it owns the project). */
export async function countProjectContents(db: Db, projectId: string): Promise<ProjectContents> {
  const [gen] = await db.select({ n: count() }).from(generations).where(eq(generations.projectId, projectId));
  const [unfinished] = await db
    .select({ n: count() })
    .from(generations)
    .where(and(eq(generations.projectId, projectId), notInArray(generations.status, GENERATION_TERMINAL)));
  return {
    uploads: await countWhere(db, uploads, projectId),
    compositions: await countWhere(db, compositions, projectId),
    generations: gen?.n ?? 0,
    unfinishedGenerations: unfinished?.n ?? 0,
    assistantSessions: await countWhere(db, assistantSessions, projectId),
  };
}

/**
 * Deletes a user's project row. What it held is kept, moved out of the project (the foreign
 * keys set `project_id` to null), unless `withContents` is true: then its compositions,
 * assistant sessions (with their history), generations and uploads are deleted too, in the same
 * transaction. Renders are never deleted here: they belong to the account and keep their frozen
 * composition and output.
 *
 * @returns the ids of the deleted uploads (whose stored files the caller removes after the
 *   commit), or null when the project is absent or another owner's.
 */
export async function deleteProjectRow(
  db: Db,
  input: { userId: string; projectId: string; withContents: boolean },
): Promise<{ uploadIds: string[] } | null> {
  return db.transaction(async (tx) => {
    const [project] = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.userId, input.userId), eq(projects.id, input.projectId)))
      .for("update");
    if (!project) return null;
    let uploadIds: string[] = [];
    if (input.withContents) {
      await tx.delete(compositions).where(eq(compositions.projectId, project.id));
      await tx.delete(assistantSessions).where(eq(assistantSessions.projectId, project.id));
      const removed = await tx
        .delete(uploads)
        .where(eq(uploads.projectId, project.id))
        .returning({ id: uploads.id });
      uploadIds = removed.map((r) => r.id);
      await tx
        .delete(generations)
        .where(and(eq(generations.projectId, project.id), inArray(generations.status, GENERATION_TERMINAL)));
    }
    await tx.delete(projects).where(eq(projects.id, project.id));
    return { uploadIds };
  });
}
