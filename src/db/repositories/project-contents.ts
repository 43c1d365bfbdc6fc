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
 * Locks project `projectId` of `userId` for the rest of the transaction `tx` (`FOR UPDATE`).
 * @returns false when the project is absent or another owner's.
 */
export async function lockProject(tx: Db, userId: string, projectId: string): Promise<boolean> {
  const [project] = await tx
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.userId, userId), eq(projects.id, projectId)))
    .for("update");
  return project !== undefined;
}

/**
 * Deletes a project row, inside the caller's transaction `tx` (which has locked it with
 * {@link lockProject}). What it held is kept, moved out of the project (the foreign keys set
 * `project_id` to null), unless `withContents` is true: then its compositions, assistant
 * sessions (with their history), generations and uploads are deleted too. Renders are never
 * deleted here: they belong to the account and keep their frozen composition and output.
 *
 * @returns the ids of the deleted uploads (whose stored files the caller removes after the commit).
 */
export async function deleteProjectRow(
  tx: Db,
  input: { projectId: string; withContents: boolean },
): Promise<{ uploadIds: string[] }> {
  const projectId = input.projectId;
  let uploadIds: string[] = [];
  if (input.withContents) {
    await tx.delete(compositions).where(eq(compositions.projectId, projectId));
    await tx.delete(assistantSessions).where(eq(assistantSessions.projectId, projectId));
    const removed = await tx
      .delete(uploads)
      .where(eq(uploads.projectId, projectId))
      .returning({ id: uploads.id });
    uploadIds = removed.map((r) => r.id);
    await tx
      .delete(generations)
      .where(and(eq(generations.projectId, projectId), inArray(generations.status, GENERATION_TERMINAL)));
  }
  await tx.delete(projects).where(eq(projects.id, projectId));
  return { uploadIds };
}
