import jsonPatch from "fast-json-patch";
import { insertEdit } from "../../db/repositories/assistant.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import { AppError } from "../../errors.ts";
import {
  patchComposition,
  revertComposition,
  toCompositionResource,
  type WriteContext,
} from "../composition/edit-composition.ts";
import type { Composition } from "../composition/schema.ts";
import { readVersionState, versionState } from "../composition/versions.ts";
import { type ToolContext, ToolError } from "./tool-context.ts";

/** Attempts of one edit when users keep editing the composition concurrently. */
const MAX_ATTEMPTS = 4;

const SERVER_FIELDS = ["id", "version", "schemaVersion", "createdAt", "updatedAt"] as const;

function withoutServerFields(c: Composition): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...c };
  for (const k of SERVER_FIELDS) delete copy[k];
  return copy;
}

/** The context of a composition write by the run: as `kind` (its edits, or the revert of one). */
function writeContext(ctx: ToolContext, kind: "assistant" | "revert"): WriteContext {
  return {
    db: ctx.db,
    userId: ctx.userId,
    now: ctx.now(),
    limits: ctx.renderLimits,
    author: { kind, runId: ctx.runId },
  };
}

/** Reads the session's composition as `GET /api/compositions/:id` returns it. */
export async function readComposition(ctx: Pick<ToolContext, "db" | "userId" | "compositionId">) {
  const row = await findComposition(ctx.db, ctx.userId, ctx.compositionId);
  if (!row) {
    throw new ToolError("not_found", `The composition ${ctx.compositionId} no longer exists`);
  }
  return toCompositionResource(row);
}

/** Result of {@link applyEdit}: the tool's own result plus the version it produced. */
export type EditResult<R> = R & { version: number; unchanged?: true };

/**
 * Applies one tool's edit through the same validated, versioned JSON Patch path as
 * `PATCH /api/compositions/:id`.
 *
 * `change` mutates a fresh copy of the composition (as GET returns it) and returns the tool's
 * result; the RFC 6902 diff between the copy and the original is applied with `If-Match` on
 * the version read. When someone else wrote in between (409 `version_conflict`), the
 * composition is read again and `change` re-applied to the new version — references that no
 * longer resolve make `change` throw a clear error instead; nothing is ever overwritten
 * blindly. After the write it emits a `patch` event whose `ops` turn the composition at
 * `baseVersion` into the one at `version` (server fields included), and stores the patch that
 * reverts the edit (with `test` operations) unless `record` is false.
 *
 * @throws ToolError with the validation problems (400) or the conflict.
 */
export async function applyEdit<R extends object>(
  ctx: ToolContext,
  toolCallId: string,
  tool: string,
  change: (draft: Composition) => R | Promise<R>,
  opts: {
    record?: boolean;
    ops?: (before: Composition) => jsonPatch.Operation[];
    /** The version's summary, from the tool's result (default: described from the change). */
    summary?: (result: R) => string;
  } = {},
): Promise<EditResult<R>> {
  for (let attempt = 1; ; attempt++) {
    const before = await readComposition(ctx);
    const draft = structuredClone(before);
    const result = await change(draft);
    const ops = opts.ops ? opts.ops(before) : jsonPatch.compare(before, draft);
    if (ops.length === 0) return { ...result, version: before.version, unchanged: true };
    let afterRow: Awaited<ReturnType<typeof patchComposition>>;
    try {
      afterRow = await patchComposition(writeContext(ctx, "assistant"), {
        id: ctx.compositionId,
        patch: ops,
        ifMatch: before.version,
        summary: opts.summary?.(result),
      });
    } catch (err) {
      if (err instanceof AppError && err.code === "version_conflict" && attempt < MAX_ATTEMPTS) continue;
      if (err instanceof AppError && err.code === "version_conflict") {
        throw new ToolError(
          "version_conflict",
          `The composition kept changing while ${tool} tried to apply (${attempt} attempts); read it again`,
        );
      }
      throw err;
    }
    const after = toCompositionResource(afterRow);
    if (opts.record !== false) {
      await insertEdit(ctx.db, {
        sessionId: ctx.sessionId,
        compositionId: ctx.compositionId,
        toolCallId,
        tool,
        version: after.version,
        inverse: jsonPatch.compare(withoutServerFields(after), withoutServerFields(before), true),
      });
    }
    await emitPatch(ctx, toolCallId, before, after);
    return { ...result, version: after.version };
  }
}

/** Emits the run's `patch` event: the ops that turned `before` into `after` (server fields included). */
async function emitPatch(ctx: ToolContext, toolCallId: string, before: Composition, after: Composition) {
  await ctx.emit("patch", {
    toolCallId,
    compositionId: ctx.compositionId,
    baseVersion: before.version,
    version: after.version,
    ops: jsonPatch.compare(before, after),
  });
}

/**
 * Undoes the edit that wrote version `editVersion` by reverting the composition to the version
 * before it, with the revert route's own domain function (a new version authored `revert` with
 * the run), when nothing else has changed it since: the composition is at `editVersion`, or at a
 * later version whose name and timeline equal it (what later undos left). Emits the `patch`
 * event as {@link applyEdit} does.
 * @returns the version written, or null when the composition changed since (the caller undoes
 *   only what the edit changed instead) or the version before the edit is no longer stored.
 * @throws AppError 400 when the earlier document no longer validates (an upload it used was deleted).
 */
export async function revertEdit(
  ctx: ToolContext,
  toolCallId: string,
  editVersion: number,
): Promise<{ version: number } | null> {
  if (editVersion <= 1) return null;
  let current: Awaited<ReturnType<typeof readVersionState>>["composition"];
  try {
    const read = await readVersionState(ctx.db, ctx.userId, ctx.compositionId, editVersion);
    current = read.composition;
    const { projectId: _a, ...now } = versionState(current);
    const { projectId: _b, ...then } = read.state;
    if (current.version !== editVersion && jsonPatch.compare(now, then).length > 0) return null;
    await readVersionState(ctx.db, ctx.userId, ctx.compositionId, editVersion - 1);
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return null;
    throw err;
  }
  const before = toCompositionResource(current);
  let afterRow: Awaited<ReturnType<typeof revertComposition>>;
  try {
    afterRow = await revertComposition(writeContext(ctx, "revert"), {
      id: ctx.compositionId,
      version: editVersion - 1,
      ifMatch: before.version,
    });
  } catch (err) {
    if (err instanceof AppError && err.code === "version_conflict") return null;
    throw err;
  }
  const after = toCompositionResource(afterRow);
  await emitPatch(ctx, toolCallId, before, after);
  return { version: after.version };
}
