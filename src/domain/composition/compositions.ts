/**
 * The composition reads and delete of the API, scoped to the caller. The writes that validate a
 * document (create, replace, JSON Patch) are in `edit-composition.ts`.
 */
import type { Db } from "../../db/client.ts";
import {
  type CompositionRow,
  deleteComposition as deleteCompositionRow,
  findComposition,
  listCompositionsPage,
} from "../../db/repositories/compositions.ts";
import { notFound } from "../../errors.ts";

/** One page of the caller's compositions, newest first, optionally of one project. */
export function listCompositions(
  db: Db,
  input: { userId: string; projectId?: string | undefined; limit: number; afterId: string | undefined },
): Promise<{ rows: CompositionRow[]; hasMore: boolean }> {
  return listCompositionsPage(db, input);
}

/**
 * The caller's composition `id`.
 * @throws AppError 404 when it is absent or another owner's.
 */
export async function getComposition(db: Db, userId: string, id: string): Promise<CompositionRow> {
  const row = await findComposition(db, userId, id);
  if (!row) throw notFound(`Composition ${id}`);
  return row;
}

/**
 * Deletes the caller's composition; nothing happens when it is absent or another owner's
 * (idempotent). Renders keep their frozen copy.
 */
export async function deleteComposition(db: Db, userId: string, id: string): Promise<void> {
  await deleteCompositionRow(db, userId, id);
}
