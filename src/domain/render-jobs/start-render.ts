import { createHash } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import {
  countUnfinishedRenders,
  findRenderByIdempotencyKey,
  insertRender,
  type RenderRow,
} from "../../db/repositories/renders.ts";
import { AppError, conflict, invalidRequest, notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { JOBS, renderExpirySeconds } from "../../jobs/catalog.ts";
import type { Enqueue } from "../../jobs/enqueue.ts";
import { compositionDuration } from "../composition/duration.ts";
import { toCompositionResource } from "../composition/edit-composition.ts";
import type { RenderOutputOptions } from "../render/types.ts";

/** `POST /api/render` body after schema validation. */
export interface StartRenderBody {
  compositionId: string;
  compositionVersion?: number;
  output?: Partial<RenderOutputOptions>;
}

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function sameRequestOrConflict(existing: RenderRow, requestHash: string): RenderRow {
  if (existing.requestHash !== requestHash) {
    throw conflict("This Idempotency-Key was already used with a different request body", {
      renderId: existing.id,
    });
  }
  return existing;
}

/**
 * Output options with defaults applied, checked against the composition's length.
 * @param duration - timeline length, seconds.
 * @throws 400 naming the offending field.
 */
export function resolveOutputOptions(
  input: Partial<RenderOutputOptions> | undefined,
  duration: number,
): RenderOutputOptions {
  const format = input?.format ?? "mp4";
  const options: RenderOutputOptions = { ...input, format, quality: input?.quality ?? "standard" };
  if (format === "jpg" || format === "png") {
    options.frameAt = input?.frameAt ?? 0;
    if (options.frameAt >= duration) {
      throw invalidRequest("frameAt is past the end of the composition", [
        { path: "/output/frameAt", message: `must be < ${duration} (the composition's duration in seconds)` },
      ]);
    }
  } else if (input?.frameAt !== undefined) {
    throw invalidRequest("frameAt only applies to jpg and png outputs", [
      { path: "/output/frameAt", message: "not allowed for this format" },
    ]);
  }
  if (input?.range && input.range.start >= duration) {
    throw invalidRequest("The range starts after the end of the composition", [
      { path: "/output/range/start", message: `must be < ${duration}` },
    ]);
  }
  return options;
}

/**
 * Starts a render: freezes the composition (at `compositionVersion` when given, else its
 * current version), stores a queued render and enqueues its job in the same transaction
 * (a failed send leaves no render; a failed insert sends nothing). The job's priority is minus
 * the number of the account's unfinished renders, so that workers take the accounts' renders in
 * turn rather than one account's whole backlog first. With an Idempotency-Key,
 * the same key and body return the existing render; the same key with another body is a 409.
 *
 * @returns the render and whether it was created now (false = idempotent replay).
 * @param ctx.enqueue - sends the render's job (inside the insert's transaction).
 * @throws 404 unknown composition; 409 stale `compositionVersion` or reused key; 400 bad options;
 *   503 when the queue cannot take the job.
 */
export async function startRender(
  ctx: { db: Db; enqueue: Enqueue; now: Date; userId: string },
  input: { body: StartRenderBody; idempotencyKey: string | undefined },
): Promise<{ render: RenderRow; created: boolean }> {
  const { db, userId } = ctx;
  const requestHash = createHash("sha256").update(canonicalJson(input.body)).digest("hex");
  if (input.idempotencyKey) {
    const existing = await findRenderByIdempotencyKey(db, userId, input.idempotencyKey);
    if (existing) return { render: sameRequestOrConflict(existing, requestHash), created: false };
  }

  const composition = await findComposition(db, userId, input.body.compositionId);
  if (!composition) throw notFound(`Composition ${input.body.compositionId}`);
  if (input.body.compositionVersion !== undefined && input.body.compositionVersion !== composition.version) {
    throw new AppError(
      "version_conflict",
      `The composition is at version ${composition.version}, not ${input.body.compositionVersion}`,
      { extra: { currentVersion: composition.version } },
    );
  }
  const frozen = toCompositionResource(composition);
  const duration = compositionDuration(frozen);
  if (!(duration > 0)) {
    throw invalidRequest("The composition is empty: add a clip or set canvas.duration before rendering", [
      { path: "/compositionId", message: "composition has zero duration" },
    ]);
  }
  const options = resolveOutputOptions(input.body.output, duration);

  const row = {
    id: newId("rnd"),
    userId,
    compositionId: composition.id,
    compositionVersion: composition.version,
    composition: frozen as unknown as Record<string, unknown>,
    options: options as unknown as Record<string, unknown>,
    status: "queued" as const,
    progress: { ratio: 0, phase: "queued", updatedAt: ctx.now.toISOString() },
    idempotencyKey: input.idempotencyKey ?? null,
    requestHash,
  };
  let render: RenderRow;
  try {
    render = await db.transaction(async (tx) => {
      // Fairness across accounts: the account's n-th unfinished render queues at priority -n,
      // so another account's first render runs before this account's second.
      const ahead = await countUnfinishedRenders(tx, userId);
      const inserted = await insertRender(tx, row);
      await ctx
        .enqueue(
          {
            job: JOBS.render,
            data: { v: 1, renderId: inserted.id },
            expireInSeconds: renderExpirySeconds(duration),
            priority: -ahead,
          },
          tx,
        )
        .catch((err: unknown) => {
          throw new QueueUnavailable(err);
        });
      return inserted;
    });
  } catch (err) {
    if (err instanceof QueueUnavailable) {
      throw new AppError(
        "unavailable",
        "The render queue is unavailable; nothing was started, retry shortly",
        {
          extra: { cause: (err.cause as Error).name },
        },
      );
    }
    // Two requests with one Idempotency-Key raced: the unique index let one in.
    if (input.idempotencyKey) {
      const existing = await findRenderByIdempotencyKey(db, userId, input.idempotencyKey);
      if (existing) return { render: sameRequestOrConflict(existing, requestHash), created: false };
    }
    throw err;
  }
  return { render, created: true };
}

/** The queue refused the job (its error is the cause): the transaction rolled back. */
class QueueUnavailable extends Error {
  constructor(cause: unknown) {
    super("queue unavailable", { cause });
  }
}
