import type { VersionHeaderRow } from "../../db/repositories/composition-versions.ts";

/** A version row → the `CompositionVersion` resource. */
export function presentCompositionVersion(row: VersionHeaderRow) {
  return {
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    author: {
      kind: row.authorKind,
      ...(row.authorKeyId ? { keyId: row.authorKeyId } : {}),
      ...(row.authorRunId ? { runId: row.authorRunId } : {}),
    },
    summary: row.summary,
    patch: row.patch,
  };
}
