import { invalidRequest } from "../errors.ts";

/**
 * Encodes the last id of a page as an opaque cursor (base64url of `v1:<id>`), so clients
 * cannot depend on the id ordering trick behind it.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1:${lastId}`).toString("base64url");
}

/**
 * Decodes a cursor from {@link encodeCursor}.
 * @throws AppError 400 `invalid_request` with path `/cursor` when it is not one of ours.
 */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const m = /^v1:([a-z]{3}_[0-9A-Z]{26})$/.exec(text);
  if (!m)
    throw invalidRequest("The cursor is not valid", [
      { path: "/cursor", message: "not a cursor this API issued" },
    ]);
  return m[1];
}

/** Rows per page when a list request gives no `limit` (PageQuery's default). */
export const DEFAULT_PAGE_SIZE = 25;

/**
 * The window a list request asks for (`PageQuery`): its `limit` (default
 * {@link DEFAULT_PAGE_SIZE}) and the id after which the page starts, from its cursor.
 * @throws AppError 400 naming `/cursor` when the cursor is not one of ours.
 */
export function pageWindow(query: { limit?: number | undefined; cursor?: string | undefined }): {
  limit: number;
  afterId: string | undefined;
} {
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, afterId: decodeCursor(query.cursor) };
}

/** `{ data, nextCursor }` from a page of rows fetched with one extra row. */
export function toPage<R extends { id: string }, T>(
  page: { rows: R[]; hasMore: boolean },
  present: (row: R) => T,
): { data: T[]; nextCursor: string | null } {
  const last = page.rows[page.rows.length - 1];
  return { data: page.rows.map(present), nextCursor: page.hasMore && last ? encodeCursor(last.id) : null };
}

/** {@link toPage} for presenters that are async (e.g. they sign URLs); rows are presented concurrently. */
export async function toPageAsync<R extends { id: string }, T>(
  page: { rows: R[]; hasMore: boolean },
  present: (row: R) => Promise<T>,
): Promise<{ data: T[]; nextCursor: string | null }> {
  const { nextCursor } = toPage(page, () => null);
  return { data: await Promise.all(page.rows.map(present)), nextCursor };
}
