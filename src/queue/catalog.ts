/**
 * The job catalog: every job kind (queue name, versioned payload, policy) in one place.
 * Handlers are given per process (see `src/main/job-worker.ts`); `startJobWorkers` refuses to start
 * when a kind has none.
 */
import { defineJob } from "./registry.ts";

/** Payload of a `render` job: the render row is the source of truth; the job only points at it. */
export interface RenderJobV1 {
  v: 1;
  renderId: string;
}

/**
 * Payload of a `render_part` job: one part (video segment or audio) of a split render; the
 * part row is the source of truth. `joinJobId` is the render's `render_join` job, which waits
 * for every part's job.
 */
export interface RenderPartJobV1 {
  v: 1;
  renderId: string;
  partId: string;
  joinJobId: string;
}

/** Payload of a `render_join` job: joins the parts of split render `renderId` and finishes it. */
export interface RenderJoinJobV1 {
  v: 1;
  renderId: string;
}

/** Payload of a `generation` job: the generation row is the source of truth. */
export interface GenerationJobV1 {
  v: 1;
  generationId: string;
}

/** Payload of a `transcription` job: the transcription row is the source of truth. */
export interface TranscriptionJobV1 {
  v: 1;
  transcriptionId: string;
}

/**
 * Payload of a `webhook_delivery` job: one try of the delivery row; `seq` fences it (a job
 * whose `seq` is no longer the row's does nothing).
 */
export interface WebhookDeliveryJobV1 {
  v: 1;
  deliveryId: string;
  seq: number;
}

/**
 * Payload of a `preview_proxy` job: makes the preview proxy of video upload `uploadId`; the
 * upload's `preview_proxy` column is the source of truth (`pending` until the job settles it).
 */
export interface PreviewProxyJobV1 {
  v: 1;
  uploadId: string;
}

/** Payload of an `autoedit` job: the auto-edit row is the source of truth. */
export interface AutoeditJobV1 {
  v: 1;
  autoeditId: string;
}

/** Every job kind. */
export const JOBS = {
  render: defineJob<RenderJobV1>("render", {
    // Retries after a lost worker (missed heartbeats) or a retryable failure; when they run
    // out the job goes to `render_dead`, whose handler fails the render with WORKER_LOST.
    retryLimit: 2,
    retryDelay: 2,
    // pg-boss fails a job whose worker missed heartbeats this long (its minimum is 10 s).
    heartbeatSeconds: 10,
    deadLetter: true,
  }),
  renderPart: defineJob<RenderPartJobV1>("render_part", {
    // A part whose worker was lost (missed heartbeats) or failed retryably is retried alone;
    // when retries run out, `render_part_dead` fails the render with WORKER_LOST.
    retryLimit: 2,
    retryDelay: 2,
    heartbeatSeconds: 10,
    deadLetter: true,
  }),
  renderJoin: defineJob<RenderJoinJobV1>("render_join", {
    // Sent with the parts in one pg-boss flow: it waits until every part's job completed.
    retryLimit: 2,
    retryDelay: 2,
    heartbeatSeconds: 10,
    deadLetter: true,
  }),
  generation: defineJob<GenerationJobV1>("generation", {
    // A retry resumes polling the vendor request the lost attempt submitted (its id is on
    // the row), so retrying never pays twice; `generation_dead` fails it with `worker_lost`.
    retryLimit: 2,
    retryDelay: 2,
    heartbeatSeconds: 10,
    // Vendor video generations take minutes; the pipeline's own deadline (30 min) comes first.
    expireInSeconds: 3600,
    deadLetter: true,
  }),
  transcription: defineJob<TranscriptionJobV1>("transcription", {
    // A retry starts over (the offline engine) or resumes the vendor request on the row;
    // `transcription_dead` fails it with `worker_lost`.
    retryLimit: 2,
    retryDelay: 2,
    heartbeatSeconds: 10,
    // Offline decoding of hours of speech takes a while on two cores.
    expireInSeconds: 4 * 3600,
    deadLetter: true,
  }),
  autoedit: defineJob<AutoeditJobV1>("autoedit", {
    // A retry starts over (the compositions of the lost attempt are deleted first);
    // `autoedit_dead` fails it with `worker_lost`.
    retryLimit: 2,
    retryDelay: 2,
    heartbeatSeconds: 10,
    // It waits for the transcription job of each upload, which may take hours of offline decoding.
    expireInSeconds: 4 * 3600,
    deadLetter: true,
  }),
  webhookDelivery: defineJob<WebhookDeliveryJobV1>("webhook_delivery", {
    // The retry schedule of a delivery is its own (each failed try sends the next job with a
    // delay); these retries only cover a worker lost during a try (a try takes at most 10 s).
    retryLimit: 3,
    retryDelay: 30,
    expireInSeconds: 120,
    deadLetter: false,
  }),
  previewProxy: defineJob<PreviewProxyJobV1>("preview_proxy", {
    // One retry after a lost worker or a storage error; when it runs out, `preview_proxy_dead`
    // marks the proxy `failed` (previews keep using the original). An hour is the longest a
    // build may take (its scratch directory is swept after that).
    retryLimit: 1,
    retryDelay: 10,
    heartbeatSeconds: 10,
    expireInSeconds: 3600,
    deadLetter: true,
  }),
} as const;

/** The job kinds' definitions by kind. */
export type JobCatalog = typeof JOBS;

/**
 * Expiry of one render attempt from the timeline length: generous (encoding on two
 * cores can run several times slower than real time) but bounded, so that a hung
 * attempt is retried. Seconds.
 */
export function renderExpirySeconds(timelineSeconds: number): number {
  return Math.min(6 * 3600, Math.max(300, Math.ceil(timelineSeconds * 20 + 120)));
}
