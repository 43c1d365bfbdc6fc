import type { Db } from "../../db/client.ts";
import { cancelQueuedParts, countUnfinishedParts } from "../../db/repositories/render-segments.ts";
import { failRenderUnfenced, type RenderRow, requestRenderCancel } from "../../db/repositories/renders.ts";
import { conflict } from "../../errors.ts";
import { JOBS } from "../../queue/catalog.ts";
import { type FlowQueue, jobIdFor } from "../../queue/flow.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderPartsPrefix } from "../../storage/keys.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { joinJobIdOf } from "./split-render.ts";

/** What cancelling a split render's jobs and files takes: the queue's flows and the blob store. */
export interface SplitCancelDeps {
  flows: Pick<FlowQueue, "cancel">;
  store: BlobStore;
}

/**
 * Ends split render `renderId` `cancelled` when it is being cancelled and none of its parts is
 * queued or running any more, in transaction `tx` (whose caller wrote or locked the render's
 * row first, so that the last part to end sees every other one ended). The caller records the
 * render's webhook event in the same transaction and deletes the parts' files after it.
 * @returns the row as written, or null when the render is not being cancelled or a part is left.
 */
export async function endCancelledSplitRender(
  tx: Db,
  renderId: string,
  now: Date,
): Promise<RenderRow | null> {
  if ((await countUnfinishedParts(tx, renderId)) > 0) return null;
  return failRenderUnfenced(tx, { id: renderId, error: null, now });
}

/**
 * Cancels a render of `userId`: a queued one ends `cancelled` at once (its `render.cancelled`
 * event recorded in the same transaction), an active one becomes `cancelling` (its worker stops
 * ffmpeg and ends it, recording the event). A finished render is returned unchanged.
 *
 * A split render's parts that no worker has claimed are cancelled with it, in the same
 * transaction, and so are their pg-boss jobs and the join's (`split.flows`), so no worker picks
 * them up; when no part is running, the render ends `cancelled` at once and its parts' files
 * are deleted, else the running parts stop as a render's attempt does and the last one ends it
 * (see `renderPartLifecycle`). Without `split` the queued parts' jobs are skipped by the workers
 * that take them and the join deletes the files.
 *
 * @returns the row after the request, or null when the user has no such render.
 * @throws whatever the database or the queue throws (a failed job cancel leaves the parts
 *   cancelled: their jobs are then skipped).
 */
export async function cancelRender(
  deps: {
    db: Db;
    events?: Pick<WebhookEvents, "renderEnded"> | undefined;
    split?: SplitCancelDeps | undefined;
  },
  input: { userId: string; id: string; now: Date },
): Promise<RenderRow | null> {
  const result = await deps.db.transaction(async (tx) => {
    const request = await requestRenderCancel(tx, input.userId, input.id, input.now);
    if (!request) return null;
    let { row, ended } = request;
    // A split render whose parts run: `rendering` until its join claims it (`preparing`, then
    // `finalizing`: the join's attempt then ends it, as a render's attempt does).
    const split = row.status === "cancelling" && row.segmentCount !== null && request.from === "rendering";
    let parts: string[] = [];
    if (split) {
      parts = await cancelQueuedParts(tx, row.id, input.now);
      const cancelled = await endCancelledSplitRender(tx, row.id, input.now);
      if (cancelled) [row, ended] = [cancelled, true];
    }
    if (ended) await deps.events?.renderEnded(tx, row);
    return { row, ended, split, parts };
  });
  if (result?.split && deps.split) {
    const { flows, store } = deps.split;
    const renderId = result.row.id;
    await flows.cancel(JOBS.renderPart, result.parts.map(jobIdFor));
    // The join would wait for the cancelled parts forever: the last part to end ends the render.
    await flows.cancel(JOBS.renderJoin, [joinJobIdOf(renderId)]);
    if (result.ended) await store.deletePrefix(renderPartsPrefix(renderId));
  }
  return result?.row ?? null;
}

/**
 * The API's cancel of a render of `userId`: {@link cancelRender}, refusing a render that has
 * already succeeded or failed (a cancelled one is returned as it is).
 * @returns the row after the request, or null when the user has no such render.
 * @throws AppError 409 (with the render's `status`) when it already succeeded or failed.
 */
export async function cancelUnfinishedRender(
  deps: Parameters<typeof cancelRender>[0],
  input: { userId: string; id: string; now: Date },
): Promise<RenderRow | null> {
  const render = await cancelRender(deps, input);
  if (render?.status === "succeeded" || render?.status === "failed") {
    throw conflict(`The render already ${render.status}; there is nothing to cancel`, {
      status: render.status,
    });
  }
  return render;
}
