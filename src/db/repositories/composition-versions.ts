import { and, asc, desc, eq, gte, inArray, isNotNull, lt, lte, max, sql } from "drizzle-orm";
import type { Operation } from "fast-json-patch";
import { newId } from "../../ids.ts";
import type { Db } from "../client.ts";
import {
  compositionVersions,
  type VersionAuthorKind,
  type VersionState,
} from "../schema/composition-versions.ts";

/** A stored version row. */
export type CompositionVersionRow = typeof compositionVersions.$inferSelect;

/** A version row without its patch and snapshot (what a list shows). */
export type VersionHeaderRow = Omit<CompositionVersionRow, "snapshot">;

/** Fields of a new version row. */
export interface NewVersion {
  compositionId: string;
  userId: string;
  version: number;
  createdAt: Date;
  authorKind: VersionAuthorKind;
  authorKeyId: string | null;
  authorRunId: string | null;
  summary: string;
  patch: Operation[];
  snapshot: VersionState | null;
}

/** Inserts a version row. */
export async function insertVersion(db: Db, row: NewVersion): Promise<CompositionVersionRow> {
  const [inserted] = await db
    .insert(compositionVersions)
    .values({ id: newId("ver"), ...row })
    .returning();
  return inserted as CompositionVersionRow;
}

/** The highest stored version of a composition that carries a snapshot, or null. */
export async function latestSnapshotVersion(db: Db, compositionId: string): Promise<number | null> {
  const [row] = await db
    .select({ version: max(compositionVersions.version) })
    .from(compositionVersions)
    .where(
      and(eq(compositionVersions.compositionId, compositionId), isNotNull(compositionVersions.snapshot)),
    );
  return row?.version ?? null;
}

const header = {
  id: compositionVersions.id,
  compositionId: compositionVersions.compositionId,
  userId: compositionVersions.userId,
  version: compositionVersions.version,
  createdAt: compositionVersions.createdAt,
  authorKind: compositionVersions.authorKind,
  authorKeyId: compositionVersions.authorKeyId,
  authorRunId: compositionVersions.authorRunId,
  summary: compositionVersions.summary,
  patch: compositionVersions.patch,
};

/**
 * One page of a composition's versions, highest version first: the first `limit` rows below the
 * row `afterId` (the last row of the previous page), and whether another page follows.
 */
export async function listVersionsPage(
  db: Db,
  input: { compositionId: string; limit: number; afterId: string | undefined },
): Promise<{ rows: VersionHeaderRow[]; hasMore: boolean }> {
  const conditions = [eq(compositionVersions.compositionId, input.compositionId)];
  if (input.afterId) {
    conditions.push(
      lt(
        compositionVersions.version,
        sql`(select ${compositionVersions.version} from ${compositionVersions} where ${compositionVersions.id} = ${input.afterId})`,
      ),
    );
  }
  const rows = await db
    .select(header)
    .from(compositionVersions)
    .where(and(...conditions))
    .orderBy(desc(compositionVersions.version))
    .limit(input.limit + 1);
  return { rows: rows.slice(0, input.limit), hasMore: rows.length > input.limit };
}

/**
 * The rows that rebuild `version` of a composition: the nearest row with a snapshot at or before
 * it, then every row after that up to `version`, in version order. Empty when the version is
 * not stored (pruned, never written) or has no snapshot before it.
 */
export async function versionChain(
  db: Db,
  compositionId: string,
  version: number,
): Promise<CompositionVersionRow[]> {
  const base = sql`(select max(${compositionVersions.version}) from ${compositionVersions} where ${compositionVersions.compositionId} = ${compositionId} and ${compositionVersions.version} <= ${version} and ${compositionVersions.snapshot} is not null)`;
  const rows = await db
    .select()
    .from(compositionVersions)
    .where(
      and(
        eq(compositionVersions.compositionId, compositionId),
        lte(compositionVersions.version, version),
        gte(compositionVersions.version, base),
      ),
    )
    .orderBy(asc(compositionVersions.version));
  return rows[rows.length - 1]?.version === version ? rows : [];
}

/** Every stored row of a composition, in version order (pruning rewrites the chain). */
export function allVersions(db: Db, compositionId: string): Promise<CompositionVersionRow[]> {
  return db
    .select()
    .from(compositionVersions)
    .where(eq(compositionVersions.compositionId, compositionId))
    .orderBy(asc(compositionVersions.version));
}

/** Ids of the compositions with a version row created before `before` (pruning candidates). */
export async function compositionsWithVersionsBefore(db: Db, before: Date): Promise<string[]> {
  const rows = await db
    .selectDistinct({ compositionId: compositionVersions.compositionId })
    .from(compositionVersions)
    .where(lt(compositionVersions.createdAt, before));
  return rows.map((r) => r.compositionId);
}

/** Deletes version rows by id; resolves to how many were deleted. */
export async function deleteVersions(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db
    .delete(compositionVersions)
    .where(inArray(compositionVersions.id, ids))
    .returning({ id: compositionVersions.id });
  return rows.length;
}

/** Rewrites the patch and snapshot of a version row (after the rows before it were pruned). */
export async function rewriteVersionChain(
  db: Db,
  id: string,
  fields: { patch: Operation[]; snapshot: VersionState | null },
): Promise<void> {
  await db.update(compositionVersions).set(fields).where(eq(compositionVersions.id, id));
}
