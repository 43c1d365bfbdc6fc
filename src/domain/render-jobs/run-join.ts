/**
 * Running a join's ffmpeg (`buildJoinPlan`), with the fallback its kept header space needs.
 */
import type { Logger } from "pino";
import { type RunFfmpegOptions, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { MOOV_TOO_SMALL, withFaststart } from "../render/segments.ts";

/**
 * Runs a join's ffmpeg with `options` (`buildJoinPlan`'s arguments). When ffmpeg reports that
 * the space it kept for the mp4 header was too small ({@link MOOV_TOO_SMALL}: it then exits 0
 * with a file whose header is cut), the join runs again with `+faststart` (`withFaststart`),
 * and a warning is logged with `logFields`.
 * @throws FfmpegError as `runFfmpeg` does.
 */
export async function runJoin(
  options: RunFfmpegOptions & { log: Logger; logFields?: Record<string, unknown> },
): Promise<void> {
  const { log, logFields, ...run } = options;
  let tooSmall = false;
  await runFfmpeg({
    ...run,
    onStderrLine: (line) => {
      if (MOOV_TOO_SMALL.test(line)) tooSmall = true;
      run.onStderrLine?.(line);
    },
  });
  if (!tooSmall) return;
  log.warn(
    { ...logFields },
    "the space kept for a joined mp4's header was too small: joining again with +faststart",
  );
  await runFfmpeg({ ...run, args: withFaststart(run.args) });
}
