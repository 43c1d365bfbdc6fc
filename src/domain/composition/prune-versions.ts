/**
 * Retention of composition versions, the same rule for every account: every version of the last
 * {@link VERSION_KEEP_ALL_DAYS} days is kept; older ones only as the last version of their UTC
 * day; the current version always. The rows left are re-chained so that every kept version can
 * still be rebuilt: the oldest kept one becomes a snapshot, a kept version whose predecessor was
 * deleted gets the patch from the kept version before it, and no run of patches grows longer
 * than {@link SNAPSHOT_EVERY}.
 */
import jsonPatch from "fast-json-patch";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  allVersions,
  type CompositionVersionRow,
  compositionsWithVersionsBefore,
  deleteVersions,
  rewriteVersionChain,
} from "../../db/repositories/composition-versions.ts";
import { lockComposition } from "../../db/repositories/compositions.ts";
import { SNAPSHOT_EVERY, type VersionState } from "./versions.ts";

/** Days during which every version of a composition is kept. */
export const VERSION_KEEP_ALL_DAYS = 30;

/** The versions the rule keeps among `rows` (one composition's, in version order). */
function keptVersions(rows: CompositionVersionRow[], before: Date): Set<number> {
  const keep = new Set<number>();
  const lastOfDay = new Map<string, number>();
  for (const row of rows) {
    if (row.createdAt >= before) keep.add(row.version);
    else lastOfDay.set(row.createdAt.toISOString().slice(0, 10), row.version);
  }
  for (const version of lastOfDay.values()) keep.add(version);
  const current = rows[rows.length - 1];
  if (current) keep.add(current.version);
  return keep;
}

/** Prunes one composition's versions in one transaction; resolves to the rows deleted. */
async function pruneComposition(db: Db, compositionId: string, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    await lockComposition(t, compositionId);
    const rows = await allVersions(t, compositionId);
    const keep = keptVersions(rows, before);
    if (keep.size === rows.length) return 0;
    let state: VersionState = {};
    let keptState: VersionState | null = null;
    let previousKept = false;
    let sinceSnapshot = 0;
    for (const row of rows) {
      state = row.snapshot
        ? structuredClone(row.snapshot)
        : jsonPatch.applyPatch(state, row.patch, false, true).newDocument;
      const kept = keep.has(row.version);
      if (kept) {
        const patch = previousKept ? row.patch : jsonPatch.compare(keptState ?? {}, state);
        const snapshot =
          keptState === null || row.snapshot || sinceSnapshot + 1 >= SNAPSHOT_EVERY ? state : null;
        sinceSnapshot = snapshot ? 0 : sinceSnapshot + 1;
        if (patch !== row.patch || (snapshot !== null) !== (row.snapshot !== null)) {
          await rewriteVersionChain(t, row.id, {
            patch,
            snapshot: snapshot ? structuredClone(snapshot) : null,
          });
        }
        keptState = structuredClone(state);
      }
      previousKept = kept;
    }
    return deleteVersions(
      t,
      rows.filter((r) => !keep.has(r.version)).map((r) => r.id),
    );
  });
}

/**
 * Applies the retention rule to every composition with versions older than
 * {@link VERSION_KEEP_ALL_DAYS} days (of 24 hours) before now, each in its own transaction.
 * @returns the cut-off and the number of version rows deleted.
 */
export async function pruneCompositionVersions(
  db: Db,
  clock: Clock,
  keepAllDays = VERSION_KEEP_ALL_DAYS,
): Promise<{ before: Date; deleted: number }> {
  const before = new Date(clock.now().getTime() - keepAllDays * 86_400_000);
  let deleted = 0;
  for (const id of await compositionsWithVersionsBefore(db, before)) {
    deleted += await pruneComposition(db, id, before);
  }
  return { before, deleted };
}
