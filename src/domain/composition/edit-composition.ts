import jsonPatch from "fast-json-patch";
import type { Db } from "../../db/client.ts";
import {
  type CompositionRow,
  findComposition,
  insertComposition,
  updateCompositionIfVersion,
} from "../../db/repositories/compositions.ts";
import { findProject } from "../../db/repositories/projects.ts";
import { transcriptionStatuses } from "../../db/repositories/transcriptions.ts";
import { findUploadsByIds, listFontUploads } from "../../db/repositories/uploads.ts";
import { AppError, invalidRequest, notFound, rewriteInvalidRequest } from "../../errors.ts";
import { MAX_UPLOADED_FONTS } from "../fonts/fonts.ts";
import type { RenderLimits } from "./limits.ts";
import { clipUploads } from "./missing-clips.ts";
import { normalizeComposition } from "./normalize.ts";
import type { Composition, CompositionWrite } from "./schema.ts";
import { type TranscriptionInfo, type UploadInfo, validateComposition } from "./validate.ts";
import {
  readVersionState,
  recordVersion,
  type VersionAuthor,
  type VersionState,
  versionState,
} from "./versions.ts";

/** Context of every composition write: the database and the caller. */
export interface EditContext {
  db: Db;
  userId: string;
  now: Date;
  /** Render cost limits the composition must keep to; omitted = not checked here (render start checks). */
  limits?: RenderLimits;
}

/** Context of a composition write: {@link EditContext} and who writes (recorded in its version). */
export interface WriteContext extends EditContext {
  author: VersionAuthor;
}

/** Stored row → the Composition resource (docs/composition.md). */
export function toCompositionResource(row: CompositionRow): Composition {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    schemaVersion: 1,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...row.document,
  };
}

/**
 * Validates a composition document for the caller as every write does (structure, ranges,
 * overlaps, upload and transcription references of the caller, the render cost limits of `ctx`); paths of the
 * details point into `doc`. Used by writes and by renders of an inline or merged composition.
 * @throws AppError 400 with every problem as a JSON Pointer detail.
 */
export async function validateCompositionFor(
  ctx: EditContext,
  doc: unknown,
  alreadyUsed?: ReadonlySet<string>,
): Promise<void> {
  await validateComposition(doc, {
    lookupUpload: async (ids) => {
      const rows = await findUploadsByIds(ctx.db, ctx.userId, ids);
      return new Map<string, UploadInfo>(
        rows.map((u) => [u.id, { type: u.type, media: u.media, name: u.name }]),
      );
    },
    lookupTranscription: async (ids) => {
      const statuses = await transcriptionStatuses(ctx.db, ctx.userId, ids);
      return new Map<string, TranscriptionInfo>([...statuses].map(([id, status]) => [id, { status }]));
    },
    lookupFontFamilies: async () => {
      const rows = await listFontUploads(ctx.db, ctx.userId, MAX_UPLOADED_FONTS);
      // Fonts stored before their families were recorded: unknown until a render reads them.
      if (rows.some((f) => f.fontFamilies === null)) return null;
      return rows.flatMap((f) => f.fontFamilies ?? []);
    },
    ...(ctx.limits ? { limits: ctx.limits } : {}),
    ...(alreadyUsed ? { alreadyUsed } : {}),
  });
}

/**
 * Validates a write body ({@link validateCompositionFor}, then project ownership) and returns
 * the normalised fields to store (ids assigned, clips sorted).
 * @param current - the stored composition a write replaces: clips of uploads it already used
 *   that are gone now are accepted as they are (already degraded).
 * @throws AppError 400 with every problem as a JSON Pointer detail; 404 for a foreign project.
 */
export async function prepareCompositionWrite(ctx: EditContext, body: unknown, current?: CompositionRow) {
  const alreadyUsed = current ? new Set(clipUploads(current.document).map((u) => u.uploadId)) : undefined;
  await validateCompositionFor(ctx, body, alreadyUsed);
  const doc = normalizeComposition(body as CompositionWrite);
  if (doc.projectId && !(await findProject(ctx.db, ctx.userId, doc.projectId))) {
    throw notFound(`Project ${doc.projectId}`);
  }
  const { name, projectId, ...document } = doc;
  return { name, projectId, document };
}

/**
 * Creates a composition at version 1 from a write body, and its first version (in one transaction).
 * @param summary - the first version's summary (default `created`, `imported` for an import).
 * @throws as {@link prepareCompositionWrite}.
 */
export async function createComposition(
  ctx: WriteContext,
  body: CompositionWrite,
  summary?: string,
): Promise<CompositionRow> {
  const fields = await prepareCompositionWrite(ctx, body);
  return ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const row = await insertComposition(db, ctx.userId, fields, ctx.now);
    await recordVersion(db, {
      row,
      previous: null,
      author: ctx.author,
      summary: summary ?? (ctx.author.kind === "import" ? "imported" : "created"),
    });
    return row;
  });
}

function versionConflict(current: number): AppError {
  return new AppError("version_conflict", `The composition changed meanwhile: it is at version ${current}`, {
    extra: { currentVersion: current },
  });
}

/**
 * Saves with compare-and-set on the version of `current` and records the new version in the same
 * transaction; stale → 409 `version_conflict` carrying `currentVersion`, never a silent overwrite.
 */
async function saveIfVersion(
  ctx: WriteContext,
  current: CompositionRow,
  body: unknown,
  summary?: string,
): Promise<CompositionRow> {
  const id = current.id;
  const fields = await prepareCompositionWrite(ctx, body, current);
  const previous: VersionState = versionState(current);
  const saved = await ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const row = await updateCompositionIfVersion(db, {
      userId: ctx.userId,
      id,
      expectedVersion: current.version,
      now: ctx.now,
      ...fields,
    });
    if (row) await recordVersion(db, { row, previous, author: ctx.author, ...(summary ? { summary } : {}) });
    return row;
  });
  if (saved) return saved;
  const now = await findComposition(ctx.db, ctx.userId, id);
  if (!now) throw notFound(`Composition ${id}`);
  throw versionConflict(now.version);
}

/**
 * Replaces a composition (PUT). `baseVersion` is the version the client's copy was based on;
 * `summary` replaces the version's computed summary (an automated step names what it did).
 * @throws 404 unknown/foreign, 409 stale version, 400 invalid body.
 */
export async function replaceComposition(
  ctx: WriteContext,
  input: { id: string; baseVersion: number; body: CompositionWrite; summary?: string | undefined },
): Promise<CompositionRow> {
  const current = await findComposition(ctx.db, ctx.userId, input.id);
  if (!current) throw notFound(`Composition ${input.id}`);
  if (current.version !== input.baseVersion) throw versionConflict(current.version);
  return saveIfVersion(ctx, current, input.body, input.summary);
}

const READ_ONLY = new Set(["/id", "/version", "/schemaVersion", "/createdAt", "/updatedAt"]);

/**
 * Applies an RFC 6902 JSON Patch atomically to the composition resource as GET returns it,
 * then re-validates the whole result. Paths use the resource's shape
 * (`/tracks/0/clips/1/start`). A failed `test` operation is a 409 `conflict`; an
 * unresolvable path or malformed operation is a 400 naming the operation (`/3`).
 *
 * @param ifMatch - optional version the patch was based on (If-Match); stale → 409.
 * @param summary - the version's summary (default: described from the change).
 */
export async function patchComposition(
  ctx: WriteContext,
  input: { id: string; patch: unknown; ifMatch: number | undefined; summary?: string | undefined },
): Promise<CompositionRow> {
  const current = await findComposition(ctx.db, ctx.userId, input.id);
  if (!current) throw notFound(`Composition ${input.id}`);
  if (input.ifMatch !== undefined && input.ifMatch !== current.version)
    throw versionConflict(current.version);
  if (!Array.isArray(input.patch)) {
    throw invalidRequest("A JSON Patch body must be an array of operations (RFC 6902)", [
      { path: "/", message: "must be an array" },
    ]);
  }
  const ops = input.patch as jsonPatch.Operation[];
  ops.forEach((op, i) => {
    const path = typeof op?.path === "string" ? op.path : "";
    if (op?.path === "" && op.op !== "test") {
      throw invalidRequest(
        `Operation ${i} would ${op.op === "remove" ? "remove" : "replace"} the whole composition; patch its fields instead, or PUT a new body`,
        [{ path: `/${i}/path`, message: 'must not be the document root ("")' }],
      );
    }
    if (
      READ_ONLY.has(path) ||
      (op?.op === "move" && READ_ONLY.has(String((op as { from?: unknown }).from)))
    ) {
      throw invalidRequest(`Operation ${i} changes the read-only field ${path}`, [
        { path: `/${i}/path`, message: "read-only field" },
      ]);
    }
  });
  const resource = toCompositionResource(current);
  let patched: unknown;
  try {
    const validation = jsonPatch.validate(ops, resource);
    if (validation) throw validation;
    patched = jsonPatch.applyPatch(structuredClone(resource), ops, false, false).newDocument;
  } catch (err) {
    const e = err as { name?: string; index?: number; message?: string };
    const where = [
      { path: `/${e.index ?? 0}`, message: (e.message ?? "invalid operation").split("\n")[0] ?? "" },
    ];
    if (e.name === "TEST_OPERATION_FAILED") {
      throw new AppError("conflict", `JSON Patch test operation ${e.index ?? 0} failed`, { details: where });
    }
    throw invalidRequest("The JSON Patch cannot be applied to this composition", where);
  }
  // Read-only fields are ignored by the write schema; keep the write body free of them.
  const {
    id: _id,
    createdAt: _c,
    updatedAt: _u,
    schemaVersion: _s,
    version: _v,
    ...body
  } = patched as Composition;
  return saveIfVersion(ctx, current, body, input.summary);
}

/**
 * Reverts a composition to an earlier version (its name and timeline; the composition stays in
 * its current project): a new version whose document equals that version's, authored `revert`
 * with the caller's key. `ifMatch` is the version the caller saw (If-Match); stale → 409.
 * @throws 404 unknown/foreign composition or a version that is not stored, 409 stale `ifMatch`,
 *   400 when the old document no longer validates (e.g. an upload it used was deleted).
 */
export async function revertComposition(
  ctx: WriteContext,
  input: { id: string; version: number; ifMatch: number },
): Promise<CompositionRow> {
  const current = await findComposition(ctx.db, ctx.userId, input.id);
  if (!current) throw notFound(`Composition ${input.id}`);
  if (input.ifMatch !== current.version) throw versionConflict(current.version);
  const { state } = await readVersionState(ctx.db, ctx.userId, input.id, input.version);
  return saveIfVersion(
    ctx,
    current,
    { ...state, projectId: current.projectId },
    `reverted to version ${input.version}`,
  );
}

/**
 * Stores the result of an automated editing step (reframe, …) as one new version: reads the
 * caller's composition, checks `ifMatch`, runs `step` on the resource as GET returns it, and
 * saves what it returns (validated like every write) with its summary as the version's summary.
 * @param input.ifMatch - the version the caller saw (If-Match); stale → 409, also when the
 *   composition changed while the step ran.
 * @returns the stored row and the step's own result.
 * @throws 404 unknown/foreign composition; 409 stale; 400 when the step's document does not
 *   validate; whatever `step` throws.
 */
export async function applyCompositionStep<R extends { composition: Composition; summary: string }>(
  ctx: WriteContext,
  input: { id: string; ifMatch: number },
  step: (current: Composition) => Promise<R>,
): Promise<{ row: CompositionRow; result: R }> {
  const current = await findComposition(ctx.db, ctx.userId, input.id);
  if (!current) throw notFound(`Composition ${input.id}`);
  if (input.ifMatch !== current.version) throw versionConflict(current.version);
  const result = await step(toCompositionResource(current));
  const {
    id: _id,
    createdAt: _c,
    updatedAt: _u,
    schemaVersion: _s,
    version: _v,
    warnings: _w,
    ...body
  } = result.composition;
  const row = await saveIfVersion(ctx, current, body, result.summary);
  return { row, result };
}

/**
 * Relinks a composition: every clip whose media asset or caption source is upload `from` uses
 * upload `to` instead (typically a deleted upload's clips, to a new upload of the same footage),
 * as one new version. `to` must be the caller's and fit each clip like any write's references.
 * @param input.ifMatch - the version the caller saw (If-Match); stale → 409.
 * @throws 404 unknown/foreign composition; 409 stale `ifMatch`; 400 naming `/from` when no clip
 *   uses it, or `/to` (with the clips' paths in details) when it is not the caller's upload or does
 *   not fit a clip.
 */
export async function relinkComposition(
  ctx: WriteContext,
  input: { id: string; from: string; to: string; ifMatch: number },
): Promise<CompositionRow> {
  const current = await findComposition(ctx.db, ctx.userId, input.id);
  if (!current) throw notFound(`Composition ${input.id}`);
  if (input.ifMatch !== current.version) throw versionConflict(current.version);
  let count = 0;
  const tracks = current.document.tracks.map((track) => ({
    ...track,
    clips: track.clips.map((clip) => {
      const asset = clip.asset as { type: string; uploadId?: string; source?: { uploadId?: string } };
      if (asset.uploadId === input.from) {
        count += 1;
        return { ...clip, asset: { ...asset, uploadId: input.to } };
      }
      if (asset.source?.uploadId === input.from) {
        count += 1;
        return { ...clip, asset: { ...asset, source: { uploadId: input.to } } };
      }
      return clip;
    }),
  })) as typeof current.document.tracks;
  if (count === 0) {
    throw invalidRequest(`No clip of this composition uses upload ${input.from}`, [
      { path: "/from", message: "no clip uses this upload" },
    ]);
  }
  const body = { name: current.name, projectId: current.projectId, ...current.document, tracks };
  const { to } = input;
  const saved = await rewriteInvalidRequest(
    () =>
      saveIfVersion(ctx, current, body, `relinked ${count} clip${count === 1 ? "" : "s"} to another upload`),
    {
      message: (m) => m.replace(/^Composition is invalid/, `Cannot relink to upload ${to}`),
      detail: (d) => (d.uploadId === to ? { ...d, path: "/to", message: `${d.message} (at ${d.path})` } : d),
    },
  );
  return saved;
}
