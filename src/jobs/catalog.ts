/**
 * The typed job catalog: every queue, its payload (versioned) and its retry policy, in
 * one place. Handlers live in `handlers/`, one file per job.
 */

/** Payload of a `render` job: the render row is the source of truth; the job only points at it. */
export interface RenderJobV1 {
  v: 1;
  renderId: string;
}

/** Queue names and policies. */
export const QUEUES = {
  render: {
    name: "render",
    /** Where jobs go when retries are exhausted (their worker died every time). */
    deadLetter: "render_dead",
    /** Retries after a lost worker (missed heartbeats) or a retryable failure. */
    retryLimit: 2,
    retryDelay: 2,
    /** pg-boss fails a job whose worker missed heartbeats this long (its minimum is 10 s). */
    heartbeatSeconds: 10,
  },
  renderDead: { name: "render_dead" },
} as const;

/**
 * Expiry of one render attempt from the timeline length: generous (encoding on two
 * cores can run several times slower than real time) but bounded, so that a hung
 * attempt is retried. Seconds.
 */
export function renderExpirySeconds(timelineSeconds: number): number {
  return Math.min(6 * 3600, Math.max(300, Math.ceil(timelineSeconds * 20 + 120)));
}
