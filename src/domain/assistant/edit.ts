import jsonPatch from "fast-json-patch";
import { insertEdit } from "../../db/repositories/assistant.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import { AppError } from "../../errors.ts";
import { patchComposition, toCompositionResource } from "../composition/edit-composition.ts";
import type { Composition } from "../composition/schema.ts";
import { type ToolContext, ToolError } from "./tool-context.ts";

/** Attempts of one edit when users keep editing the composition concurrently. */
const MAX_ATTEMPTS = 4;

const SERVER_FIELDS = ["id", "version", "schemaVersion", "createdAt", "updatedAt"] as const;

function withoutServerFields(c: Composition): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...c };
  for (const k of SERVER_FIELDS) delete copy[k];
  return copy;
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
  opts: { record?: boolean; ops?: (before: Composition) => jsonPatch.Operation[] } = {},
): Promise<EditResult<R>> {
  for (let attempt = 1; ; attempt++) {
    const before = await readComposition(ctx);
    const draft = structuredClone(before);
    const result = await change(draft);
    const ops = opts.ops ? opts.ops(before) : jsonPatch.compare(before, draft);
    if (ops.length === 0) return { ...result, version: before.version, unchanged: true };
    let afterRow: Awaited<ReturnType<typeof patchComposition>>;
    try {
      afterRow = await patchComposition(
        {
          db: ctx.db,
          userId: ctx.userId,
          now: ctx.now(),
          limits: ctx.renderLimits,
          author: { kind: "assistant", runId: ctx.runId },
        },
        { id: ctx.compositionId, patch: ops, ifMatch: before.version },
      );
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
    await ctx.emit("patch", {
      toolCallId,
      compositionId: ctx.compositionId,
      baseVersion: before.version,
      version: after.version,
      ops: jsonPatch.compare(before, after),
    });
    return { ...result, version: after.version };
  }
}
