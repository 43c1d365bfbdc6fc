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
import { countPartNotReused } from "../../db/repositories/render-cache.ts";
import {
  claimRenderPart,
  countSegmentDone,
  endRenderPartUnfenced,
  lockRenderOfPart,
  PART_TERMINAL_STATUSES,
  type RenderPartRow,
  readRenderPartAttempts,
  readRenderPartControl,
  updateRenderPartFenced,
  writeSplitRenderProgress,
} from "../../db/repositories/render-segments.ts";
import {
  ACTIVE_STATUSES,
  failRenderUnfenced,
  findRenderById,
  type RenderRow,
} from "../../db/repositories/renders.ts";
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
import { keptSourceKeyframes } from "../render/keyframes.ts";
import {
  buildAudioPlan,
  buildSegmentPlan,
  partFileName,
  renderFrameWindow,
  segmentClipIds,
} from "../render/segments.ts";
import { planSmartRender } from "../render/smart-plan.ts";
import { frameToSeconds } from "../render/timeline.ts";
import { RenderError, type RenderWarning } from "../render/types.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { endCancelledSplitRender } from "./cancel-render.ts";
import { DEFAULT_REMOTE_LIMITS, resolveRenderAssets } from "./render-assets.ts";
import {
  keepPartInCache,
  type RenderCacheDeps,
  readCachedPart,
  renderPartKeys,
  usesRenderCache,
} from "./render-cache.ts";
import { DamageLog, expectEveryFrame, runDamageWarnings } from "./render-damage.ts";
import { type RenderRunDeps, runRenderFfmpeg } from "./render-ffmpeg.ts";
import { describeRenderError } from "./render-job.ts";
import { loudnessTargetOf, measureRenderLoudness } from "./render-loudness.ts";
import { POSTER_FILE } from "./render-output.ts";
import { DECODER_THREADS, FILTER_THREADS } from "./render-pipeline.ts";
import {
  joinSmartVideo,
  makeSmartVideo,
  readSourceGops,
  smartMatch,
  usesSmartRender,
} from "./smart-render.ts";
import { StepTimes } from "./step-times.ts";
import { writePlanFiles } from "./write-plan-files.ts";

/** Dependencies of a part's lifecycle and handler. */
interface PartDeps {
  db: Db;
  clock: Clock;
  store: BlobStore;
  events?: WebhookEvents;
}

/**
 * Ends part `partId` with `write`, and its render when this ends it, in one transaction that
 * first locks the render's row (so that of two parts ending at once the later one sees the
 * earlier): the render `write` ended (a part that fails for good fails it), else, when the
 * render is being cancelled and this was its last queued or running part, the render ends
 * `cancelled` (`endCancelledSplitRender`: its join job was cancelled with it). The render's
 * webhook event is recorded in the same transaction; once it ended, the parts' files are
 * deleted. Returns whether `write` changed the part.
 */
async function endPart(
  deps: PartDeps,
  partId: string,
  write: (tx: Db, now: Date) => Promise<{ part: RenderPartRow | null; render?: RenderRow | null }>,
): Promise<boolean> {
  const now = deps.clock.now();
  const { changed, render } = await deps.db.transaction(async (tx) => {
    await lockRenderOfPart(tx, partId);
    const written = await write(tx, now);
    if (!written.part) return { changed: false, render: null };
    const ended = written.render ?? (await endCancelledSplitRender(tx, written.part.renderId, now));
    if (ended) await deps.events?.renderEnded(tx, ended);
    return { changed: true, render: ended };
  });
  if (render) await deps.store.deletePrefix(renderPartsPrefix(render.id));
  return changed;
}

/**
 * Fails a part and its render with `error` in one transaction (with the render's webhook
 * event), whatever attempt runs either. Returns whether the part changed.
 */
function failPartAndRender(deps: PartDeps, partId: string, error: AttemptErrorJson): Promise<boolean> {
  return endPart(deps, partId, async (tx, now) => {
    const part = await endRenderPartUnfenced(tx, { id: partId, error, now });
    return { part, render: part ? await failRenderUnfenced(tx, { id: part.renderId, error, now }) : null };
  });
}

/**
 * The part table as a {@link ResourceLifecycle}: claim moves a part of an active render to
 * `running`; heartbeats write its progress and the render's aggregated progress; the control
 * poll stops the part when its render is being cancelled (`cancelling`) or is no longer active
 * (`superseded`). A finished video segment counts on the render (`segments_done`); a part that
 * fails for good fails its render; a part finished after its render ended is discarded; the
 * last part of a render being cancelled to end ends it `cancelled`.
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
      if (end.status === "cancelled") {
        return endPart(deps, id, async (tx, at) => ({
          part: await updateRenderPartFenced(tx, {
            id,
            attempt,
            set: { status: "cancelled", finishedAt: at },
          }),
        }));
      }
      return db.transaction(async (tx) => {
        // A part finished after its render ended (failed by another part, or cancelled) is
        // not recorded: the runner discards its file. The render's row is locked first, as
        // by every write that ends a part: a cancel then sees this part ended, or this part
        // sees the cancel.
        await lockRenderOfPart(tx, id);
        const control = await readRenderPartControl(tx, id);
        if (!control || !ACTIVE_STATUSES.includes(control.renderStatus as never)) return false;
        const row = await updateRenderPartFenced(tx, {
          id,
          attempt,
          set: {
            status: "succeeded",
            key: end.output,
            progress: 1,
            warnings: end.warnings,
            finishedAt: now,
          },
        });
        if (!row) return false;
        if (row.kind === "video") await countSegmentDone(tx, row.renderId, now);
        return true;
      });
    },
    async abandon(id, error) {
      if (error) return failPartAndRender(deps, id, error);
      return endPart(deps, id, async (tx, now) => ({
        part: await endRenderPartUnfenced(tx, { id, error: null, now }),
      }));
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
 * The work of one part attempt: resolve the assets it reads into the attempt's work directory
 * (a video segment: the sources of the clips in its frames, `segmentClipIds`; the audio: all),
 * plan the part (`buildSegmentPlan` for a video segment: the whole graph, the segment's frames
 * kept on the output side; `buildAudioPlan` for the audio, after measuring its loudness when
 * the composition has a target, `measureRenderLoudness`), run ffmpeg with progress, name the
 * sources it found damaged (`SOURCE_DAMAGED` warnings, as the render in one piece does; stored
 * on the part, merged by the join) and move the file into the store under
 * `renders/<renderId>/parts/`, with the render's poster when the segment holds its frame
 * (`parts/poster.jpg`). Returns the part's storage key. The work directory is
 * removed when the attempt ends.
 *
 * @param opts.lossless - lossless H.264 segments (exactness tests; the render pipeline must
 *   then be lossless too).
 * @throws RenderError as the render pipeline does (asset problems, `FFMPEG_FAILED`, `TIMEOUT`).
 */
export function createRenderPartPipeline(
  opts: RenderRunDeps & { cache?: RenderCacheDeps },
): AttemptPipeline<RenderPartRow, string, RenderWarning> {
  const { db, store } = opts;
  return async (part, ctx) => {
    const steps = new StepTimes();
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
    const cache = opts.cache && usesRenderCache(opts.cache, render) ? opts.cache : null;
    try {
      if (cache && part.reuseKey) {
        // Copied from the account's cache when its entry is still there (and readable), else
        // rendered: an entry evicted meanwhile costs the render nothing but the time.
        const name = partFileName(part);
        const key = part.reuseKey;
        const copied = await readCachedPart(cache, render.userId, key, workDir, name)
          .then((cached) =>
            cached
              ? // Read in place from a local store: copied, else moved from the work directory.
                storePart(
                  opts,
                  render.id,
                  part.id,
                  { path: cached, name, move: path.dirname(cached) === workDir },
                  null,
                )
              : null,
          )
          .catch((err: unknown) => {
            opts.log.warn({ renderId: render.id, partId: part.id, err }, "copying a cached part failed");
            return null;
          });
        if (copied) return copied;
        const { rate } = renderFrameWindow(render.composition, render.options);
        const seconds = part.kind === "video" ? frameToSeconds(part.endFrame - part.startFrame, rate) : 0;
        await countPartNotReused(db, render.id, seconds);
      }
      const { assets, fonts, refsByPath } = await resolveRenderAssets({
        db,
        store,
        userId: render.userId,
        doc: render.composition,
        workDir,
        remote: opts.remote ?? DEFAULT_REMOTE_LIMITS,
        signal: ctx.signal,
        // A video segment reads the sources that play in its frames; the audio, every one.
        ...(part.kind === "video"
          ? { clipIds: segmentClipIds({ composition: render.composition, output: render.options }, part) }
          : {}),
      });
      ctx.signal.throwIfAborted();
      steps.lap("prepare");
      // Each input seeks to the keyframe its first frame decodes from (the boundaries were
      // placed on keyframes where they could be): no frame before it is decoded.
      const sourceKeyframes = keptSourceKeyframes(assets);
      const base = {
        composition: render.composition,
        assets,
        output: render.options,
        uploadedFonts: fonts,
        decoderThreads: DECODER_THREADS,
        filterThreads: FILTER_THREADS,
        ...(sourceKeyframes.size > 0 ? { sourceKeyframes } : {}),
      };
      const logFields = { renderId: render.id, partId: part.id, attempt: ctx.attempt };
      // The sound is rendered once for the whole render: its loudness is measured here.
      const target =
        part.kind === "audio" ? loudnessTargetOf(render.composition, render.options.format) : undefined;
      const loudness = target
        ? await measureRenderLoudness({
            base,
            target,
            cwd: workDir,
            signal: ctx.signal,
            deps: opts,
            logFields,
            refsByPath,
          })
        : undefined;
      if (loudness) opts.log.info({ ...logFields, target, ...loudness }, "render loudness measured");
      // A smart render: every video part is encoded in the render's stream format, and copies
      // the GOPs its plan finds whole in its frames.
      const smartFormat =
        part.kind === "video" && usesSmartRender(render.options)
          ? (render.smartRender?.format ?? null)
          : null;
      const { rate, window } = renderFrameWindow(render.composition, render.options);
      const smartPlan = smartFormat
        ? planSmartRender({
            composition: render.composition,
            output: render.options,
            assets,
            gops: await readSourceGops(
              render.composition,
              assets,
              ctx.signal,
              render.options,
              opts.stallTimeoutMs,
            ),
            range: part,
            origin: window.start,
            format: smartFormat,
          })
        : null;
      const { file, plan } =
        part.kind === "video"
          ? buildSegmentPlan(base, part, part.index, {
              posterPath: POSTER_FILE,
              ...(opts.lossless ? { lossless: true } : {}),
              ...(smartFormat ? { match: smartMatch(smartFormat, rate, false) } : {}),
            })
          : buildAudioPlan({ ...base, ...(loudness?.gain ? { loudness: { gain: loudness.gain } } : {}) });
      let warned = false;
      const warn = (w: RenderWarning) => {
        warned = true;
        ctx.warn(w);
      };
      const failure = { log: opts.log, logFields, composition: render.composition, refsByPath };
      if (smartPlan && smartFormat && smartPlan.copiedFrames > 0) {
        const pieces = await makeSmartVideo({
          base,
          plan: smartPlan,
          rate,
          workDir,
          signal: ctx.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          failure,
          onProgress: (r) => ctx.progress(0.95 * r),
          onWarning: warn,
        });
        await joinSmartVideo({
          pieces,
          rate,
          timescale: smartFormat.timescale,
          outputPath: file,
          audioPath: null,
          workDir,
          signal: ctx.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          log: opts.log,
        });
        plan.output = { ...plan.output };
        delete plan.output.posterPath;
      } else {
        for (const w of await writePlanFiles(plan, workDir)) warn(w);
        const damage = new DamageLog();
        await runRenderFfmpeg({
          plan,
          cwd: workDir,
          signal: ctx.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          onStderrLine: damage.onLine,
          onProgress: (p) => ctx.progress(p.ratio),
          failure,
        });
        // The sources this part read damaged, as the render in one piece names them.
        const damaged = await runDamageWarnings(
          damage,
          { inputs: plan.inputs, refsByPath },
          { checkTimeoutMs: opts.stallTimeoutMs, signal: ctx.signal, log: opts.log, logFields },
        );
        for (const w of damaged) warn(w);
        if (part.kind === "video" && plan.output.fps) {
          await expectEveryFrame(
            { outPath: path.join(workDir, file), frames: part.endFrame - part.startFrame },
            damaged,
            ctx.signal,
          );
        }
      }
      steps.lap("ffmpeg");
      // A part that warned is not kept: a copy of it would not repeat its warnings.
      if (cache && !warned) {
        const keys = await renderPartKeys(cache, render, part.kind === "video" ? [part] : []);
        const key = part.kind === "video" ? keys.video[0] : keys.audio;
        if (key) await keepPartInCache(cache, render.userId, key, path.join(workDir, file));
        steps.lap("cache");
      }
      // The poster first: once the segment is recorded, the join finds both. Moved, not copied:
      // the work directory goes anyway (a rename on local disk).
      const stored = await storePart(
        opts,
        render.id,
        part.id,
        { path: path.join(workDir, file), name: file, move: true },
        plan.output.posterPath ? path.join(workDir, POSTER_FILE) : null,
      );
      steps.lap("store");
      opts.log.info({ ...logFields, kind: part.kind, stepsMs: steps.ms }, "render part steps timed");
      return stored;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}

/**
 * Stores a part's file `local.path` (moved or copied) as `renders/<renderId>/parts/<name>`,
 * with the render's poster (moved) first when `poster` is given. Returns the part's key.
 * @throws RenderError `OUTPUT_UPLOAD_FAILED` (nothing of the part is left stored).
 */
async function storePart(
  opts: Pick<RenderRunDeps, "store" | "log">,
  renderId: string,
  partId: string,
  local: { path: string; name: string; move: boolean },
  poster: string | null,
): Promise<string> {
  const { store } = opts;
  const key = renderPartKey(renderId, local.name);
  const posterKey = poster ? renderPartKey(renderId, POSTER_FILE) : null;
  try {
    if (poster && posterKey)
      await store.putFile(posterKey, poster, { contentType: "image/jpeg", move: true });
    await store.putFile(key, local.path, { contentType: "video/mp4", move: local.move });
  } catch (err) {
    opts.log.warn({ renderId, partId, err }, "storing a render segment failed");
    await store.delete(key).catch(() => {});
    if (posterKey) await store.delete(posterKey).catch(() => {});
    throw new RenderError("OUTPUT_UPLOAD_FAILED", "Storing a rendered segment failed");
  }
  return key;
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
    // The join waits for every part's job: the last part to end starts it at once.
    unblocks: JOBS.renderJoin,
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
