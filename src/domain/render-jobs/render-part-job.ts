/**
 * The `render_part` job kind: one part (a video segment or the audio) of a split render, run
 * through the fenced-attempt runner with the part row as its resource. A lost or failed part
 * is retried alone; a part that fails for good fails the render; a part stops when its render
 * is cancelled or has ended.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  claimRenderPart,
  countSegmentDone,
  endRenderPartUnfenced,
  PART_TERMINAL_STATUSES,
  type RenderPartRow,
  readRenderPartAttempts,
  readRenderPartControl,
  updateRenderPartFenced,
  writeSplitRenderProgress,
} from "../../db/repositories/render-segments.ts";
import { ACTIVE_STATUSES, failRenderUnfenced, findRenderById } from "../../db/repositories/renders.ts";
import {
  type AttemptControl,
  type AttemptErrorJson,
  type AttemptPipeline,
  type ResourceLifecycle,
  runAttempt,
  workerLostError,
} from "../../queue/attempt-runner.ts";
import { JOBS, type RenderPartJobV1 } from "../../queue/catalog.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { makeAttemptWorkDir, type WorkDirOwner } from "../../queue/work-dir-sweep.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderPartKey, renderPartsPrefix } from "../../storage/keys.ts";
import { buildAudioPlan, buildSegmentPlan } from "../render/segments.ts";
import { RenderError, type RenderWarning } from "../render/types.ts";
import { writePlanFiles } from "../render/write-plan-files.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { DEFAULT_REMOTE_LIMITS, resolveRenderAssets } from "./render-assets.ts";
import { type RenderRunDeps, runRenderFfmpeg } from "./render-ffmpeg.ts";
import { describeRenderError, endRenderWithEvent } from "./render-job.ts";
import { DECODER_THREADS, FILTER_THREADS } from "./render-pipeline.ts";

/** Dependencies of a part's lifecycle and handler. */
interface PartDeps {
  db: Db;
  clock: Clock;
  store: BlobStore;
  events?: WebhookEvents;
}

/**
 * Fails a part and its render with `error` in one transaction (with the render's webhook
 * event), whatever attempt runs either. Returns whether the part changed.
 */
async function failPartAndRender(deps: PartDeps, partId: string, error: AttemptErrorJson): Promise<boolean> {
  const now = deps.clock.now();
  let changed = false;
  await endRenderWithEvent(deps.db, deps.events, async (tx) => {
    const part = await endRenderPartUnfenced(tx, { id: partId, error, now });
    changed = part !== null;
    return part ? failRenderUnfenced(tx, { id: part.renderId, error, now }) : null;
  });
  return changed;
}

/**
 * The part table as a {@link ResourceLifecycle}: claim moves a part of an active render to
 * `running`; heartbeats write its progress and the render's aggregated progress; the control
 * poll stops the part when its render is being cancelled (`cancelling`) or is no longer active
 * (`superseded`). A finished video segment counts on the render (`segments_done`); a part that
 * fails for good fails its render; a part finished after its render ended is discarded.
 */
export function renderPartLifecycle(deps: PartDeps): ResourceLifecycle<RenderPartRow, string, RenderWarning> {
  const { db, clock } = deps;
  const readControl = async (id: string, attempt: number): Promise<AttemptControl> => {
    const c = await readRenderPartControl(db, id);
    if (!c || c.attempt !== attempt || c.status !== "running") return "superseded";
    if (c.renderStatus === "cancelling") return "cancelling";
    return ACTIVE_STATUSES.includes(c.renderStatus as never) ? "ok" : "superseded";
  };
  return {
    claim: (id) => claimRenderPart(db, id, clock.now()),
    readControl,
    async heartbeat(id, attempt, progress) {
      const now = clock.now();
      const row = await updateRenderPartFenced(db, {
        id,
        attempt,
        set: { heartbeatAt: now, progress: progress.ratio },
      });
      if (row) await writeSplitRenderProgress(db, row.renderId, now);
      return readControl(id, attempt);
    },
    async finish(id, attempt, end) {
      const now = clock.now();
      if (end.status === "failed") {
        if ((await readControl(id, attempt)) !== "ok") return false;
        return failPartAndRender(deps, id, end.error);
      }
      return db.transaction(async (tx) => {
        if (end.status === "cancelled") {
          const row = await updateRenderPartFenced(tx, {
            id,
            attempt,
            set: { status: "cancelled", finishedAt: now },
          });
          return row !== null;
        }
        // A part finished after its render ended (failed by another part, or cancelled) is
        // not recorded: the runner discards its file.
        const control = await readRenderPartControl(tx, id);
        if (!control || !ACTIVE_STATUSES.includes(control.renderStatus as never)) return false;
        const row = await updateRenderPartFenced(tx, {
          id,
          attempt,
          set: { status: "succeeded", key: end.output, progress: 1, finishedAt: now },
        });
        if (!row) return false;
        if (row.kind === "video") await countSegmentDone(tx, row.renderId, now);
        return true;
      });
    },
    async abandon(id, error) {
      if (error) return failPartAndRender(deps, id, error);
      return (await endRenderPartUnfenced(db, { id, error: null, now: clock.now() })) !== null;
    },
    async discardOutput(_id, key) {
      await deps.store.delete(key);
    },
    initialProgress: (row) => row.progress,
  };
}

/** Parts' work directories (`rsg_…-a<attempt>-…`) for the work-directory sweep. */
export function renderPartWorkDirs(db: Db): WorkDirOwner {
  return {
    idPrefix: "rsg",
    async readAttempts(ids) {
      const rows = await readRenderPartAttempts(db, ids);
      return new Map(
        [...rows].map(([id, r]) => [
          id,
          { attempt: r.attempt, ended: PART_TERMINAL_STATUSES.includes(r.status) },
        ]),
      );
    },
  };
}

/**
 * The work of one part attempt: resolve the render's assets into the attempt's work directory,
 * plan the part (`buildSegmentPlan` for a video segment: the whole graph, the segment's frames
 * kept on the output side; `buildAudioPlan` for the audio), run ffmpeg with progress and store
 * the file under `renders/<renderId>/parts/`. Returns its storage key. The work directory is
 * removed when the attempt ends.
 *
 * @param opts.lossless - lossless H.264 segments (exactness tests; the render pipeline must
 *   then be lossless too).
 * @throws RenderError as the render pipeline does (asset problems, `FFMPEG_FAILED`, `TIMEOUT`).
 */
export function createRenderPartPipeline(
  opts: RenderRunDeps,
): AttemptPipeline<RenderPartRow, string, RenderWarning> {
  const { db, store } = opts;
  return async (part, ctx) => {
    const render = await findRenderById(db, part.renderId);
    if (!render)
      throw new RenderError("INTERNAL", "The render of this segment is gone", { retryable: false });
    const workDir = await makeAttemptWorkDir({
      workRoot: opts.workRoot,
      resourceId: part.id,
      attempt: ctx.attempt,
      owner: renderPartWorkDirs(db),
      log: opts.log.child({ renderId: part.renderId, segmentId: part.id }),
    });
    try {
      const { assets, fonts, refsByPath } = await resolveRenderAssets({
        db,
        store,
        userId: render.userId,
        doc: render.composition,
        workDir,
        remote: opts.remote ?? DEFAULT_REMOTE_LIMITS,
        signal: ctx.signal,
      });
      ctx.signal.throwIfAborted();
      const base = {
        composition: render.composition,
        assets,
        output: render.options,
        uploadedFonts: fonts,
        decoderThreads: DECODER_THREADS,
        filterThreads: FILTER_THREADS,
      };
      const { file, plan } =
        part.kind === "video"
          ? buildSegmentPlan(base, part, part.index, opts.lossless)
          : buildAudioPlan(base);
      for (const w of await writePlanFiles(plan, workDir)) ctx.warn(w);
      await runRenderFfmpeg({
        plan,
        cwd: workDir,
        signal: ctx.signal,
        stallTimeoutMs: opts.stallTimeoutMs,
        onProgress: (p) => ctx.progress(p.ratio),
        failure: {
          log: opts.log,
          logFields: { renderId: render.id, partId: part.id, attempt: ctx.attempt },
          composition: render.composition,
          refsByPath,
        },
      });
      const key = renderPartKey(render.id, file);
      try {
        await store.putFile(key, path.join(workDir, file), { contentType: "video/mp4" });
      } catch (err) {
        opts.log.warn({ renderId: render.id, partId: part.id, err }, "storing a render segment failed");
        await store.delete(key).catch(() => {});
        throw new RenderError("OUTPUT_UPLOAD_FAILED", "Storing a rendered segment failed");
      }
      return key;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}

/**
 * The `render_part` job handler: one fenced attempt of the part per job. A part whose retries
 * ran out (its worker kept dying) fails its render with `WORKER_LOST`; the render's join job,
 * which waits for every part's job, is then deleted (`deleteJoinJob`) and the parts' files too.
 *
 * @param opts.concurrency - parts run at once in this process (WORKER_CONCURRENCY).
 */
export function renderPartJobHandler(
  opts: PartDeps & {
    pipeline: AttemptPipeline<RenderPartRow, string, RenderWarning>;
    log: Logger;
    concurrency: number;
    pollingIntervalSeconds?: number;
    deleteJoinJob(jobId: string): Promise<void>;
  },
): JobHandler<RenderPartJobV1> {
  const lifecycle = renderPartLifecycle(opts);
  return {
    concurrency: opts.concurrency,
    ...(opts.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: opts.pollingIntervalSeconds }
      : {}),
    async run(data) {
      const outcome = await runAttempt(
        {
          lifecycle,
          pipeline: opts.pipeline,
          describeError: describeRenderError,
          log: opts.log.child({ renderId: data.renderId, partId: data.partId }),
          maxAttempts: JOBS.renderPart.policy.retryLimit + 1,
        },
        data.partId,
      );
      opts.log.info(
        { renderId: data.renderId, partId: data.partId, outcome },
        "render segment attempt ended",
      );
      return outcome;
    },
    async deadLetter(data) {
      await lifecycle.abandon(data.partId, workerLostError("render segment"));
      await opts.deleteJoinJob(data.joinJobId);
      await opts.store.deletePrefix(renderPartsPrefix(data.renderId));
    },
  };
}
