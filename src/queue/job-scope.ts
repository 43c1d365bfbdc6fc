/**
 * The process-level guard against unhandled promise rejections in jobs. Each job runs inside a
 * scope ({@link runInJobScope}, an `AsyncLocalStorage` store); a rejection nobody handles is
 * reported by Node in the async context of the promise chain that rejected it, so the guard
 * ({@link installUnhandledRejectionGuard}) finds the job it came from, logs it with the job's
 * id and fails that job, instead of letting Node end the process (and with it every request,
 * stream and job the process serves).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";

/** The job a piece of async work belongs to. */
export interface JobScope {
  /** What the job is, for logs: `{ job: "generation", id: "gen_…" }`. */
  labels: Record<string, string | number>;
  /** Fails the job with `err` (the first call wins). */
  fail(err: unknown): void;
}

const scopes = new AsyncLocalStorage<JobScope>();

/** Error a job fails with when work of it rejected without a handler. */
export class UnhandledJobRejection extends Error {
  readonly reason: unknown;
  constructor(reason: unknown) {
    super(`unhandled rejection in the job: ${reason instanceof Error ? reason.message : String(reason)}`, {
      cause: reason,
    });
    this.name = "UnhandledJobRejection";
    this.reason = reason;
  }
}

/**
 * Runs `fn` as job work labelled `labels`: resolves or rejects as `fn` does, and rejects with
 * an {@link UnhandledJobRejection} as soon as any promise of the job's async work rejects
 * unhandled (when the guard is installed). `onFail` runs first then, e.g. to abort the job's
 * work; `fn`'s own result is ignored after that.
 */
export function runInJobScope<T>(
  labels: JobScope["labels"],
  fn: () => Promise<T>,
  onFail?: (err: UnhandledJobRejection) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let failed = false;
    const scope: JobScope = {
      labels,
      fail(reason) {
        if (failed) return;
        failed = true;
        const err = new UnhandledJobRejection(reason);
        onFail?.(err);
        reject(err);
      },
    };
    scopes.run(scope, () => {
      fn().then(
        (value) => (failed ? undefined : resolve(value)),
        (err: unknown) => (failed ? undefined : reject(err)),
      );
    });
  });
}

/** The scope of the async work running now, if it belongs to a job. */
export function currentJobScope(): JobScope | undefined {
  return scopes.getStore();
}

let installed: ((reason: unknown) => void) | null = null;

/**
 * Installs the process's `unhandledRejection` handler (once; later calls change nothing): a
 * rejection inside a job scope is logged at error level with the job's labels and fails that
 * job. One outside any job is logged as fatal and, with `exitOutsideJobs` (the default), ends
 * the process as Node would (exit code 1), since its state is unknown.
 * @returns a function that removes the handler.
 */
export function installUnhandledRejectionGuard(
  log: Logger,
  opts: { exitOutsideJobs?: boolean } = {},
): () => void {
  if (!installed) {
    const handler = (reason: unknown) => {
      const scope = currentJobScope();
      if (scope) {
        log.error({ ...scope.labels, err: reason }, "unhandled rejection in a job; the job fails");
        scope.fail(reason);
        return;
      }
      log.fatal({ err: reason }, "unhandled rejection outside any job");
      if (opts.exitOutsideJobs ?? true) {
        process.exitCode = 1;
        setImmediate(() => process.exit(1));
      }
    };
    installed = handler;
    process.on("unhandledRejection", handler);
  }
  const handler = installed;
  return () => {
    process.off("unhandledRejection", handler);
    if (installed === handler) installed = null;
  };
}
