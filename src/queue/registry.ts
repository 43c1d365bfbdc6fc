/**
 * The typed job registry: a job kind is a queue name, a payload type and a policy (retries,
 * heartbeat, dead letter, expiry); a process that works jobs gives one handler per kind, and
 * start-up fails when a queue has none.
 */
import type { Job, PgBoss } from "pg-boss";
import { jobDuration } from "../metrics/process-metrics.ts";
import { runInJobScope } from "./job-scope.ts";

/** Retry, heartbeat, dead-letter and expiry policy of a job kind's queue. */
export interface JobPolicy {
  /** Retries after a failed attempt (a lost worker or a retryable failure). */
  retryLimit: number;
  /** Seconds before a retry. */
  retryDelay: number;
  /** pg-boss fails a job whose worker missed heartbeats this long (≥ 10 s); unset = no heartbeat. */
  heartbeatSeconds?: number;
  /** Expiry of one attempt when the sender gives none, seconds. */
  expireInSeconds?: number;
  /**
   * Whether jobs whose retries ran out go to a dead-letter queue (`<name>_dead`), whose handler
   * ends the resource (e.g. `failed` with `WORKER_LOST`).
   */
  deadLetter: boolean;
}

/** A job kind: queue name, payload type (`P`, type only) and policy. */
export interface JobDefinition<P extends object> {
  name: string;
  policy: JobPolicy;
  /** Type carrier only: never set. */
  readonly payload?: P;
}

/** The payload type of a job definition. */
export type PayloadOf<D> = D extends JobDefinition<infer P> ? P : never;

/** Declares a job kind (see {@link JobDefinition}). */
export function defineJob<P extends object>(name: string, policy: JobPolicy): JobDefinition<P> {
  return { name, policy };
}

/** The dead-letter queue of a job kind, or undefined when it has none. */
export function deadLetterQueue(def: JobDefinition<object>): string | undefined {
  return def.policy.deadLetter ? `${def.name}_dead` : undefined;
}

/** How one process works one job kind. */
export interface JobHandler<P extends object> {
  /**
   * Runs one attempt; may resolve with what happened (a short word such as `succeeded`, the
   * outcome label of `cutroom_job_duration_seconds`). Throwing fails the job (pg-boss retries
   * it within the policy).
   */
  run(data: P, job: { id: string; retryCount: number }): Promise<string | undefined>;
  /** Runs for a job whose retries ran out (required when the policy has a dead letter). */
  deadLetter?(data: P): Promise<void>;
  /** Jobs of this kind run at once in this process (default 1). */
  concurrency?: number;
  /**
   * Queue polling period, seconds (default 0.5), when pg-boss cannot listen for NOTIFY; with
   * NOTIFY, sends wake idle workers at once and polling runs every `NOTIFY_BACKSTOP_SECONDS`
   * at least, the backstop for jobs that become due later (retries after their delay) and lost
   * wake-ups. After each job the queue's first worker in this process fetches again at once.
   */
  pollingIntervalSeconds?: number;
  /**
   * The kind of job that waits for jobs of this kind in a pg-boss flow (`dependsOn`). When an
   * attempt returns, the job is completed at once, pg-boss resolves flows at once
   * (`resolveFlow`) and this process's idle worker of `unblocks` fetches at once
   * (`notifyWorker`): the dependent job starts without waiting for the background flow pass
   * (`flowIntervalSeconds`) and the next poll, which stay the backstop (e.g. when another
   * process completed the last job it waited for).
   */
  unblocks?: JobDefinition<object>;
}

/** One handler for each job kind of `Defs`. */
export type JobHandlers<Defs extends Record<string, JobDefinition<object>>> = {
  [K in keyof Defs]: JobHandler<PayloadOf<Defs[K]>>;
};

/**
 * Polling period (seconds) of a queue while pg-boss's LISTEN/NOTIFY is active for it: a send
 * wakes idle workers at once, so polling only catches jobs that become due later (a retry after
 * its delay, a delayed webhook try) and lost wake-ups, which start within this long of their
 * time. Without NOTIFY (an adapter or a pooler that cannot listen) the handler's
 * `pollingIntervalSeconds` applies. Polling seven queues every 0.5 s cost an idle worker and
 * PostgreSQL about 0.4 CPU s every 20 s: on a two-core machine that time is taken from renders.
 */
const NOTIFY_BACKSTOP_SECONDS = 2;

/** A job id no job has: reading it loads a queue into pg-boss's cache. */
const NO_JOB = "00000000-0000-0000-0000-000000000000";

/**
 * Creates (idempotently) the queue of each job kind and its dead-letter queue, applies the
 * kind's current policy to a queue an older version created, then loads them into pg-boss's
 * queue cache: a send inside an application transaction then runs entirely on that transaction
 * (on PGlite, the only connection, a cache miss would wait for it forever).
 *
 * Every queue has pg-boss's `notify` on: sending a job issues a `NOTIFY` in the sender's
 * transaction, which wakes idle workers of the queue in every process at commit (when the
 * instance listens, see `startQueue`), instead of at their next poll.
 */
export async function createJobQueues(
  boss: PgBoss,
  defs: Record<string, JobDefinition<object>>,
): Promise<void> {
  for (const def of Object.values(defs)) {
    const dead = deadLetterQueue(def);
    if (dead) await boss.createQueue(dead);
    const { retryLimit, retryDelay, heartbeatSeconds, expireInSeconds } = def.policy;
    const options = {
      retryLimit,
      retryDelay,
      notify: true,
      ...(heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}),
      ...(expireInSeconds !== undefined ? { expireInSeconds } : {}),
      ...(dead ? { deadLetter: dead } : {}),
    };
    await boss.createQueue(def.name, options);
    await boss.updateQueue(def.name, options);
    await boss.findJobs(def.name, { id: NO_JOB });
  }
}

/**
 * The start-up check: every job kind has a handler, with a dead-letter handler when its
 * policy has a dead letter, and no handler names an unknown kind.
 * @throws Error listing every problem.
 */
export function checkJobHandlers(
  defs: Record<string, JobDefinition<object>>,
  handlers: Record<string, JobHandler<never> | undefined>,
): void {
  const problems: string[] = [];
  for (const [kind, def] of Object.entries(defs)) {
    const handler = handlers[kind];
    if (!handler) problems.push(`queue "${def.name}" has no handler`);
    else if (def.policy.deadLetter && !handler.deadLetter)
      problems.push(`queue "${deadLetterQueue(def)}" has no dead-letter handler`);
  }
  for (const kind of Object.keys(handlers)) {
    if (!(kind in defs)) problems.push(`handler "${kind}" names no job kind`);
  }
  if (problems.length > 0) throw new Error(`Job registry: ${problems.join("; ")}`);
}

/**
 * Runs `work` and records its duration on `cutroom_job_duration_seconds` under `kind` and the
 * outcome it resolves with (`completed` when none, `error` when it throws).
 */
async function timed(kind: string, work: () => Promise<string | undefined>): Promise<void> {
  const end = jobDuration.startTimer({ kind });
  let outcome = "error";
  try {
    outcome = (await work()) || "completed";
  } finally {
    end({ outcome });
  }
}

/**
 * Checks the handlers ({@link checkJobHandlers}) and makes this process work every job kind
 * of `defs` (one job per handler call) and every dead-letter queue. Every attempt is timed
 * on `cutroom_job_duration_seconds` by kind (queue name) and outcome; a dead-letter handler
 * run counts as outcome `dead_letter` of its kind.
 *
 * @returns a function that stops taking jobs and waits for running ones (graceful shutdown).
 * @throws Error when a queue has no handler.
 */
export async function startJobWorkers<Defs extends Record<string, JobDefinition<object>>>(
  boss: PgBoss,
  defs: Defs,
  handlers: JobHandlers<Defs>,
): Promise<() => Promise<void>> {
  checkJobHandlers(defs, handlers as Record<string, JobHandler<never>>);
  const queues: string[] = [];
  /** The first worker of each queue this process works (`boss.work`'s id), for `unblocks`. */
  const workerIds = new Map<string, string>();
  /** Completes `job` now, resolves flows and wakes this process's worker of `unblocks`. */
  const completeAndUnblock = async (name: string, job: Job<object>, unblocks: JobDefinition<object>) => {
    // Fenced by the attempt: a job that was failed and retried meanwhile stays as it is. pg-boss's
    // own completion after the handler then finds the job completed and changes nothing.
    await boss.complete(name, { id: job.id, retryCount: job.retryCount });
    await boss.resolveFlow();
    const waiting = workerIds.get(unblocks.name);
    if (waiting) boss.notifyWorker(waiting);
  };
  for (const kind of Object.keys(defs) as (keyof Defs & string)[]) {
    const def = defs[kind] as JobDefinition<object>;
    const handler = handlers[kind] as JobHandler<object>;
    const polling = handler.pollingIntervalSeconds ?? 0.5;
    const unblocks = handler.unblocks;
    const workerId = await boss.work<object>(
      def.name,
      {
        batchSize: 1,
        localConcurrency: handler.concurrency ?? 1,
        pollingIntervalSeconds: polling,
        notifyPollingIntervalSeconds: Math.max(polling, NOTIFY_BACKSTOP_SECONDS),
      },
      async ([job]: Job<object>[]) => {
        if (!job) return;
        // An unhandled rejection in the job fails the job (pg-boss retries it within the
        // policy), not the process.
        await runInJobScope({ job: def.name, jobId: job.id }, () =>
          timed(def.name, async () => {
            const outcome = await handler.run(job.data, { id: job.id, retryCount: job.retryCount });
            // Best effort: pg-boss completes the job after the handler anyway, and its flow pass
            // unblocks the dependent job within `flowIntervalSeconds`.
            if (unblocks) await completeAndUnblock(def.name, job, unblocks).catch(() => {});
            // Fetch again at once: a queue that holds more jobs (a split render's parts, sent
            // together) would otherwise wait out the NOTIFY backstop after every short job.
            const self = workerIds.get(def.name);
            if (self) boss.notifyWorker(self);
            return outcome;
          }),
        );
      },
    );
    workerIds.set(def.name, workerId);
    queues.push(def.name);
    const dead = deadLetterQueue(def);
    const onDead = handler.deadLetter;
    if (dead && onDead) {
      await boss.work<object>(dead, { pollingIntervalSeconds: 2 }, async ([job]: Job<object>[]) => {
        if (job)
          await timed(def.name, async () => {
            await onDead(job.data);
            return "dead_letter";
          });
      });
      queues.push(dead);
    }
  }
  return async () => {
    for (const name of queues) await boss.offWork(name, { wait: true });
  };
}
