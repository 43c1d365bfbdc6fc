/**
 * Composition versions: every accepted write stores a version row (who, when, a summary and the
 * RFC 6902 patch from the previous version; a full snapshot every {@link SNAPSHOT_EVERY}
 * versions), written in the transaction of the write. Reading version N starts from the nearest
 * snapshot at or before it and applies the patches forward.
 */
import jsonPatch from "fast-json-patch";
import type { Db } from "../../db/client.ts";
import {
  type CompositionVersionRow,
  insertVersion,
  latestSnapshotVersion,
  listVersionsPage,
  type VersionHeaderRow,
  versionChain,
} from "../../db/repositories/composition-versions.ts";
import type { CompositionRow } from "../../db/repositories/compositions.ts";
import type { VersionAuthorKind, VersionState } from "../../db/schema/composition-versions.ts";
import { notFound } from "../../errors.ts";
import { getComposition } from "./compositions.ts";
import type { Composition } from "./schema.ts";
import { summarizeChange } from "./version-summary.ts";

export type { VersionAuthorKind, VersionState };

/** At most this many versions apart, a version row stores the whole state (a snapshot). */
export const SNAPSHOT_EVERY = 50;

/** Who makes a write: the kind of caller, the API key it used and the assistant run, when any. */
export interface VersionAuthor {
  kind: VersionAuthorKind;
  keyId?: string | undefined;
  runId?: string | undefined;
}

/** The versioned part of a composition row: name, project and timeline. */
export function versionState(row: CompositionRow): VersionState {
  return { name: row.name, projectId: row.projectId, ...row.document };
}

/**
 * Records the version a write just stored (`row`, at its new version), in the caller's
 * transaction `db`. `previous` is the state before the write (null for a new composition); the
 * patch is taken from it, or from `{}` when there is none or the version before is not stored
 * (then the row is also a snapshot). `summary` defaults to {@link summarizeChange}.
 */
export async function recordVersion(
  db: Db,
  input: { row: CompositionRow; previous: VersionState | null; author: VersionAuthor; summary?: string },
): Promise<CompositionVersionRow> {
  const state = versionState(input.row);
  const lastSnapshot = input.previous ? await latestSnapshotVersion(db, input.row.id) : null;
  const chained = input.previous !== null && lastSnapshot !== null;
  const snapshot = !chained || input.row.version - (lastSnapshot ?? 0) >= SNAPSHOT_EVERY;
  const from = chained ? (input.previous as VersionState) : {};
  return insertVersion(db, {
    compositionId: input.row.id,
    userId: input.row.userId,
    version: input.row.version,
    createdAt: input.row.updatedAt,
    authorKind: input.author.kind,
    authorKeyId: input.author.keyId ?? null,
    authorRunId: input.author.runId ?? null,
    summary: input.summary ?? summarizeChange(from, state),
    patch: jsonPatch.compare(from, state),
    snapshot: snapshot ? state : null,
  });
}

/**
 * Applies a chain of version rows (the first with a snapshot) and returns the state at the last.
 * @throws Error when the chain does not start with a snapshot — a storage invariant.
 */
export function replayChain(rows: Pick<CompositionVersionRow, "patch" | "snapshot">[]): VersionState {
  const [first, ...rest] = rows;
  if (!first?.snapshot) throw new Error("a version chain must start with a snapshot");
  let state: VersionState = structuredClone(first.snapshot);
  for (const row of rest) state = jsonPatch.applyPatch(state, row.patch, false, true).newDocument;
  return state;
}

/** A version as the API shows it: the composition resource as it was, and the version row. */
export interface VersionDocument {
  composition: Composition;
  row: CompositionVersionRow;
}

/**
 * The state of `version` of a composition the caller owns.
 * @throws AppError 404 when the composition is absent or another owner's, or the version is not
 *   stored (never written, or pruned).
 */
export async function readVersionState(
  db: Db,
  userId: string,
  compositionId: string,
  version: number,
): Promise<{ composition: CompositionRow; state: VersionState; row: CompositionVersionRow }> {
  const composition = await getComposition(db, userId, compositionId);
  const chain = await versionChain(db, compositionId, version);
  const row = chain[chain.length - 1];
  if (!row) throw notFound(`Version ${version} of composition ${compositionId}`);
  return { composition, state: replayChain(chain), row };
}

/**
 * Version `version` of the caller's composition as the composition resource it was
 * (`version` and `updatedAt` of that version; `id` and `createdAt` of the composition).
 * @throws AppError 404 as {@link readVersionState}.
 */
export async function getVersion(
  db: Db,
  input: { userId: string; compositionId: string; version: number },
): Promise<VersionDocument> {
  const { composition, state, row } = await readVersionState(
    db,
    input.userId,
    input.compositionId,
    input.version,
  );
  return {
    row,
    composition: {
      ...(state as Omit<Composition, "id" | "version" | "schemaVersion" | "createdAt" | "updatedAt">),
      id: composition.id,
      schemaVersion: 1,
      version: row.version,
      createdAt: composition.createdAt.toISOString(),
      updatedAt: row.createdAt.toISOString(),
    },
  };
}

/**
 * One page of the versions of the caller's composition, newest first.
 * @throws AppError 404 when the composition is absent or another owner's.
 */
export async function listVersions(
  db: Db,
  input: { userId: string; compositionId: string; limit: number; afterId: string | undefined },
): Promise<{ rows: VersionHeaderRow[]; hasMore: boolean }> {
  await getComposition(db, input.userId, input.compositionId);
  return listVersionsPage(db, input);
}

/**
 * The RFC 6902 patch that turns version `from` of the caller's composition into version `to`
 * (paths address the composition resource; server fields are not part of it).
 * @throws AppError 404 as {@link readVersionState}, for either version.
 */
export async function diffVersions(
  db: Db,
  input: { userId: string; compositionId: string; from: number; to: number },
): Promise<jsonPatch.Operation[]> {
  const a = await readVersionState(db, input.userId, input.compositionId, input.from);
  const b = await readVersionState(db, input.userId, input.compositionId, input.to);
  return jsonPatch.compare(a.state, b.state);
}
