/**
 * The process's Prometheus metrics (prom-client): one registry per process holding the
 * process metrics (CPU, memory, event-loop lag, GC) and what this process's jobs did. Every
 * HTTP server of the process (the API's `/metrics`, a worker's metrics port) exposes it,
 * merged with its own per-server metrics (see `registerMetrics`).
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** The process-wide registry. */
export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

/**
 * Duration of one job attempt, seconds, by job kind (queue name) and outcome. Outcomes are what
 * the handler reports (`succeeded`, `failed`, `cancelled`, `superseded`, `skipped`, `retrying`,
 * `completed` when it reports none), `error` when the attempt threw (pg-boss retries it) and
 * `dead_letter` for the handler of a job whose retries ran out. `_count` counts outcomes.
 */
export const jobDuration = new Histogram({
  name: "cutroom_job_duration_seconds",
  help: "Duration of one job attempt in seconds, by job kind and outcome",
  labelNames: ["kind", "outcome"] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600],
  registers: [processRegistry],
});

/**
 * Wall-clock seconds a successful render attempt took per second of its timeline (the whole
 * attempt: assets, ffmpeg, probe, poster, upload), by output format. Below 1 is faster than
 * real time.
 */
export const renderSecondsPerTimelineSecond = new Histogram({
  name: "cutroom_render_seconds_per_timeline_second",
  help: "Wall-clock seconds of a successful render attempt per second of timeline, by output format",
  labelNames: ["format"] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
  registers: [processRegistry],
});

/** Generations this process ended, by outcome (`succeeded`, `failed`) and error code (`""` on success). */
export const generationOutcomes = new Counter({
  name: "cutroom_generations_total",
  help: "Generations ended by this process, by outcome and error code",
  labelNames: ["outcome", "code"] as const,
  registers: [processRegistry],
});

/** Webhook delivery tries, by outcome (`succeeded`, `retrying`, `failed`, `skipped`). */
export const webhookTries = new Counter({
  name: "cutroom_webhook_tries_total",
  help: "Webhook delivery tries, by outcome (failed = the last try of a delivery failed)",
  labelNames: ["outcome"] as const,
  registers: [processRegistry],
});

/** Failed ffmpeg runs, by failure code (`FFMPEG_FAILED`, `TIMEOUT`, `ABORTED`). */
export const ffmpegFailures = new Counter({
  name: "cutroom_ffmpeg_failures_total",
  help: "Failed ffmpeg runs, by failure code",
  labelNames: ["code"] as const,
  registers: [processRegistry],
});
