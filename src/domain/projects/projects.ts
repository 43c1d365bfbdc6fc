/**
 * The project use cases: list, fetch, create, update and delete (with an explicit choice for the
 * contents of a non-empty project), each scoped to the caller.
 */
import type { Db } from "../../db/client.ts";
import {
  countProjectContents,
  deleteProjectRow,
  lockProject,
} from "../../db/repositories/project-contents.ts";
import {
  findProject,
  insertProject,
  listProjectsPage,
  type ProjectRow,
  updateProject as updateProjectRow,
} from "../../db/repositories/projects.ts";
import { deleteCacheEntriesOfUpload } from "../../db/repositories/render-cache.ts";
import { conflict, notFound } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderCacheKey, uploadPrefix } from "../../storage/keys.ts";

/**
 * One page of the caller's projects, newest first.
 * @param page.afterId - the last id of the previous page (from the cursor), or undefined.
 */
export function listProjects(
  db: Db,
  userId: string,
  page: { limit: number; afterId: string | undefined },
): Promise<{ rows: ProjectRow[]; hasMore: boolean }> {
  return listProjectsPage(db, { userId, ...page });
}

/**
 * The caller's project `projectId`.
 * @throws AppError 404 when it is absent or another owner's.
 */
export async function getProject(db: Db, userId: string, projectId: string): Promise<ProjectRow> {
  const project = await findProject(db, userId, projectId);
  if (!project) throw notFound(`Project ${projectId}`);
  return project;
}

/** Creates a project of the caller (`description` defaults to empty). */
export function createProject(
  db: Db,
  userId: string,
  input: { name: string; description?: string },
): Promise<ProjectRow> {
  return insertProject(db, { userId, ...input });
}

/**
 * Renames the caller's project or changes its description.
 * @throws AppError 404 when it is absent or another owner's.
 */
export async function updateProject(
  db: Db,
  input: { userId: string; projectId: string; name?: string; description?: string; now: Date },
): Promise<ProjectRow> {
  const project = await updateProjectRow(db, input);
  if (!project) throw notFound(`Project ${input.projectId}`);
  return project;
}

/** What happens to the contents of a deleted project: deleted with it, or kept outside any project. */
export type ProjectContentsChoice = "delete" | "keep";

/**
 * Deletes the caller's project in one transaction. An empty project goes outright; a project
 * holding uploads, compositions, generations or assistant sessions needs `contents`: `delete`
 * removes them with it (refused while one of its generations is queued or running), `keep` moves
 * them out of any project. Renders are the account's and stay. The stored files of deleted
 * uploads are removed after the commit; a file that cannot be removed is logged, not thrown.
 * @throws AppError 404 when the project is absent or another owner's; 409 (with the counts as
 *   `contents`) when it is not empty and `contents` is missing, or `delete` while a generation runs.
 */
export async function deleteProject(
  deps: { db: Db; store: BlobStore; log: { error(obj: object, msg: string): void } },
  input: { userId: string; projectId: string; contents: ProjectContentsChoice | undefined },
): Promise<void> {
  const { projectId } = input;
  const deleted = await deps.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    if (!(await lockProject(tx, input.userId, projectId))) throw notFound(`Project ${projectId}`);
    const contents = await countProjectContents(tx, projectId);
    const held = contents.uploads + contents.compositions + contents.generations + contents.assistantSessions;
    if (held > 0 && input.contents === undefined) {
      throw conflict(
        "The project is not empty: pass contents=delete to delete what it holds with it, or contents=keep to keep that outside any project",
        { contents },
      );
    }
    if (input.contents === "delete" && contents.unfinishedGenerations > 0) {
      throw conflict(
        "A generation of this project is still queued or running; cancel it or wait for it first",
        {
          contents,
        },
      );
    }
    return deleteProjectRow(tx, { projectId, withContents: input.contents === "delete" });
  });
  for (const id of deleted.uploadIds) {
    try {
      await deps.store.deletePrefix(uploadPrefix(id));
      const cached = await deleteCacheEntriesOfUpload(deps.db, input.userId, id);
      await Promise.all(cached.map((key) => deps.store.delete(renderCacheKey(input.userId, key))));
    } catch (err) {
      deps.log.error({ err, uploadId: id }, "could not delete the files of a deleted upload");
    }
  }
}
