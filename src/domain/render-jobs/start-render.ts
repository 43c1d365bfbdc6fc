import { createHash } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import {
  countUnfinishedRenders,
  findRenderByIdempotencyKey,
  insertRender,
  type RenderRow,
} from "../../db/repositories/renders.ts";
import { findUser } from "../../db/repositories/users.ts";
import { insertWebhookCallback } from "../../db/repositories/webhooks.ts";
import { AppError, conflict, invalidRequest, notFound, rewriteInvalidRequest } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { JOBS, renderExpirySeconds } from "../../queue/catalog.ts";
import { type Enqueue, insertWithJob, JobNotQueuedError } from "../../queue/enqueue.ts";
import {
  compositionDuration,
  isShorterThanOneFrame,
  shorterThanOneFrameMessage,
} from "../composition/duration.ts";
import {
  type EditContext,
  prepareCompositionWrite,
  toCompositionResource,
  validateCompositionFor,
} from "../composition/edit-composition.ts";
import { dailyRenderSeconds, type RenderLimits, renderCostProblems } from "../composition/limits.ts";
import type { FrozenComposition, Timeline } from "../composition/schema.ts";
import { fillTemplate, type MergeValues, ownStorageUrls } from "../composition/template.ts";
import { holdAccountAllowance } from "../quota/account-allowance.ts";
import { LOSSLESS_FORMATS } from "../render/outputs.ts";
import type { RenderOutputOptions } from "../render/types.ts";
import { checkCallbackUrl } from "../webhooks/target.ts";

/**
 * `POST /api/render` body after schema validation: exactly one of `compositionId` (a stored
 * composition) and `composition` (an inline one, validated as a create would), optional
 * template `merge` values and output options.
 */
export interface StartRenderBody {
  compositionId?: string;
  compositionVersion?: number;
  composition?: unknown;
  merge?: MergeValues;
  output?: Partial<RenderOutputOptions>;
  /** Where the render's end event is also sent (already checked by the caller). */
  callbackUrl?: string;
}

/**
 * The storage key a URL of this instance's file storage names (a signed URL it gave out), or
 * null for any other URL (see `BlobStore.keyOfUrl`): lets a template's media placeholder take a
 * signed URL of the caller's upload.
 */
export type KeyOfUrl = (url: string) => Promise<string | null>;

/** What a render freezes: the composition to render, and where it came from. */
export interface RenderSource {
  /** The stored composition and its version; null for an inline composition. */
  compositionId: string | null;
  compositionVersion: number | null;
  /** The composition with its placeholders filled. */
  frozen: FrozenComposition;
  /** JSON Pointer of the composition in the request (`/compositionId` or `/composition`). */
  at: string;
}

/** Re-throws a 400 of `work` with its detail paths put under `prefix` (they pointed into a part of the body). */
const under = <T>(prefix: string, message: string | null, work: () => Promise<T>): Promise<T> =>
  rewriteInvalidRequest(work, {
    detail: (d) => ({ ...d, path: d.path === "/" ? prefix || "/" : prefix + d.path }),
    ...(message === null ? {} : { message: () => message }),
  });

/**
 * The composition a render freezes: the stored one (at `compositionVersion` when given) or the
 * inline one, validated and normalised as a create would, with template placeholders filled from
 * `merge`. A stored composition whose placeholders were filled is validated again as filled.
 *
 * @throws 400 when not exactly one of compositionId/composition is sent, for an invalid inline
 *   composition (paths under `/composition`), for placeholders without values or unknown merge
 *   names, or for a filled composition that is invalid; 404 unknown composition or project;
 *   409 stale `compositionVersion`.
 */
async function renderSource(
  ctx: EditContext & { keyOfUrl?: KeyOfUrl | undefined },
  body: StartRenderBody,
): Promise<RenderSource> {
  if ((body.compositionId === undefined) === (body.composition === undefined)) {
    throw invalidRequest("Send exactly one of compositionId (a stored composition) or composition (inline)", [
      {
        path: body.compositionId === undefined ? "/compositionId" : "/composition",
        message:
          body.compositionId === undefined
            ? "required unless composition is sent"
            : "not allowed with compositionId",
      },
    ]);
  }
  if (body.composition !== undefined) {
    if (body.compositionVersion !== undefined) {
      throw invalidRequest("compositionVersion applies to a stored composition only", [
        { path: "/compositionVersion", message: "not allowed with an inline composition" },
      ]);
    }
    const ownUrls = await ownStorageUrls(body.merge, ctx.keyOfUrl);
    const filled = fillTemplate(body.composition, body.merge, "/composition", ownUrls);
    const { name, projectId, document } = await under("/composition", null, () =>
      prepareCompositionWrite(ctx, filled),
    );
    return {
      compositionId: null,
      compositionVersion: null,
      frozen: { name, projectId, ...document },
      at: "/composition",
    };
  }
  const id = body.compositionId as string;
  const composition = await findComposition(ctx.db, ctx.userId, id);
  if (!composition) throw notFound(`Composition ${id}`);
  if (body.compositionVersion !== undefined && body.compositionVersion !== composition.version) {
    throw new AppError(
      "version_conflict",
      `The composition is at version ${composition.version}, not ${body.compositionVersion}`,
      { extra: { currentVersion: composition.version } },
    );
  }
  const resource = toCompositionResource(composition);
  const frozen = fillTemplate(resource, body.merge, "", await ownStorageUrls(body.merge, ctx.keyOfUrl));
  if (frozen !== resource) {
    await under("", "The composition filled with the merge values is invalid", () =>
      validateCompositionFor(ctx, frozen),
    );
  }
  return {
    compositionId: composition.id,
    compositionVersion: composition.version,
    frozen,
    at: "/compositionId",
  };
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
  if (options.quality === "lossless" && !LOSSLESS_FORMATS.includes(format)) {
    throw invalidRequest(`Quality lossless is not available for ${format}`, [
      { path: "/output/quality", message: `lossless applies to ${LOSSLESS_FORMATS.join(", ")} only` },
    ]);
  }
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

const AUDIO_ONLY = new Set(["mp3", "wav"]);
const STILLS = new Set(["jpg", "png"]);

/**
 * Timeline seconds a render covers, what the daily render allowance counts: its `range`
 * (clamped to the end), else the whole timeline; 0 for a jpg/png still.
 * @param duration - the composition's length, seconds.
 */
export function renderedSeconds(options: RenderOutputOptions, duration: number): number {
  if (STILLS.has(options.format)) return 0;
  if (options.range) return Math.max(0, Math.min(options.range.duration, duration - options.range.start));
  return duration;
}

/**
 * Checks the render's output (the canvas, or the request's `width`/`height`/`fps`/`range`
 * overrides) against the cost limits.
 * @throws 400 naming `/output/<field>` for an override, `at` (`/compositionId` or `/composition`)
 *   for the composition's own canvas, length or clips.
 */
function checkRenderCost(
  composition: Timeline,
  options: RenderOutputOptions,
  duration: number,
  limits: RenderLimits,
  at: string,
): void {
  const video = !AUDIO_ONLY.has(options.format);
  const from = (field: "width" | "height" | "fps") =>
    options[field] !== undefined ? `/output/${field}` : `canvas ${field}`;
  const problems = renderCostProblems(
    {
      width: video ? (options.width ?? composition.canvas.width) : undefined,
      height: video ? (options.height ?? composition.canvas.height) : undefined,
      fps: video && !STILLS.has(options.format) ? (options.fps ?? composition.canvas.fps) : undefined,
      durationSec: renderedSeconds(options, duration),
      clips: composition.tracks.reduce((n, track) => n + track.clips.length, 0),
    },
    limits,
    {
      width: from("width"),
      height: from("height"),
      fps: from("fps"),
      duration: options.range ? "/output/range/duration" : "timeline",
      clips: "clips",
    },
  ).map((p) =>
    p.path.startsWith("/") ? p : { path: at, message: `the composition's ${p.path}: ${p.message}` },
  );
  if (problems.length > 0) {
    throw invalidRequest("The render is over the render cost limits", problems);
  }
}

/**
 * Holds the account's render allowance for the rest of the transaction
 * ({@link holdAccountAllowance}): at most `maxActivePerAccount` renders queued or running, and
 * at most the plan's timeline seconds of renders started per UTC day (`render-sec:<userId>`).
 *
 * @returns how many of the account's renders are unfinished (before this one).
 * @throws 429 `rate_limited` with `Retry-After` when either limit is reached.
 */
async function holdRenderAllowance(
  tx: Db,
  input: { userId: string; now: Date; seconds: number; limits: RenderLimits },
): Promise<number> {
  const { userId, limits } = input;
  const user = await findUser(tx, userId);
  const daily = user ? dailyRenderSeconds(user.plan, limits) : null;
  const seconds = Math.ceil(input.seconds);
  return holdAccountAllowance(tx, {
    kind: "renders",
    userId,
    now: input.now,
    maxActive: limits.maxActivePerAccount,
    countActive: (db) => countUnfinishedRenders(db, userId),
    daily:
      daily === null
        ? []
        : [
            {
              subject: `render-sec:${userId}`,
              limit: daily,
              amount: seconds,
              refusal: `This render needs ${seconds} s of the daily render allowance of ${daily / 60} minutes of timeline (${user?.plan} plan), which it would exceed; it resets at midnight UTC`,
              extra: { limitSec: daily, renderSec: seconds },
            },
          ],
  });
}

/** A render request as checked before anything is stored: what it renders and how. */
export interface CheckedRenderRequest {
  source: RenderSource;
  options: RenderOutputOptions;
  /** The frozen composition's length, seconds. */
  duration: number;
}

/**
 * The checks of a render request that need no sources: the composition (see renderSource),
 * a non-zero length, the output options and the cost limits. Shared by `startRender` and
 * `preflightRender`.
 *
 * @throws the 400/404/409 errors `startRender` documents for these.
 */
export async function checkRenderRequest(
  ctx: { db: Db; now: Date; userId: string; limits: RenderLimits; keyOfUrl?: KeyOfUrl | undefined },
  body: StartRenderBody,
): Promise<CheckedRenderRequest> {
  const source = await renderSource(
    { db: ctx.db, userId: ctx.userId, now: ctx.now, limits: ctx.limits, keyOfUrl: ctx.keyOfUrl },
    body,
  );
  const duration = compositionDuration(source.frozen);
  if (!(duration > 0)) {
    throw invalidRequest("The composition is empty: add a clip or set canvas.duration before rendering", [
      { path: source.at, message: "composition has zero duration" },
    ]);
  }
  const fps = source.frozen.canvas.fps;
  if (isShorterThanOneFrame(duration, fps)) {
    throw invalidRequest("The composition is shorter than one frame: lengthen a clip or canvas.duration", [
      { path: source.at, message: shorterThanOneFrameMessage(duration, fps) },
    ]);
  }
  const options = resolveOutputOptions(body.output, duration);
  checkRenderCost(source.frozen, options, duration, ctx.limits, source.at);
  return { source, options, duration };
}

/**
 * Starts a render: freezes the composition (a stored one at `compositionVersion` when given, else
 * its current version; or an inline one), with template placeholders filled from `merge`
 * (see renderSource), stores a queued render and enqueues its job in the same transaction
 * (a failed send leaves no render; a failed insert sends nothing). The job's priority is minus
 * the number of the account's unfinished renders, so that workers take the accounts' renders in
 * turn rather than one account's whole backlog first. The render must be within the cost limits
 * and the account's allowance (see holdRenderAllowance). With an Idempotency-Key,
 * the same key and body return the existing render; the same key with another body is a 409.
 *
 * @returns the render and whether it was created now (false = idempotent replay).
 * @param ctx.enqueue - sends the render's job (inside the insert's transaction).
 * @param ctx.limits - render cost limits and per-account allowances.
 * @param ctx.allowPrivateCallbacks - WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL.
 * @param ctx.keyOfUrl - resolves a template's media value that is a URL of this instance's storage.
 * @throws 400 naming `/callbackUrl` when webhook address rules refuse it (checked first); 404 unknown composition; 409 stale `compositionVersion` or reused key; 400 bad options,
 *   an invalid inline or filled composition, placeholders without values, or over a cost limit; 429 over the account's concurrent renders or daily render seconds;
 *   503 when the queue cannot take the job.
 */
export async function startRender(
  ctx: {
    db: Db;
    enqueue: Enqueue;
    now: Date;
    userId: string;
    limits: RenderLimits;
    allowPrivateCallbacks?: boolean | undefined;
    keyOfUrl?: KeyOfUrl | undefined;
  },
  input: { body: StartRenderBody; idempotencyKey: string | undefined },
): Promise<{ render: RenderRow; created: boolean }> {
  await checkCallbackUrl(input.body.callbackUrl, ctx.allowPrivateCallbacks);
  const { db, userId } = ctx;
  const requestHash = createHash("sha256").update(canonicalJson(input.body)).digest("hex");
  if (input.idempotencyKey) {
    const existing = await findRenderByIdempotencyKey(db, userId, input.idempotencyKey);
    if (existing) return { render: sameRequestOrConflict(existing, requestHash), created: false };
  }

  const { source, options, duration } = await checkRenderRequest(ctx, input.body);
  const { frozen } = source;

  const row = {
    id: newId("rnd"),
    userId,
    compositionId: source.compositionId,
    compositionVersion: source.compositionVersion,
    composition: frozen,
    options,
    status: "queued" as const,
    progress: { ratio: 0, phase: "queued" as const, updatedAt: ctx.now.toISOString() },
    idempotencyKey: input.idempotencyKey ?? null,
    requestHash,
  };
  let render: RenderRow;
  try {
    render = await insertWithJob(ctx, { resource: "render" }, async (tx, send) => {
      // Fairness across accounts: the account's n-th unfinished render queues at priority -n,
      // so another account's first render runs before this account's second.
      const ahead = await holdRenderAllowance(tx, {
        userId,
        now: ctx.now,
        seconds: renderedSeconds(options, duration),
        limits: ctx.limits,
      });
      const inserted = await insertRender(tx, row);
      if (input.body.callbackUrl) {
        await insertWebhookCallback(tx, { resourceId: inserted.id, userId, url: input.body.callbackUrl });
      }
      await send({
        job: JOBS.render,
        data: { v: 1, renderId: inserted.id },
        expireInSeconds: renderExpirySeconds(duration),
        priority: -ahead,
      });
      return inserted;
    });
  } catch (err) {
    if (err instanceof JobNotQueuedError) throw err;
    // Two requests with one Idempotency-Key raced: the unique index let one in.
    if (input.idempotencyKey) {
      const existing = await findRenderByIdempotencyKey(db, userId, input.idempotencyKey);
      if (existing) return { render: sameRequestOrConflict(existing, requestHash), created: false };
    }
    throw err;
  }
  return { render, created: true };
}
