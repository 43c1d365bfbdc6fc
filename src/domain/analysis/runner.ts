/**
 * Where an analysis runs: small inputs inline on the caller's thread (no copying, lowest
 * latency), larger ones on a pool of worker threads (piscina) with a time budget, so that
 * no input the API accepts holds the event loop for long.
 */
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { AppError, payloadTooLarge } from "../../errors.ts";
import { ANALYSES, type AnalysisName, type ThreadResult } from "./thread.ts";

/** How analyses are run (see the README's configuration table). */
export interface AnalysisRunnerOptions {
  /** Worker threads for large inputs (≥ 1). */
  threads: number;
  /** Inputs with at most this many characters of text run inline. */
  inlineMaxChars: number;
  /** A threaded analysis still running after this many seconds is stopped (413). */
  timeoutSec: number;
  /** Threaded analyses waiting for a thread beyond this many are refused (503). */
  maxQueue: number;
}

/** Runs analysis functions by name; `close` ends the threads. */
export interface AnalysisRunner {
  run<N extends AnalysisName>(name: N, input: unknown): Promise<ReturnType<(typeof ANALYSES)[N]>>;
  close(): Promise<void>;
}

/**
 * Characters of transcript text in an analysis body (`transcript` as a string, or the
 * `text` of each segment of `transcript` or `subtitles`); 0 for anything else. Linear in
 * the number of segments.
 */
export function textSize(input: unknown): number {
  if (typeof input !== "object" || input === null) return 0;
  const body = input as { transcript?: unknown; subtitles?: unknown };
  const t = body.transcript ?? body.subtitles;
  if (typeof t === "string") return t.length;
  if (!Array.isArray(t)) return 0;
  let n = 0;
  for (const s of t) {
    const text = (s as { text?: unknown } | null)?.text;
    if (typeof text === "string") n += text.length + 1;
  }
  return n;
}

const THREAD_FILE = fileURLToPath(new URL("./thread.ts", import.meta.url));

/**
 * Creates a runner. The thread pool starts on the first large input (each thread loads the
 * language model once, ≈ 100 ms and ≈ 60 MB).
 *
 * `run` rejects with AppError 400 (the function's own validation errors), 413
 * `payload_too_large` when a threaded analysis exceeds `timeoutSec` (its thread is ended),
 * or 503 `unavailable` when `maxQueue` analyses already wait for a thread.
 */
export function createAnalysisRunner(opts: AnalysisRunnerOptions): AnalysisRunner {
  let pool: Piscina | undefined;
  const poolOf = () => {
    pool ??= new Piscina({
      filename: THREAD_FILE,
      minThreads: 0,
      maxThreads: opts.threads,
      maxQueue: opts.maxQueue,
      idleTimeout: 60_000,
    });
    return pool;
  };
  return {
    async run(name, input) {
      if (textSize(input) <= opts.inlineMaxChars) {
        return (ANALYSES[name] as (i: unknown) => ReturnType<(typeof ANALYSES)[typeof name]>)(input);
      }
      const p = poolOf();
      if (p.queueSize >= opts.maxQueue) {
        throw new AppError("unavailable", "Too many large analyses are waiting; retry shortly", {
          headers: { "Retry-After": "5" },
        });
      }
      const signal = AbortSignal.timeout(opts.timeoutSec * 1000);
      let result: ThreadResult;
      try {
        result = (await p.run({ name, input }, { signal })) as ThreadResult;
      } catch (err) {
        if (signal.aborted) {
          throw payloadTooLarge(
            `The analysis of this transcript took longer than ${opts.timeoutSec} s and was stopped; send a shorter transcript or one in several parts`,
          );
        }
        throw err;
      }
      if (!result.ok) {
        const { code, message, details } = result.error;
        throw new AppError(code, message, details ? { details } : {});
      }
      return result.output as ReturnType<(typeof ANALYSES)[typeof name]>;
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
