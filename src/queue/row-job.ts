/**
 * The one lifecycle of the job kinds whose state lives in a row that `DELETE` cancels at once
 * (generations, transcriptions, auto-edits): claim the row, heartbeat it, end it as `succeeded`
 * or `failed` with its end event in the same transaction, fail it with `worker_lost` when its
 * retries ran out, and the pg-boss handler around the fenced-attempt runner. A kind brings only
 * its table, its work and its own columns and announcements ({@link RowJob}); and the
 * work-directory owner for the sweep.
 */
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import {
  type AttemptControl,
  type AttemptErrorJson,
  type AttemptOutcome,
  type AttemptPipeline,
  type AttemptProgress,
  type DescribedFailure,
  type ResourceLifecycle,
  runAttempt,
} from "./attempt-runner.ts";
import type { JobDefinition, JobHandler } from "./registry.ts";
import type { WorkDirOwner } from "./work-dir-sweep.ts";

/** Statuses of a resource cancelled at once by `DELETE` (no `cancelling` state). */
type ImmediateCancelStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

/** The columns the shared lifecycle writes on every row job's table. */
export interface RowJobColumns {
  status?: "succeeded" | "failed";
  /** 0..1 of the whole job. */
  progress?: number;
  error?: { code: string; message: string } | null;
  finishedAt?: Date;
  heartbeatAt?: Date;
}

/**
 * A row job's table, through its repository. `Columns` are the table's writable columns
 * (its insert type): a kind's own columns are a part of them.
 */
export interface RowJobTable<Row, Columns> {
  /** Claims a queued or running row for a new attempt (the fence); null when terminal or gone. */
  claim(db: Db, id: string, now: Date): Promise<Row | null>;
  /** Status and attempt of the row, or null when it is gone. */
  readControl(db: Db, id: string): Promise<{ status: ImmediateCancelStatus; attempt: number } | null>;
  findById(db: Db, id: string): Promise<Row | null>;
  /** Write by attempt `attempt` of the running row; false when the attempt lost it. */
  updateFenced(
    db: Db,
    input: { id: string; attempt: number; set: RowJobColumns & Partial<Columns> },
  ): Promise<boolean>;
  /** Fails a queued or running row whatever attempt owns it; false when none changed. */
  failUnfenced(
    db: Db,
    input: { id: string; error: { code: string; message: string }; now: Date },
  ): Promise<boolean>;
}

/** How a row job ended, for what a kind does once the end has committed. */
export interface RowJobEnd {
  status: "succeeded" | "failed" | "cancelled";
  /** The error code of a failed end; empty otherwise. */
  code: string;
}

/** A row of a row job's table. */
type RowJobRow = { attempt: number; progress: number | null };

/**
 * What one job kind brings to the shared lifecycle: its table, its work and its presentation.
 * @typeParam P - the job's payload; `Columns` the table's writable columns (its insert type).
 */
export interface RowJob<P extends object, Row extends RowJobRow, Output, Warning, Columns> {
  /**
   * The job kind of the catalog: its name is the resource's in logs (`autoedit`: field
   * `autoeditId`), its retry limit + 1 the attempts in all.
   */
  kind: JobDefinition<P>;
  /** The row id a job's payload points at. */
  idOf(data: P): string;
  /** The resource's name in the `worker_lost` message (`auto-edit`). */
  noun: string;
  table: RowJobTable<Row, Columns>;
  /** The work of one attempt. */
  run: AttemptPipeline<Row, Output, Warning>;
  /** Maps what `run` throws to the stored error and whether another attempt may help. */
  describeError(err: unknown): DescribedFailure;
  /** The kind's own columns of a `succeeded` end (e.g. `result`). */
  succeeded(output: Output, warnings: Warning[]): Partial<Columns>;
  /** The kind's own columns of a `failed` end (default none). */
  failed?(warnings: Warning[]): Partial<Columns>;
  /** The kind's own columns written with each heartbeat (default none). */
  heartbeat?(progress: AttemptProgress): Partial<Columns>;
  /** Records the end (its webhook event) in the transaction of the write that ended the row. */
  recordEnd?: ((tx: Db, row: Row) => Promise<void>) | undefined;
  /** Runs once an end (cancelled included) has committed: wakes waiters, counts outcomes. */
  afterEnd?(id: string, end: RowJobEnd): Promise<void>;
  /** Deletes an output nobody will see (the row was cancelled meanwhile). */
  discardOutput?(id: string, output: Output): Promise<void>;
  /** Warnings already recorded by earlier attempts (default none). */
  initialWarnings?(row: Row): Warning[];
}

/**
 * The control read of a resource that `DELETE` makes `cancelled` at once: a running attempt
 * reads `cancelled` as "being cancelled" (its final `cancelled` write is already done).
 * @param read - status and attempt of the row, or null when it is gone.
 */
function immediateCancelControl(
  read: (id: string) => Promise<{ status: ImmediateCancelStatus; attempt: number } | null>,
): (id: string, attempt: number) => Promise<AttemptControl> {
  return async (id, attempt) => {
    const row = await read(id);
    if (!row || row.attempt !== attempt) return "superseded";
    if (row.status === "cancelled") return "cancelling";
    return row.status === "running" ? "ok" : "superseded";
  };
}

/** The `worker_lost` error of a resource whose worker stopped responding on every attempt. */
function workerLostError(noun: string): AttemptErrorJson {
  return {
    code: "worker_lost",
    message: `The worker running this ${noun} stopped responding on every attempt`,
    retryable: true,
  };
}

/** What a row job's lifecycle runs on (a kind's pipeline dependencies have these). */
export interface RowJobDeps {
  db: Db;
  clock: Clock;
}

/**
 * A row job's table as a {@link ResourceLifecycle}: `DELETE` makes the row `cancelled` at once,
 * so a running attempt reads `cancelled` as "being cancelled" and its final `cancelled` write is
 * already done. Every write that ends the row records the kind's end event in its transaction;
 * `afterEnd` runs once it committed.
 */
export function rowJobLifecycle<P extends object, Row extends RowJobRow, Output, Warning, Columns>(
  job: RowJob<P, Row, Output, Warning, Columns>,
  deps: RowJobDeps,
): ResourceLifecycle<Row, Output, Warning> {
  const { db, clock } = deps;
  const { table } = job;
  const readControl = immediateCancelControl((id) => table.readControl(db, id));
  const end = async (id: string, how: RowJobEnd, write: (tx: Db) => Promise<boolean>) => {
    const ok = await db.transaction(async (tx) => {
      if (!(await write(tx))) return false;
      if (job.recordEnd) {
        const row = await table.findById(tx, id);
        if (row) await job.recordEnd(tx, row);
      }
      return true;
    });
    if (ok) await job.afterEnd?.(id, how);
    return ok;
  };
  return {
    claim: (id) => table.claim(db, id, clock.now()),
    readControl,
    async heartbeat(id, attempt, progress) {
      const own: Partial<Columns> = job.heartbeat?.(progress) ?? {};
      const ok = await table.updateFenced(db, {
        id,
        attempt,
        set: { heartbeatAt: clock.now(), progress: progress.ratio, ...own },
      });
      return ok ? "ok" : readControl(id, attempt);
    },
    async finish(id, attempt, ended, progress) {
      if (ended.status === "cancelled") {
        const ok = (await readControl(id, attempt)) === "cancelling";
        if (ok) await job.afterEnd?.(id, { status: "cancelled", code: "" });
        return ok;
      }
      let set: RowJobColumns & Partial<Columns>;
      if (ended.status === "succeeded") {
        const own = job.succeeded(ended.output, ended.warnings);
        set = { status: "succeeded", progress: 1, error: null, finishedAt: clock.now(), ...own };
      } else {
        const own: Partial<Columns> = job.failed?.(ended.warnings) ?? {};
        const error = { code: ended.error.code, message: ended.error.message };
        set = { status: "failed", progress: progress.ratio, error, finishedAt: clock.now(), ...own };
      }
      const how = { status: ended.status, code: ended.status === "failed" ? ended.error.code : "" };
      return end(id, how, (tx) => table.updateFenced(tx, { id, attempt, set }));
    },
    async abandon(id, error) {
      if (!error) return false;
      return end(id, { status: "failed", code: error.code }, (tx) =>
        table.failUnfenced(tx, {
          id,
          error: { code: error.code, message: error.message },
          now: clock.now(),
        }),
      );
    },
    ...(job.discardOutput ? { discardOutput: job.discardOutput } : {}),
    initialProgress: (row) => row.progress ?? 0,
    ...(job.initialWarnings ? { initialWarnings: job.initialWarnings } : {}),
  };
}

/**
 * Runs one attempt of the row job `id` through the fenced-attempt runner.
 * @param opts.pipeline - the kind's pipeline dependencies (database and clock).
 * @param opts.pollMs - control loop period, milliseconds (default the runner's).
 * @param opts.maxAttempts - attempts in all, instead of the kind's.
 * @throws RetryableAttemptError for a retryable failure with attempts left (pg-boss retries).
 */
export function runRowJobAttempt<P extends object, Row extends RowJobRow, Output, Warning, Columns>(
  job: RowJob<P, Row, Output, Warning, Columns>,
  opts: { pipeline: RowJobDeps; log: Logger; pollMs?: number | undefined; maxAttempts?: number | undefined },
  id: string,
): Promise<AttemptOutcome> {
  return runAttempt(
    {
      lifecycle: rowJobLifecycle(job, opts.pipeline),
      describeError: job.describeError,
      log: opts.log.child({ [`${job.kind.name}Id`]: id }),
      maxAttempts: opts.maxAttempts ?? job.kind.policy.retryLimit + 1,
      ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
      pipeline: job.run,
    },
    id,
  );
}

/**
 * The pg-boss handler of a row job: one fenced attempt per job; a job whose retries ran out (its
 * worker kept dying) fails its row with `worker_lost` (and its end event).
 * @param opts.concurrency - jobs of this kind run at once in this process (WORKER_CONCURRENCY).
 */
export function rowJobHandler<P extends object, Row extends RowJobRow, Output, Warning, Columns>(
  job: RowJob<P, Row, Output, Warning, Columns>,
  opts: {
    pipeline: RowJobDeps;
    log: Logger;
    concurrency: number;
    pollingIntervalSeconds?: number | undefined;
  },
): JobHandler<P> {
  return {
    concurrency: opts.concurrency,
    ...(opts.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: opts.pollingIntervalSeconds }
      : {}),
    async run(data) {
      const id = job.idOf(data);
      const outcome = await runRowJobAttempt(job, opts, id);
      opts.log.info({ [`${job.kind.name}Id`]: id, outcome }, `${job.kind.name} attempt ended`);
      return outcome;
    },
    async deadLetter(data) {
      await rowJobLifecycle(job, opts.pipeline).abandon(job.idOf(data), workerLostError(job.noun));
    },
  };
}

/**
 * The work-directory owner of a job kind (`<idPrefix>_…-a<attempt>-…` directories).
 * @param readAttempts - attempt and status of each id that exists.
 * @param terminal - statuses that never change again.
 */
export function rowWorkDirs<S extends string>(
  idPrefix: string,
  readAttempts: (ids: string[]) => Promise<Map<string, { attempt: number; status: S }>>,
  terminal: readonly S[],
): WorkDirOwner {
  return {
    idPrefix,
    async readAttempts(ids) {
      const rows = await readAttempts(ids);
      return new Map(
        [...rows].map(([id, r]) => [id, { attempt: r.attempt, ended: terminal.includes(r.status) }]),
      );
    },
  };
}
