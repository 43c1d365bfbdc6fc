/**
 * The `autoedit` job kind on the shared row-job lifecycle (the autoedits table, its end with
 * `autoedit.succeeded`/`failed`), the handler the worker registers, and the pipeline:
 * transcripts (reused or made by the transcription job) and analyses of the uploads → ranked candidates (written before anything
 * else) → one composition per chosen candidate, built by the steps of `steps.ts`, each step one
 * version → renders when asked. A job that fails or is cancelled deletes the compositions it made.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  type AutoeditRow,
  autoeditRows,
  findAutoeditById,
  type NewAutoedit,
} from "../../db/repositories/autoedits.ts";
import { findUploadsByIds } from "../../db/repositories/uploads.ts";
import { AppError } from "../../errors.ts";
import type { MediaAnalysis } from "../../media/analysis/types.ts";
import type { FaceDetector } from "../../media/faces/detector.ts";
import type { AttemptContext, AttemptOutcome, DescribedFailure } from "../../queue/attempt-runner.ts";
import { type AutoeditJobV1, JOBS } from "../../queue/catalog.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { JobHandler } from "../../queue/registry.ts";
import { type RowJob, rowJobHandler, runRowJobAttempt } from "../../queue/row-job.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { deleteComposition } from "../composition/compositions.ts";
import {
  createComposition,
  replaceComposition,
  toCompositionResource,
  type WriteContext,
} from "../composition/edit-composition.ts";
import type { RenderLimits } from "../composition/limits.ts";
import { estimateRenderSeconds } from "../composition/render-estimate.ts";
import type { CompositionWrite } from "../composition/schema.ts";
import { startRender } from "../render-jobs/start-render.ts";
import {
  type ReusedTranscript,
  type TranscribeOrReuseDeps,
  transcribeOrReuse,
} from "../transcription/reuse.ts";
import { TranscriptionError } from "../transcription/types.ts";
import { ANALYSIS_DEFAULTS, uploadAnalysis } from "../uploads/analysis.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { findCandidates, rankCandidates } from "./candidates.ts";
import { type AutoeditDraft, type AutoeditSource, type AutoeditStepContext, autoeditSteps } from "./steps.ts";
import type { AutoeditComposition, AutoeditResult, AutoeditStage } from "./types.ts";

/** What an auto-edit attempt needs. */
export interface AutoeditJobDeps {
  db: Db;
  store: BlobStore;
  clock: Clock;
  /** WORK_DIR: scratch space of the upload analyses. */
  workRoot: string;
  /** The configured transcription engine and its queue (transcripts are made by its job). */
  transcription: Omit<TranscribeOrReuseDeps, "db" | "clock" | "log">;
  enqueue: Enqueue;
  renderLimits: RenderLimits;
  /** Records `autoedit.succeeded`/`autoedit.failed` with the final write. */
  events?: WebhookEvents | undefined;
  /** The process's face detector, for the reframe step. */
  faces: FaceDetector;
}

/** A failure of an auto-edit that another attempt would not fix. */
export class AutoeditError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "AutoeditError";
    this.code = code;
  }
}

/** The stages in the order they run. */
const STAGE_ORDER: readonly AutoeditStage[] = [
  "transcribing",
  "analysing",
  "candidates",
  "compositions",
  "renders",
];
/** Share of the progress each stage ends at. */
const STAGE_END: Record<AutoeditStage, number> = {
  transcribing: 0.6,
  analysing: 0.7,
  candidates: 0.72,
  compositions: 0.95,
  renders: 1,
};

/** Deletes compositions an auto-edit made (its output is all or nothing). */
async function deleteMade(db: Db, userId: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) await deleteComposition(db, userId, id);
}

/**
 * The auto-edit as a row job: `DELETE` makes it `cancelled` at once; its heartbeat also writes
 * the stage, and an output made after a cancel is deleted.
 */
function autoeditJob(
  deps: AutoeditJobDeps,
): RowJob<AutoeditJobV1, AutoeditRow, AutoeditResult, never, NewAutoedit> {
  const { db, events } = deps;
  return {
    kind: JOBS.autoedit,
    idOf: (data) => data.autoeditId,
    noun: "auto-edit",
    table: autoeditRows,
    run: (row, ctx) => runAutoeditPipeline(deps, row, ctx),
    describeError: describeAutoeditError,
    succeeded: (result) => ({ stage: null, result }),
    heartbeat(progress) {
      const stage = progress.detail?.stage as AutoeditStage | undefined;
      return stage ? { stage } : {};
    },
    recordEnd: events && ((tx, row) => events.autoeditEnded(tx, row)),
    async discardOutput(id, output) {
      const row = await findAutoeditById(db, id);
      if (row)
        await deleteMade(
          db,
          row.userId,
          output.compositions.map((c) => c.id),
        );
    },
  };
}

/** An auto-edit failure as stored, and whether another attempt may help. */
export function describeAutoeditError(err: unknown): DescribedFailure {
  if (err instanceof AutoeditError || err instanceof TranscriptionError) {
    return { error: { code: err.code, message: err.message, retryable: false }, retryable: false };
  }
  if (err instanceof AppError) {
    return { error: { code: err.code, message: err.message, retryable: false }, retryable: false };
  }
  return {
    error: { code: "autoedit_failed", message: "The auto-edit failed unexpectedly", retryable: true },
    retryable: true,
    unexpected: true,
  };
}

/**
 * The work of one attempt (see the module doc).
 * @throws AutoeditError when no candidate is found; TranscriptionError when a transcript cannot be
 *   made; AppError when a composition cannot be written (e.g. an upload deleted meanwhile).
 */
export async function runAutoeditPipeline(
  deps: AutoeditJobDeps,
  row: AutoeditRow,
  ctx: AttemptContext<never>,
): Promise<AutoeditResult> {
  const { db, clock } = deps;
  const request = row.request;
  const userId = row.userId;
  // An earlier attempt's compositions are not finished work: start over.
  await deleteMade(
    db,
    userId,
    (row.result?.compositions ?? []).map((c) => c.id),
  );
  const result: AutoeditResult = {
    transcriptionIds: [],
    candidates: [],
    compositions: [],
    renders: [],
    skipped: [],
  };
  const made: string[] = [];
  let stage: AutoeditStage = "transcribing";
  const report = (share: number) => {
    const i = STAGE_ORDER.indexOf(stage);
    const from = i > 0 ? STAGE_END[STAGE_ORDER[i - 1] as AutoeditStage] : 0;
    ctx.progress(from + (STAGE_END[stage] - from) * Math.min(1, share), { stage });
  };
  const enter = (next: AutoeditStage) => {
    stage = next;
    report(0);
  };
  const save = async () => {
    const ok = await autoeditRows.updateFenced(db, {
      id: row.id,
      attempt: ctx.attempt,
      set: { result: structuredClone(result), stage },
    });
    if (!ok) throw new AutoeditError("cancelled", "The auto-edit was cancelled");
  };
  try {
    const uploads = await findUploadsByIds(db, userId, request.uploadIds);
    const byId = new Map(uploads.map((u) => [u.id, u]));
    enter("transcribing");
    const transcripts: ReusedTranscript[] = [];
    for (const [i, uploadId] of request.uploadIds.entries()) {
      const t = await transcribeOrReuse(
        { ...deps.transcription, db, clock, log: ctx.log },
        { userId, uploadId, projectId: row.projectId },
        (p) => report((i + p.progress) / request.uploadIds.length),
        ctx.signal,
      );
      transcripts.push(t);
      result.transcriptionIds.push(t.transcriptionId);
    }
    enter("analysing");
    const analyses: MediaAnalysis[] = [];
    for (const [i, uploadId] of request.uploadIds.entries()) {
      ctx.signal.throwIfAborted();
      analyses.push(
        await uploadAnalysis({ db, store: deps.store, clock, workRoot: deps.workRoot }, userId, uploadId, {
          ...ANALYSIS_DEFAULTS,
          silenceMinDuration: Math.min(request.silenceMinDuration, ANALYSIS_DEFAULTS.silenceMinDuration),
        }),
      );
      report((i + 1) / request.uploadIds.length);
    }
    enter("candidates");
    result.candidates = rankCandidates(
      request.uploadIds.map((uploadId, i) =>
        findCandidates({
          uploadId,
          segments: transcripts[i]?.result.segments ?? [],
          silences: analyses[i]?.silences?.ranges ?? [],
          shortTerm: analyses[i]?.loudness?.shortTerm ?? [],
          maxDuration: request.target.maxDuration,
          prompt: request.prompt,
        }),
      ),
    );
    if (result.candidates.length === 0) {
      throw new AutoeditError(
        "no_candidates",
        `No stretch of speech of at most ${request.target.maxDuration} s between sentence boundaries was found in the uploads`,
      );
    }
    await save();

    enter("compositions");
    const music = request.musicUploadId
      ? (await findUploadsByIds(db, userId, [request.musicUploadId]))[0]
      : undefined;
    const chosen = result.candidates.slice(0, request.target.count);
    for (const [i, candidate] of chosen.entries()) {
      ctx.signal.throwIfAborted();
      const upload = byId.get(candidate.uploadId);
      const index = request.uploadIds.indexOf(candidate.uploadId);
      if (!upload?.media) throw new AutoeditError("upload_gone", `Upload ${candidate.uploadId} is gone`);
      const source: AutoeditSource = {
        uploadId: upload.id,
        name: upload.name,
        width: upload.media.width ?? 1280,
        height: upload.media.height ?? 720,
        fps: upload.media.fps,
        transcriptionId: result.transcriptionIds[index] as string,
        transcript: (transcripts[index] as ReusedTranscript).result,
        silences: analyses[index]?.silences?.ranges ?? [],
      };
      const stepContext: AutoeditStepContext = {
        userId,
        deps: { db, store: deps.store, workRoot: deps.workRoot, clock, faces: deps.faces },
        request,
        candidate,
        source,
        music: music?.media
          ? { uploadId: music.id, name: music.name, duration: music.media.duration ?? 0 }
          : null,
        signal: ctx.signal,
      };
      const built = await buildComposition(deps, row, stepContext, made);
      result.compositions.push({ ...built, candidate: result.candidates.indexOf(candidate) });
      await save();
      report((i + 1) / chosen.length);
    }

    if (request.render) {
      enter("renders");
      for (const c of result.compositions) {
        try {
          const { render } = await startRender(
            { db, enqueue: deps.enqueue, now: clock.now(), userId, limits: deps.renderLimits },
            { body: { compositionId: c.id }, idempotencyKey: `autoedit:${row.id}:${c.id}` },
          );
          result.renders.push({ id: render.id, compositionId: c.id });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          result.skipped.push({ option: "render", reason: `composition ${c.id}: ${err.message}` });
        }
      }
    }
    return result;
  } catch (err) {
    await deleteMade(db, userId, made).catch((e: unknown) =>
      ctx.log.warn({ err: e }, "deleting the compositions of a failed auto-edit failed"),
    );
    throw err;
  }
}

/**
 * Builds one composition from a candidate: the first step's output is created as version 1, each
 * later step that changes it is saved as the next version with its summary.
 * @param made - ids of the compositions created so far (this one is added as soon as it exists).
 */
async function buildComposition(
  deps: AutoeditJobDeps,
  row: AutoeditRow,
  stepContext: AutoeditStepContext,
  made: string[],
): Promise<Omit<AutoeditComposition, "candidate">> {
  const write = (): WriteContext => ({
    db: deps.db,
    userId: row.userId,
    now: deps.clock.now(),
    limits: deps.renderLimits,
    author: { kind: "autoedit", runId: row.id },
  });
  const steps = autoeditSteps(stepContext.request);
  const name = `${stepContext.candidate.title}`.slice(0, 200);
  let draft: AutoeditDraft = {
    name,
    projectId: row.projectId,
    canvas: { width: 16, height: 16, fps: 30, background: "#000000" },
    tracks: [],
  };
  let id: string | null = null;
  let version = 0;
  const records: AutoeditComposition["steps"] = [];
  for (const step of steps) {
    stepContext.signal.throwIfAborted();
    const out = await step.run(stepContext, draft);
    const reasons = out.reasons ?? [];
    if (id === null) {
      const created = await createComposition(write(), out.composition as CompositionWrite, out.summary);
      id = created.id;
      made.push(id);
      version = created.version;
      draft = stripServerFields(toCompositionResource(created));
      records.push({ step: step.name, version, summary: out.summary, reasons });
      continue;
    }
    if (out.composition === draft) {
      records.push({ step: step.name, version: null, summary: out.summary, reasons });
      continue;
    }
    const saved = await replaceComposition(write(), {
      id,
      baseVersion: version,
      body: out.composition as CompositionWrite,
      summary: out.summary,
    });
    version = saved.version;
    draft = stripServerFields(toCompositionResource(saved));
    records.push({ step: step.name, version, summary: out.summary, reasons });
  }
  if (id === null) throw new AutoeditError("no_steps", "No step made a composition");
  return { id, steps: records, estimate: { renderSeconds: estimateRenderSeconds(draft) } };
}

function stripServerFields(c: ReturnType<typeof toCompositionResource>): AutoeditDraft {
  const { id: _i, version: _v, schemaVersion: _s, createdAt: _c, updatedAt: _u, ...rest } = c;
  return rest;
}

/**
 * Runs one attempt of auto-edit `autoeditId` through the fenced-attempt runner.
 * @throws RetryableAttemptError for a retryable failure with attempts left (pg-boss retries).
 */
export function runAutoeditAttempt(
  deps: { pipeline: AutoeditJobDeps; log: Logger; pollMs?: number },
  autoeditId: string,
): Promise<AttemptOutcome> {
  return runRowJobAttempt(autoeditJob(deps.pipeline), deps, autoeditId);
}

/**
 * The `autoedit` job handler: one fenced attempt per job; a job whose retries ran out (its worker
 * kept dying) fails its auto-edit with `worker_lost`.
 */
export function autoeditJobHandler(opts: {
  pipeline: AutoeditJobDeps;
  log: Logger;
  concurrency: number;
  pollingIntervalSeconds?: number;
}): JobHandler<AutoeditJobV1> {
  return rowJobHandler(autoeditJob(opts.pipeline), opts);
}
