import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FfmpegProgress, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { dedupeWarnings, type RenderPlan } from "./plan.ts";
import type { SplitRenderPlan } from "./segments.ts";
import type { RenderWarning } from "./types.ts";
import { writePlanFiles } from "./write-plan-files.ts";

/** Options of {@link renderSplit}. */
export interface RenderSplitOptions {
  /** Working directory of every part (created when missing; the caller deletes it afterwards). */
  workDir: string;
  /** ffmpeg runs at once (video segments and the audio), at least 1. Default 2. */
  concurrency?: number;
  /** Aborting stops every running part (see `runFfmpeg`). */
  signal?: AbortSignal;
  /** Share of the render done, 0..1, never going backwards: parts weighted by their output length, the join last. */
  onProgress?: (ratio: number) => void;
  /** Per-part stall timeout of `runFfmpeg` (ms). */
  stallTimeoutMs?: number;
}

/**
 * Runs a split render on this machine: writes every part's files into `workDir`, renders the
 * video segments and the audio with at most `concurrency` ffmpeg processes at once, then joins
 * them by stream copy into `plan.join`'s output. The first failing part aborts the others and
 * its error is thrown once they have exited. Returns the warnings of the plan and of its files
 * (`GLYPH_MISSING`), each once.
 *
 * @throws FfmpegError of the first part (or the join) that failed or was aborted.
 */
export async function renderSplit(
  plan: SplitRenderPlan,
  options: RenderSplitOptions,
): Promise<RenderWarning[]> {
  const { workDir } = options;
  const parts: RenderPlan[] = [...plan.segments.map((s) => s.plan), plan.audio.plan];
  const fileWarnings: RenderWarning[] = [];
  for (const part of parts) fileWarnings.push(...(await writePlanFiles(part, workDir)));
  for (const file of plan.join.files) await writeFile(join(workDir, file.path), file.content, "utf8");

  // The join is a stream copy: weigh it like a small part.
  const weights = parts.map((p) => p.durationSec);
  const total = weights.reduce((a, b) => a + b, 0) * 1.05;
  const done = parts.map(() => 0);
  let reported = 0;
  const report = (ratio: number) => {
    if (ratio <= reported) return;
    reported = ratio;
    options.onProgress?.(ratio);
  };
  const partProgress = (i: number) => (p: FfmpegProgress) => {
    done[i] = p.ratio * (weights[i] ?? 0);
    report(done.reduce((a, b) => a + b, 0) / total);
  };

  const abort = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < parts.length && failure === undefined) {
      const i = next++;
      const part = parts[i] as RenderPlan;
      try {
        await runFfmpeg({
          args: part.args,
          cwd: workDir,
          durationSec: part.durationSec,
          signal,
          onProgress: partProgress(i),
          ...(options.stallTimeoutMs ? { stallTimeoutMs: options.stallTimeoutMs } : {}),
        });
      } catch (error) {
        if (failure === undefined) failure = error;
        abort.abort();
      }
    }
  };
  const width = Math.max(1, Math.min(options.concurrency ?? 2, parts.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (failure !== undefined) throw failure;

  await runFfmpeg({
    args: plan.join.args,
    cwd: workDir,
    durationSec: plan.durationSec,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.stallTimeoutMs ? { stallTimeoutMs: options.stallTimeoutMs } : {}),
  });
  report(1);
  return dedupeWarnings([...plan.warnings, ...fileWarnings]);
}
