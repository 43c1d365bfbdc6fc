/**
 * The fenced-attempt runner: one attempt of a job whose state lives in a database row (a
 * render, a generation…), with the guarantees pg-boss alone does not give (it does not stop
 * a running handler on cancel or expiry, and a lost worker's handler may still be running
 * when the retry starts):
 * - claim: the row's `attempt` is incremented (the fence) and the row becomes active;
 * - a control loop heartbeats the row, flushes progress and aborts the pipeline when the
 *   resource is being cancelled or a newer attempt owns it;
 * - every write is fenced by attempt, so a superseded attempt changes nothing;
 * - progress never goes backwards, even across attempts;
 * - non-retryable failures (and the last attempt's) end the row as `failed`; retryable ones
 *   are thrown so that pg-boss retries the job, and dead-letters it when retries run out.
 *
 * The resource is reached only through a {@link ResourceLifecycle} adapter, so any table
 * with a status, an `attempt` counter and a progress column can plug in.
 */
import type { Logger } from "pino";
import { runInJobScope, UnhandledJobRejection } from "./job-scope.ts";

/** What a running attempt learns from its resource's row. */
export type AttemptControl = "ok" | "cancelling" | "superseded";

/** Progress of an attempt: `ratio` 0..1 of the whole job, `detail` job-specific (phase, speed…). */
export interface AttemptProgress {
  ratio: number;
  detail?: Record<string, unknown>;
}

/** A failure as stored on the resource (`error` column). */
export interface AttemptErrorJson {
  code: string;
  message: string;
  retryable: boolean;
  [extra: string]: unknown;
}

/** How an attempt ends, as the lifecycle writes it. */
export type AttemptEnd<Output, Warning> =
  | { status: "succeeded"; output: Output; warnings: Warning[] }
  | { status: "failed"; error: AttemptErrorJson; warnings: Warning[] }
  | { status: "cancelled" };

/**
 * The adapter between the runner and one resource table. Every method with an `attempt`
 * is fenced: it applies only while the row is still on that attempt.
 */
export interface ResourceLifecycle<Row extends { attempt: number }, Output, Warning = unknown> {
  /**
   * Claims the resource for a new attempt: increments `attempt`, moves a queued or active row
   * to its first active status and sets its heartbeat.
   * @returns the claimed row (with the new attempt), or null when there is nothing to do
   *   (gone, terminal, or being cancelled).
   */
  claim(id: string): Promise<Row | null>;
  /** Reads whether `attempt` still owns the resource and whether a cancel is pending. */
  readControl(id: string, attempt: number): Promise<AttemptControl>;
  /**
   * Heartbeat: writes the heartbeat time and `progress` while `attempt` owns the active row.
   * @returns the control state (`superseded` when the write did not apply and no cancel is pending).
   */
  heartbeat(id: string, attempt: number, progress: AttemptProgress): Promise<AttemptControl>;
  /**
   * Final write of `attempt`: `succeeded`/`failed` apply only to an active row, `cancelled`
   * only to a row being cancelled. Sets the finish time.
   * @returns false when the row moved on (nothing written).
   */
  finish(
    id: string,
    attempt: number,
    end: AttemptEnd<Output, Warning>,
    progress: AttemptProgress,
  ): Promise<boolean>;
  /**
   * Ends the resource whatever attempt owns it (its worker is gone): a row being cancelled
   * becomes `cancelled`; with an `error`, a queued or active row becomes `failed` with it.
   * @returns whether a row changed.
   */
  abandon(id: string, error: AttemptErrorJson | null): Promise<boolean>;
  /** Deletes a finished output nobody will see (the resource was cancelled meanwhile). */
  discardOutput?(id: string, output: Output): Promise<void>;
  /** Progress ratio already reached by earlier attempts (default 0). */
  initialProgress?(row: Row): number;
  /** Warnings already recorded by earlier attempts (default none). */
  initialWarnings?(row: Row): Warning[];
}

/** What the pipeline of one attempt is given. */
export interface AttemptContext<Warning = unknown> {
  /** The attempt number (1 = first): part of every fenced write and of work-directory names. */
  attempt: number;
  /** Aborted when the resource is cancelled or a newer attempt took it over: stop and throw. */
  signal: AbortSignal;
  /**
   * Reports progress, 0..1 of the whole job (clamped; never goes backwards). Written with the
   * next heartbeat. `detail` (job-specific, e.g. `{ phase, speed }`) replaces the last one.
   */
  progress(ratio: number, detail?: Record<string, unknown>): void;
  /** Records a warning, stored on the resource when the attempt ends. */
  warn(warning: Warning): void;
  /** Logger bound to the resource id and attempt. */
  log: Logger;
}

/**
 * Does the work of one attempt and returns the output. Must throw (and leave nothing behind)
 * when it fails or its signal is aborted.
 */
export type AttemptPipeline<Row, Output, Warning = unknown> = (
  row: Row,
  ctx: AttemptContext<Warning>,
) => Promise<Output>;

/** How a thrown error is stored and whether another attempt may help. */
export interface DescribedFailure {
  error: AttemptErrorJson;
  retryable: boolean;
  /** An unexpected error (a bug, not a typed failure): logged with its stack. */
  unexpected?: boolean;
}

/** Options of {@link runAttempt}. */
export interface RunAttemptDeps<Row extends { attempt: number }, Output, Warning> {
  lifecycle: ResourceLifecycle<Row, Output, Warning>;
  pipeline: AttemptPipeline<Row, Output, Warning>;
  /** Maps anything the pipeline throws to the stored error and its retryability. */
  describeError(err: unknown): DescribedFailure;
  log: Logger;
  /** Attempts in all (pg-boss's retryLimit + 1): the last one ends the resource as `failed`. */
  maxAttempts: number;
  /** Control loop period, milliseconds (default 500). */
  pollMs?: number;
}

/** What one attempt did, for logs and tests. */
export type AttemptOutcome = "succeeded" | "failed" | "cancelled" | "superseded" | "skipped" | "handed_off";

/**
 * Thrown by a pipeline that handed the rest of the resource's work to other jobs (which it
 * sent, fenced by its attempt, in the same transaction as the resource's new state): the
 * attempt ends without a final write and the resource stays active for those jobs.
 */
export class AttemptHandedOff extends Error {
  constructor(what: string) {
    super(`handed off: ${what}`);
    this.name = "AttemptHandedOff";
  }
}

/**
 * Error thrown by {@link runAttempt} for a retryable failure with attempts left: pg-boss
 * fails the job and retries it.
 */
export class RetryableAttemptError extends Error {
  readonly failure: AttemptErrorJson;
  constructor(failure: AttemptErrorJson) {
    super(`${failure.code}: ${failure.message}`);
    this.name = "RetryableAttemptError";
    this.failure = failure;
  }
}

/**
 * Runs one fenced attempt of resource `id` (see the module doc).
 *
 * @returns the outcome; `skipped` when nothing was claimable (then a row left being cancelled
 *   by a dead worker is ended as `cancelled`); `handed_off` when the pipeline threw
 *   {@link AttemptHandedOff}.
 * @throws RetryableAttemptError for a retryable failure while attempts are left.
 */
export async function runAttempt<Row extends { attempt: number }, Output, Warning>(
  deps: RunAttemptDeps<Row, Output, Warning>,
  id: string,
): Promise<AttemptOutcome> {
  const { lifecycle } = deps;
  const claimed = await lifecycle.claim(id);
  if (!claimed) {
    await lifecycle.abandon(id, null);
    return "skipped";
  }
  const attempt = claimed.attempt;
  const log = deps.log.child({ resourceId: id, attempt });
  const controller = new AbortController();
  const warnings: Warning[] = [...(lifecycle.initialWarnings?.(claimed) ?? [])];
  let ratio = clamp(lifecycle.initialProgress?.(claimed) ?? 0);
  let detail: Record<string, unknown> | undefined;
  const progress = (): AttemptProgress => (detail ? { ratio, detail } : { ratio });
  const abort = (reason: Exclude<AttemptControl, "ok">) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };

  let tick: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    tick = tick.then(async () => {
      if (controller.signal.aborted) return;
      try {
        const control = await lifecycle.heartbeat(id, attempt, progress());
        if (control !== "ok") abort(control);
      } catch (err) {
        log.warn({ err }, "attempt control loop failed; will retry");
      }
    });
  }, deps.pollMs ?? 500);
  const stopLoop = async () => {
    clearInterval(timer);
    await tick;
  };

  const ctx: AttemptContext<Warning> = {
    attempt,
    signal: controller.signal,
    progress(next, nextDetail) {
      ratio = Math.max(ratio, clamp(next));
      if (nextDetail) detail = nextDetail;
    },
    warn(w) {
      warnings.push(w);
    },
    log,
  };
  const finish = (end: AttemptEnd<Output, Warning>, final: AttemptProgress) =>
    lifecycle.finish(id, attempt, end, final);

  let output: Output;
  try {
    // A rejection of the pipeline's work that nobody handles fails this attempt (and aborts
    // the pipeline) instead of the process.
    output = await runInJobScope(
      { resourceId: id, attempt },
      () => deps.pipeline(claimed, ctx),
      () => {
        if (!controller.signal.aborted) controller.abort("crashed");
      },
    );
  } catch (err) {
    await stopLoop();
    if (err instanceof AttemptHandedOff) {
      log.info(err.message);
      return "handed_off";
    }
    // Aborted by the loop, or failed because the row moved on (a fenced write by the pipeline).
    const control: AttemptControl =
      err instanceof UnhandledJobRejection
        ? "ok"
        : controller.signal.aborted
          ? (controller.signal.reason as AttemptControl)
          : await lifecycle.readControl(id, attempt).catch(() => "ok" as const);
    if (control === "cancelling") {
      await finish({ status: "cancelled" }, progress());
      log.info("attempt cancelled");
      return "cancelled";
    }
    if (control === "superseded") {
      log.warn("attempt superseded by a newer attempt; stopped");
      return "superseded";
    }
    const failure = deps.describeError(err);
    if (failure.unexpected) log.error({ err }, "attempt crashed");
    if (failure.retryable && attempt < deps.maxAttempts) {
      log.warn({ code: failure.error.code }, "retryable failure; the queue will retry");
      throw new RetryableAttemptError(failure.error);
    }
    if (await finish({ status: "failed", error: failure.error, warnings }, progress())) return "failed";
    // A cancel arrived meanwhile.
    return (await finish({ status: "cancelled" }, progress())) ? "cancelled" : "superseded";
  }

  await stopLoop();
  if (await finish({ status: "succeeded", output, warnings }, { ratio: 1, ...(detail ? { detail } : {}) })) {
    return "succeeded";
  }
  // Cancelled (or superseded) after the output was made: nobody will see it.
  log.info("attempt finished after cancellation; output discarded");
  await lifecycle
    .discardOutput?.(id, output)
    .catch((err: unknown) => log.warn({ err }, "discarding output failed"));
  return (await finish({ status: "cancelled" }, progress())) ? "cancelled" : "superseded";
}

/** The failure stored when every attempt's worker stopped responding. */
export function workerLostError(what: string): AttemptErrorJson {
  return {
    code: "WORKER_LOST",
    message: `The worker running this ${what} stopped responding on every attempt`,
    retryable: true,
  };
}

function clamp(ratio: number): number {
  return Number.isFinite(ratio) ? Math.max(0, Math.min(1, ratio)) : 0;
}
