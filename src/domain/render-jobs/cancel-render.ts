import type { Db } from "../../db/client.ts";
import { type RenderRow, requestRenderCancel } from "../../db/repositories/renders.ts";
import type { WebhookEvents } from "../webhooks/events.ts";

/**
 * Cancels a render of `userId`: a queued one ends `cancelled` at once (its `render.cancelled`
 * event recorded in the same transaction), an active one becomes `cancelling` (its worker stops
 * ffmpeg and ends it, recording the event). A finished render is returned unchanged.
 * @returns the row after the request, or null when the user has no such render.
 */
export async function cancelRender(
  deps: { db: Db; events?: Pick<WebhookEvents, "renderEnded"> | undefined },
  input: { userId: string; id: string; now: Date },
): Promise<RenderRow | null> {
  return deps.db.transaction(async (tx) => {
    const result = await requestRenderCancel(tx, input.userId, input.id, input.now);
    if (result?.ended) await deps.events?.renderEnded(tx, result.row);
    return result?.row ?? null;
  });
}
