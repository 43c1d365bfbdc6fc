/**
 * The reframe use case of the API, the MCP server and the assistant: {@link reframeComposition}
 * on a stored composition, stored as one new version.
 */
import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { applyCompositionStep, type WriteContext } from "../composition/edit-composition.ts";
import {
  type ReframeAspect,
  type ReframeDeps,
  type ReframeShot,
  reframeComposition,
} from "./reframe-composition.ts";

/**
 * Reframes the caller's composition `id` for `aspectRatio` (see {@link reframeComposition}) and
 * stores it as one version whose summary reads like "reframed 9:16, 6 shots".
 * @param input.ifMatch - the version the caller saw; stale (also when written meanwhile) → 409.
 * @throws 404 unknown or another owner's composition; 409 stale; 400 naming `/clipIds/<i>`.
 */
export async function reframeStoredComposition(
  ctx: WriteContext,
  deps: Omit<ReframeDeps, "db" | "userId">,
  input: {
    id: string;
    ifMatch: number;
    aspectRatio: ReframeAspect;
    clipIds?: readonly string[] | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<{ row: CompositionRow; shots: ReframeShot[]; reasons: string[]; summary: string }> {
  const { row, result } = await applyCompositionStep(
    ctx,
    { id: input.id, ifMatch: input.ifMatch },
    (current) =>
      reframeComposition({ ...deps, db: ctx.db, userId: ctx.userId }, current, {
        aspectRatio: input.aspectRatio,
        clipIds: input.clipIds,
        signal: input.signal,
      }),
  );
  return { row, shots: result.shots, reasons: result.reasons, summary: result.summary };
}
