import { type Notifications, openNotifications } from "./db/notifications.ts";
import type { RenderPartRow } from "./db/repositories/render-segments.ts";
import { createGenerationService } from "./domain/assistant/generation-service.ts";
import { type Assistant, type AssistantDeps, createAssistant } from "./domain/assistant/service.ts";
import type { GenerationService, TranscriptionService } from "./domain/assistant/tool-context.ts";
import { createTranscriptionService } from "./domain/assistant/transcription-service.ts";
import type { AutoeditJobDeps } from "./domain/autoedit/autoedit-job.ts";
import type { GenerationPipelineDeps } from "./domain/generation/pipeline.ts";
import { createProviders } from "./domain/generation/providers/index.ts";
import type { ProviderSet } from "./domain/generation/providers/types.ts";
import { createDiscardOutputs, createStoreOutputs } from "./domain/generation/store-outputs.ts";
import { createPreviewStream } from "./domain/preview/preview-stream.ts";
import { createFramePreview } from "./domain/preview/render-frame.ts";
import { reframeComposition } from "./domain/reframe/reframe-composition.ts";
import type { RenderWarning } from "./domain/render/types.ts";
import type { RenderPipeline } from "./domain/render-jobs/render-job.ts";
import { createRenderJoinPipeline } from "./domain/render-jobs/render-join-job.ts";
import { createRenderPartPipeline } from "./domain/render-jobs/render-part-job.ts";
import { createRenderPipeline } from "./domain/render-jobs/render-pipeline.ts";
import { createSplitRenderStarter } from "./domain/render-jobs/split-render.ts";
import { createTranscribers, type TranscriberSet } from "./domain/transcription/engines/index.ts";
import type { TranscriptionJobDeps } from "./domain/transcription/transcription-job.ts";
import { ANALYSIS_DEFAULTS, uploadAnalysis } from "./domain/uploads/analysis.ts";
import { createWebhookEvents, type WebhookEvents } from "./domain/webhooks/events.ts";
import { eventPresenters } from "./http/presenters/events.ts";
import { createFaceDetector, type FaceDetector } from "./media/faces/detector.ts";
import type { AttemptPipeline } from "./queue/attempt-runner.ts";
import { createEnqueue, type Enqueue } from "./queue/enqueue.ts";
import { createFlowQueue, type FlowQueue } from "./queue/flow.ts";
import type { RuntimeParts } from "./runtime.ts";

/**
 * What a process serves: the HTTP API, jobs, or both (the API with its in-process worker,
 * `WORKER_IN_PROCESS=true`).
 */
export type Role = "api" | "worker" | "both";

/** The services both roles use. */
export interface SharedServices {
  /**
   * The face detector of reframing (one worker thread, started on first use, ended after a
   * minute idle); the app (`onClose`) and the job worker (when it stops) close it.
   */
  faces: FaceDetector;
  /** Sends jobs (inside the caller's transaction when given one). */
  enqueue: Enqueue;
  /** Sends, finds and cancels the part and join jobs of split renders. */
  flows: FlowQueue;
  /** Records webhook events and queues their deliveries. */
  events: WebhookEvents;
  /** Generation vendors by name (`GENERATION_*`). */
  providers: ProviderSet;
  /** Speech-to-text engines: the configured one (`active`) and every one by provider name. */
  transcribers: TranscriberSet;
}

/** The services of the HTTP API. */
export interface ApiServices extends SharedServices {
  /**
   * Wake-ups from other processes (assistant run events, settled generations). Opened on the
   * database before any route is registered; the app closes it last (`onClose`).
   */
  notifications: Notifications;
  /** Timeline preview frames (JPEG), rendered in the API process. */
  frames: ReturnType<typeof createFramePreview>;
  /** Timeline preview videos, streamed from the API process. */
  previews: ReturnType<typeof createPreviewStream>;
  /** The assistant: runs execute in this process; the app closes it before the server (`preClose`). */
  assistant: Assistant;
}

/** The services of the job worker: one pipeline per job kind that does real work. */
export interface WorkerServices extends SharedServices {
  renderPipeline: RenderPipeline;
  /** Sends the part and join jobs of a split render again when they are missing. */
  resumeSplitRender(renderId: string): Promise<void>;
  /** The work of one part of a split render. */
  renderPartPipeline: AttemptPipeline<RenderPartRow, string, RenderWarning>;
  /** The join of a split render. */
  renderJoinPipeline: RenderPipeline;
  /** Generation attempts' dependencies, webhook events included. */
  generationPipeline: GenerationPipelineDeps;
  /** Transcription attempts' dependencies, webhook events included. */
  transcriptionPipeline: TranscriptionJobDeps;
  /** Auto-edit attempts' dependencies, webhook events included. */
  autoeditPipeline: AutoeditJobDeps;
}

/** What each role gets from {@link buildServices}. */
export type ServicesOf<R extends Role> = R extends "api"
  ? ApiServices
  : R extends "worker"
    ? WorkerServices
    : ApiServices & WorkerServices;

/** Options of {@link buildServices}. */
export interface ServiceOptions<R extends Role> {
  role: R;
  /** Assistant wiring: a model replacing ASSISTANT_MODEL (tests: scripted models), timings. */
  assistant?: Pick<AssistantDeps, "generation" | "languageModel" | "options"> | undefined;
  /**
   * Lossless H.264 video in renders and their segments: for exactness tests only (split and
   * unsplit outputs then decode to identical frames).
   */
  lossless?: boolean | undefined;
}

/**
 * The composition root: builds every service of a process once, over the runtime's database,
 * blob store, queue, clock and logger. The API role opens the notification listener and starts
 * the assistant (its sweeper of dead processes' runs); the worker role builds the job pipelines;
 * `both` builds both over one set of shared services. Nothing here listens or takes jobs:
 * `buildApp` registers the routes, `startWorker` starts the job handlers.
 *
 * @throws whatever opening the notification listener or starting the assistant throws.
 */
export async function buildServices<R extends Role>(
  runtime: RuntimeParts,
  opts: ServiceOptions<R>,
): Promise<ServicesOf<R>> {
  const { config, store, queue, clock } = runtime;
  const enqueue = createEnqueue(queue);
  const flows = createFlowQueue(queue);
  const events = createWebhookEvents({
    enqueue,
    clock,
    present: eventPresenters({ store, signedUrlTtlSec: config.signedUrlTtlSec }),
  });
  const shared: SharedServices = {
    enqueue,
    flows,
    events,
    providers: createProviders(config.generation, config.workDir),
    transcribers: createTranscribers(config.transcription),
    faces: createFaceDetector({ threads: 1 }),
  };
  const api = opts.role === "worker" ? {} : await apiServices(runtime, shared, opts.assistant);
  const worker = opts.role === "api" ? {} : workerServices(runtime, shared, opts.lossless === true);
  return { ...shared, ...api, ...worker } as ServicesOf<R>;
}

/** The API role's own services over `shared`. */
async function apiServices(
  runtime: RuntimeParts,
  shared: SharedServices,
  wiring: ServiceOptions<Role>["assistant"],
): Promise<Omit<ApiServices, keyof SharedServices>> {
  const { config, database, store, clock, log } = runtime;
  const { enqueue, flows, events, providers, transcribers, faces } = shared;
  const db = database.db;
  const workRoot = config.workDir;
  const preview = { db, store, workRoot, log, stallTimeoutMs: 20_000 };
  const frames = createFramePreview({
    ...preview,
    concurrency: 2,
    maxWaiting: 8,
    cacheBytes: 64 * 1024 * 1024,
  });
  const previews = createPreviewStream({ ...preview, concurrency: 2, maxWaiting: 2, maxRunMs: 120_000 });
  const notifications = await openNotifications(database, log);
  const generation: GenerationService = createGenerationService({
    db,
    clock,
    generation: config.generation,
    enqueue,
    providers,
    notifications,
    log,
  });
  const transcription: TranscriptionService = createTranscriptionService({
    db,
    clock,
    enqueue,
    transcriber: transcribers.active,
    engines: transcribers.byProvider,
    log,
  });
  const assistant = await createAssistant({
    database,
    notifications,
    store,
    enqueue,
    events,
    flows,
    clock,
    generation,
    transcription,
    analysis: {
      analyse: (input) =>
        uploadAnalysis({ db, store, clock, workRoot }, input.userId, input.uploadId, {
          ...ANALYSIS_DEFAULTS,
          ...input.params,
        }),
    },
    reframe: {
      reframe: (input) =>
        reframeComposition(
          { db, store, clock, workRoot, userId: input.userId, faces },
          input.composition,
          input,
        ),
    },
    log,
    model: { model: config.assistantModel, baseUrl: config.assistantBaseUrl, apiKey: config.assistantApiKey },
    ...wiring,
    options: {
      maxSteps: config.assistantMaxSteps,
      maxPaidGenerationsPerRun: config.assistantMaxPaidGenerationsPerRun,
      renderLimits: config.renderLimits,
      ...wiring?.options,
    },
  });
  return { notifications, frames, previews, assistant };
}

/** The worker role's own services over `shared`. */
function workerServices(
  runtime: RuntimeParts,
  shared: SharedServices,
  lossless: boolean,
): Omit<WorkerServices, keyof SharedServices> {
  const { config, database, store, clock, log } = runtime;
  const { enqueue, flows, events, providers, transcribers } = shared;
  const db = database.db;
  const render = {
    db,
    store,
    workRoot: config.workDir,
    log,
    stallTimeoutMs: config.renderStallTimeoutSec * 1000,
    ...(lossless ? { lossless: true } : {}),
  };
  const cache = {
    db,
    store,
    clock,
    log,
    capBytes: config.renderCacheBytes,
    ...(lossless ? { lossless } : {}),
  };
  const split = createSplitRenderStarter({
    db,
    clock,
    flows,
    segmentSec: config.renderSegmentSec,
    keyframeBoundaries: config.renderSegmentKeyframes,
    cache,
    segmentEveryRender: config.renderSegmentAll,
    probeTimeoutMs: render.stallTimeoutMs,
  });
  return {
    renderPipeline: createRenderPipeline({ ...render, split }),
    resumeSplitRender: split.resume,
    renderPartPipeline: createRenderPartPipeline({ ...render, cache }),
    renderJoinPipeline: createRenderJoinPipeline(render),
    generationPipeline: {
      db,
      store,
      clock,
      providers,
      workRoot: config.workDir,
      storeOutputs: createStoreOutputs({ db, store, maxBytes: config.uploadMaxBytes, enqueue }),
      discardOutputs: createDiscardOutputs({ db, store }),
      remote: { maxBytes: 64 * 1024 * 1024, timeoutMs: 60_000 },
      events,
    },
    transcriptionPipeline: {
      db,
      store,
      clock,
      workRoot: config.workDir,
      transcribers: transcribers.byProvider,
      events,
    },
    autoeditPipeline: {
      db,
      store,
      clock,
      workRoot: config.workDir,
      transcription: { enqueue, transcriber: transcribers.active, engines: transcribers.byProvider },
      enqueue,
      renderLimits: config.renderLimits,
      events,
      faces: shared.faces,
    },
  };
}
