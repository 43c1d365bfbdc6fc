/**
 * Entry of the analysis worker threads (piscina): runs one analysis function on a request
 * body and returns its output, or the client error it threw as plain data (an AppError
 * does not survive the structured clone back to the main thread).
 */
import { AppError, type ErrorCode, type ErrorDetail } from "../../errors.ts";
import { suggestBroll } from "./broll.ts";
import { detectChapters } from "./chapters.ts";
import { summarizeClip } from "./summary.ts";

/** The analysis functions a thread runs, by name. */
export const ANALYSES = {
  chapters: detectChapters,
  summary: summarizeClip,
  broll: suggestBroll,
} as const;

/** Name of an analysis function. */
export type AnalysisName = keyof typeof ANALYSES;

/** What a thread answers: the function's output, or the AppError it threw. */
export type ThreadResult =
  | { ok: true; output: unknown }
  | { ok: false; error: { code: ErrorCode; message: string; details: ErrorDetail[] | undefined } };

/** Runs `task.name` on `task.input` (piscina calls this once per task). */
export default function run(task: { name: AnalysisName; input: unknown }): ThreadResult {
  try {
    const analyse = ANALYSES[task.name] as (input: unknown) => unknown;
    return { ok: true, output: analyse(task.input) };
  } catch (err) {
    if (err instanceof AppError) {
      return { ok: false, error: { code: err.code, message: err.message, details: err.details } };
    }
    throw err;
  }
}
