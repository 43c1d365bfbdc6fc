/**
 * Starting a split render: a long mp4 render becomes parts (video segments of `RENDER_SEGMENT_SEC`
 * and the whole timeline's audio), each its own `render_part` job that any worker may take,
 * and one `render_join` job that pg-boss makes available once every part's job completed
 * (a flow). The render's state and the parts' state live in the database; the parts' files in
 * the blob store. Part jobs and the join are sent after the hand-off commits; the render job
 * is complete only once they were sent, so a worker lost in between has its render job
 * retried, which sends them (see `SplitRenderStarter.resume`).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  insertRenderParts,
  listRenderParts,
  type NewRenderPart,
  type RenderPartRow,
} from "../../db/repositories/render-segments.ts";
import {
  ACTIVE_STATUSES,
  countUnfinishedRenders,
  findRenderById,
  type RenderRow,
} from "../../db/repositories/renders.ts";
import { renders } from "../../db/schema/renders.ts";
import { newId } from "../../ids.ts";
import { type KeyframeIndex, probeKeyframes } from "../../media/keyframes.ts";
import {
  JOBS,
  type RenderJoinJobV1,
  type RenderPartJobV1,
  renderExpirySeconds,
} from "../../queue/catalog.ts";
import { type FlowJobToSend, type FlowQueue, jobIdFor } from "../../queue/flow.ts";
import { renderPartKey, renderPartsPrefix } from "../../storage/keys.ts";
import type { Timeline } from "../composition/schema.ts";
import { type FrameRange, partFileName, planSplitSegments, renderFrameWindow } from "../render/segments.ts";
import { frameToSeconds } from "../render/timeline.ts";
import type { RenderWarning, ResolvedAsset, StoredSmartRender } from "../render/types.ts";
import { readAndKeepKeyframes } from "../uploads/keyframe-index.ts";
import { copyCachedPart, findReusableParts, type RenderCacheDeps, usesRenderCache } from "./render-cache.ts";

/**
 * The video segments of a render when it is to be split: an mp4 whose output is longer than
 * `segmentSec` (0 disables splitting), cut by `planSplitSegments` into ranges of output frames
 * of the whole composition (boundaries moved to cheap seek points when `keyframes` of its video
 * sources are given, else every `segmentSec`). Null when the render is made in one piece.
 *
 * @param keyframes - keyframe indexes of the video sources by asset key (see {@link readSourceKeyframes}).
 * @throws RenderError `INVALID_COMPOSITION` for an empty composition or a range after its end.
 */
export function splitSegments(
  render: Pick<RenderRow, "composition" | "options">,
  segmentSec: number,
  keyframes?: ReadonlyMap<string, KeyframeIndex>,
) {
  if (!isSplit(render, segmentSec)) return null;
  const { rate, window } = renderFrameWindow(render.composition, render.options);
  return {
    rate,
    window,
    ranges: planSplitSegments(
      { composition: render.composition, output: render.options },
      segmentSec,
      keyframes,
    ),
  };
}

/** Whether a render is split: an mp4 longer than `segmentSec` (0: never). */
function isSplit(render: Pick<RenderRow, "composition" | "options">, segmentSec: number): boolean {
  if (segmentSec <= 0 || render.options.format !== "mp4") return false;
  const { rate, window } = renderFrameWindow(render.composition, render.options);
  return frameToSeconds(window.end - window.start, rate) > segmentSec;
}

/**
 * The segment length `render` is split by, or 0 to render it in one piece: `segmentSec` for an
 * mp4 longer than it; with `everyRender` (the render cache is on and the render uses it), every
 * mp4 render, also one no longer than a segment (one segment and the audio). A `segmentSec` of
 * 0 renders everything in one piece.
 */
export function splitSegmentSec(
  render: Pick<RenderRow, "composition" | "options">,
  segmentSec: number,
  everyRender: boolean,
): number {
  if (isSplit(render, segmentSec)) return segmentSec;
  if (!everyRender || segmentSec <= 0 || render.options.format !== "mp4") return 0;
  return segmentSec;
}

/**
 * The keyframe indexes of a render's video sources by asset key: the index an upload keeps
 * (`ResolvedAsset.keyframes`), else read with `probeKeyframes` (the demuxer's packet flags,
 * nothing decoded) from the local file, at once for all sources; with `db`, an upload's index
 * read here is kept on it (`readAndKeepKeyframes`) for its later renders. A source whose index
 * cannot be read in `timeoutMs` (a render passes its stall timeout: a source that never
 * delivers a byte holds the render up no longer than that) is left out (its boundaries stay
 * nominal); nothing is thrown.
 *
 * @param assets - the render's resolved sources by asset key (`prepareRender`).
 */
export async function readSourceKeyframes(
  composition: Timeline,
  assets: ReadonlyMap<string, ResolvedAsset>,
  opts: { signal?: AbortSignal; db?: Db; timeoutMs?: number } = {},
): Promise<Map<string, KeyframeIndex>> {
  const { db, ...probe } = opts;
  const sources = new Map<string, boolean>();
  for (const track of composition.tracks) {
    for (const clip of track.clips) {
      if (clip.asset.type === "video")
        sources.set(clip.asset.uploadId ?? clip.asset.src ?? "", !!clip.asset.uploadId);
    }
  }
  const indexes = new Map<string, KeyframeIndex>();
  await Promise.all(
    [...sources].map(async ([key, isUpload]) => {
      const asset = assets.get(key);
      if (asset?.keyframes) {
        indexes.set(key, asset.keyframes);
        return;
      }
      if (!asset?.path) return;
      try {
        indexes.set(
          key,
          db && isUpload
            ? await readAndKeepKeyframes(db, key, asset.path, probe)
            : await probeKeyframes(asset.path, probe),
        );
      } catch {
        // Unknown keyframes: the boundaries near this source stay nominal.
      }
    }),
  );
  return indexes;
}

/** What the render pipeline and the render job need to split a render (see {@link createSplitRenderStarter}). */
export interface SplitRenderStarter {
  /**
   * The segments of `render`, or null to render it in one piece (see {@link splitSegments}):
   * with `keyframeBoundaries`, and only for a render that is split, the keyframes of its video
   * sources (`assets`, local files) are read to place the boundaries.
   */
  segments(
    render: RenderRow,
    assets: ReadonlyMap<string, ResolvedAsset>,
    signal?: AbortSignal,
  ): Promise<FrameRange[] | null>;
  /**
   * Hands `render` (claimed by `attempt`, assets checked) over to its parts: in one
   * transaction, moves it to `rendering` with its segment count and the warnings so far
   * (fenced by `attempt`) and inserts its parts; then sends their jobs and the join's as one
   * flow ({@link SplitRenderStarter.resume}), with the render's smart plan (`smartRender`:
   * what its parts will copy, and the stream format they share).
   * @throws Error when the render moved on from `attempt` (nothing is written).
   */
  start(
    render: RenderRow,
    attempt: number,
    segments: FrameRange[],
    warnings: RenderWarning[],
    smartRender?: StoredSmartRender | null,
  ): Promise<void>;
  /**
   * Sends the flow of split render `renderId` (a job per part, then the join once they all
   * completed) unless it was sent: the render job, retried after its worker died between the
   * hand-off and the send, calls this again. The job ids are derived from the part ids; every
   * job has the render's fair priority (minus the account's unfinished renders created before
   * it, as its render job had).
   */
  resume(renderId: string): Promise<void>;
}

/**
 * Ranks a render's parts can take inside one fair priority: a render's parts rank from
 * `PART_RANKS - 1` down, so any part of an account's n-th render outranks every part of its
 * (n+1)-th (renders of more parts than this share the lowest rank for the rest).
 */
export const PART_RANKS = 100_000;

/**
 * The pg-boss priority of each of a render's parts (same order as `parts`), so that workers
 * take them longest first and end together: pg-boss fetches by priority, then age, and the
 * parts of a render are sent at once, so without a priority their order among equal ages is
 * the database's (a long segment taken last kept one worker busy alone for its whole length).
 * The video segments go first, longer before shorter (the last segment is the shorter one) and
 * in timeline order among equals, then the audio, whose encode is a small fraction of a
 * segment's and fills a worker's end. The render's fair priority `fair` (0 for an account's
 * oldest unfinished render, -n for its (n+1)-th) leads: priorities run from
 * `fair * PART_RANKS + min(parts.length, PART_RANKS) - 1` (first) down to `fair * PART_RANKS`.
 */
export function partPriorities(
  parts: readonly Pick<RenderPartRow, "kind" | "index" | "startFrame" | "endFrame">[],
  fair = 0,
): number[] {
  const order = parts
    .map((p, i) => ({ i, audio: p.kind === "audio", frames: p.endFrame - p.startFrame, index: p.index }))
    .sort((a, b) => Number(a.audio) - Number(b.audio) || b.frames - a.frames || a.index - b.index);
  const priorities = parts.map(() => 0);
  const ranks = Math.min(parts.length, PART_RANKS);
  order.forEach((o, rank) => {
    priorities[o.i] = fair * PART_RANKS + Math.max(0, ranks - 1 - rank);
  });
  return priorities;
}

/** The `render_join` job id of split render `renderId`. */
export const joinJobIdOf = (renderId: string): string => jobIdFor(`${renderId}/join`);

/**
 * The {@link SplitRenderStarter} of a worker.
 * @param deps.segmentSec - `RENDER_SEGMENT_SEC` (0: never split).
 * @param deps.keyframeBoundaries - `RENDER_SEGMENT_KEYFRAMES`: read the sources' keyframes and
 *   move the boundaries towards them (default: every `segmentSec` seconds).
 */
export function createSplitRenderStarter(deps: {
  db: Db;
  clock: Clock;
  flows: FlowQueue;
  segmentSec: number;
  keyframeBoundaries?: boolean;
  /** The render cache: parts whose content key has an entry of the account are copied, not rendered. */
  cache?: RenderCacheDeps;
  /**
   * `RENDER_SEGMENT_ALL`: with the cache on, every mp4 render that uses it is made as segments
   * (see {@link splitSegmentSec}), so that a later render can copy them.
   */
  segmentEveryRender?: boolean;
  /** How long reading a source's keyframes may take (the render's stall timeout), in ms. */
  probeTimeoutMs: number;
}): SplitRenderStarter {
  const { db } = deps;
  const resume = async (renderId: string) => {
    const joinJobId = joinJobIdOf(renderId);
    if (await deps.flows.has(JOBS.renderJoin, joinJobId)) return;
    const render = await findRenderById(db, renderId);
    const parts = await listRenderParts(db, renderId);
    // A render cancelled (or ended) meanwhile needs no jobs: its parts were ended with it.
    if (!render || parts.length === 0 || !ACTIVE_STATUSES.includes(render.status)) return;
    const rate = renderFrameWindow(render.composition, render.options).rate;
    // Fairness across accounts, as for the render's own job (see `startRender`): the join of an
    // account's n-th unfinished render queues at priority -n, and its parts rank inside -n.
    const priority = -(await countUnfinishedRenders(db, render.userId, render.createdAt));
    // Parts copied from the cache by the starter are done: only the others get a job.
    const todo = parts.filter((p) => p.status !== "succeeded");
    const priorities = partPriorities(todo, priority);
    const jobs: FlowJobToSend<object>[] = todo.map((p, i) => ({
      ref: p.id,
      id: jobIdFor(p.id),
      job: JOBS.renderPart,
      data: { v: 1, renderId, partId: p.id, joinJobId } satisfies RenderPartJobV1,
      expireInSeconds: renderExpirySeconds(frameToSeconds(p.endFrame - p.startFrame, rate)),
      priority: priorities[i] ?? priority * PART_RANKS,
    }));
    jobs.push({
      ref: "join",
      id: joinJobId,
      job: JOBS.renderJoin,
      data: { v: 1, renderId } satisfies RenderJoinJobV1,
      dependsOn: todo.map((p) => p.id),
      priority,
    });
    await deps.flows.send(jobs);
  };
  return {
    async segments(render, assets, signal) {
      const every = Boolean(deps.segmentEveryRender && deps.cache && usesRenderCache(deps.cache, render));
      const segmentSec = splitSegmentSec(render, deps.segmentSec, every);
      if (segmentSec === 0) return null;
      const keyframes = deps.keyframeBoundaries
        ? await readSourceKeyframes(render.composition, assets, {
            signal,
            db,
            timeoutMs: deps.probeTimeoutMs,
          })
        : undefined;
      return planSplitSegments(
        { composition: render.composition, output: render.options },
        segmentSec,
        keyframes,
      );
    },
    async start(render, attempt, segments, warnings, smartRender = null) {
      const now = deps.clock.now();
      const first = segments[0]?.startFrame ?? 0;
      const last = segments.at(-1)?.endFrame ?? first;
      const reusable =
        deps.cache && usesRenderCache(deps.cache, render)
          ? await findReusableParts(deps.cache, { ...render, smartRender }, segments)
          : null;
      const parts: NewRenderPart[] = [
        ...segments.map((s, index) => ({
          id: newId("rsg"),
          renderId: render.id,
          kind: "video" as const,
          index,
          startFrame: s.startFrame,
          endFrame: s.endFrame,
          reuseKey: reusable?.video[index] ?? null,
        })),
        {
          id: newId("rsg"),
          renderId: render.id,
          kind: "audio" as const,
          index: 0,
          startFrame: first,
          endFrame: last,
          reuseKey: reusable?.audio ?? null,
        },
      ];
      const rate = renderFrameWindow(render.composition, render.options).rate;
      const reused = parts.filter((p) => p.reuseKey);
      // Cached parts are copied here, not by a job each: a render with every part cached goes
      // straight to its join. A part whose copy fails keeps its key; its job copies or renders it.
      const cache = deps.cache;
      if (cache) {
        await Promise.all(
          reused.map(async (p) => {
            const key = renderPartKey(render.id, partFileName(p));
            if (!(await copyCachedPart(cache, render.userId, p.reuseKey as string, key))) return;
            Object.assign(p, { status: "succeeded", key, progress: 1, startedAt: now, finishedAt: now });
          }),
        );
      }
      const copied = parts.filter((p) => p.status === "succeeded" && p.kind === "video").length;
      const reuse = reusable
        ? {
            segments: parts.length,
            reused: reused.length,
            secondsSaved: frameToSeconds(
              reused.reduce((n, p) => n + (p.kind === "video" ? p.endFrame - p.startFrame : 0), 0),
              rate,
            ),
          }
        : null;
      await db
        .transaction(async (tx) => {
          const moved = await tx
            .update(renders)
            .set({
              status: "rendering",
              segmentCount: segments.length,
              segmentsDone: copied,
              reuse,
              smartRender,
              warnings,
              heartbeatAt: now,
              progress: { ratio: 0.05, phase: "rendering", updatedAt: now.toISOString() },
            })
            .where(
              and(
                eq(renders.id, render.id),
                eq(renders.attempt, attempt),
                inArray(renders.status, ACTIVE_STATUSES),
              ),
            )
            .returning({ id: renders.id });
          if (moved.length === 0) throw new Error("the render moved on from this attempt");
          await insertRenderParts(tx, parts);
        })
        .catch(async (err: unknown) => {
          await deps.cache?.store.deletePrefix(renderPartsPrefix(render.id));
          throw err;
        });
      await resume(render.id);
    },
    resume,
  };
}
