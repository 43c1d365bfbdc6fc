/** The render reads of the API, scoped to the caller (start and cancel are in `render-jobs/`). */
import type { Db } from "../../db/client.ts";
import { findRender, listRendersPage, type RenderRow } from "../../db/repositories/renders.ts";

/** The caller's render `id`, or null when it is absent or another owner's. */
export function getRender(db: Db, userId: string, id: string): Promise<RenderRow | null> {
  return findRender(db, userId, id);
}

/**
 * One page of the caller's renders, newest first, optionally by status, composition and the
 * project of the composition.
 */
export function listRenders(
  db: Db,
  input: {
    userId: string;
    status?: RenderRow["status"] | undefined;
    compositionId?: string | undefined;
    projectId?: string | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: RenderRow[]; hasMore: boolean }> {
  return listRendersPage(db, input);
}
