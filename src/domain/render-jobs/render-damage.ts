import type { Logger } from "pino";
import { decodeDamage, inputIndexOf, isDamageLine } from "../../media/damage.ts";
import { videoFrameCount } from "../../media/frame-count.ts";
import { type PlanInput, RenderError, type RenderWarning } from "../render/index.ts";
import { dedupeWarnings } from "../render/plan.ts";
import type { AssetRef } from "./render-assets.ts";

/** Damage lines kept from one render's stderr (the first ones; later lines add nothing). */
const MAX_LINES = 50;

/** Collects the stderr lines of a render's ffmpeg that report damaged or truncated input data. */
export class DamageLog {
  readonly lines: string[] = [];
  /** Feed every stderr line (`runFfmpeg`'s `onStderrLine`). */
  readonly onLine = (line: string): void => {
    if (this.lines.length < MAX_LINES && isDamageLine(line)) this.lines.push(line);
  };
}

/**
 * Turns the damage ffmpeg reported during a successful render into `SOURCE_DAMAGED` warnings,
 * one per clip whose source is damaged or truncated in the range the render read. Lines that
 * name their input (`#N:M`) blame it directly; when some lines name none (demuxer and parser
 * messages), each other input is decoded again over the same range (`decodeDamage`) and the
 * ones that report damage are blamed. If no input can be blamed, one warning without a clip is
 * returned. The message is plain language: ffmpeg's lines go to `log` only.
 *
 * @param lines - the damage lines of the render (`DamageLog.lines`); none gives no warning
 *   and costs nothing.
 * @param inputs - the plan's media inputs (`RenderPlan.inputs`).
 * @param refsByPath - which upload each local source file is (`resolveRenderAssets`).
 * @param opts.checkTimeoutMs - time limit of each re-check decode, ms.
 */
export async function damagedSourceWarnings(
  lines: readonly string[],
  inputs: readonly PlanInput[],
  refsByPath: ReadonlyMap<string, AssetRef>,
  opts: { checkTimeoutMs: number; signal: AbortSignal; log: (blamed: Record<string, unknown>) => void },
): Promise<RenderWarning[]> {
  if (lines.length === 0) return [];
  const blamed = new Map<number, string[]>();
  const blame = (index: number, line: string) => blamed.set(index, [...(blamed.get(index) ?? []), line]);
  let unattributed = false;
  for (const line of lines) {
    const index = inputIndexOf(line);
    const byPath = inputs.find((i) => line.includes(i.path));
    if (index !== null && inputs.some((i) => i.index === index)) blame(index, line);
    else if (byPath) blame(byPath.index, line);
    else unattributed = true;
  }
  if (unattributed) {
    for (const input of inputs) {
      if (blamed.has(input.index)) continue;
      opts.signal.throwIfAborted();
      const found = await decodeDamage(input.args, { timeoutMs: opts.checkTimeoutMs, signal: opts.signal });
      for (const line of found) blame(input.index, line);
    }
  }
  opts.log({ damage: lines, blamed: Object.fromEntries(blamed) });
  if (blamed.size === 0) {
    return [
      {
        code: "SOURCE_DAMAGED",
        message:
          "A source file is damaged or truncated: the encoder skipped data it could not read, so some frames or audio may be missing or garbled",
      },
    ];
  }
  const warnings: RenderWarning[] = [];
  for (const input of inputs) {
    if (!blamed.has(input.index)) continue;
    const uploadId = refsByPath.get(input.path)?.uploadId;
    warnings.push({
      code: "SOURCE_DAMAGED",
      message: `The source of clip ${input.clipId} is damaged or truncated: the encoder skipped data it could not read, so some of its frames or audio may be missing or garbled`,
      clipId: input.clipId,
      ...(uploadId ? { uploadId } : {}),
    });
  }
  return warnings;
}

/**
 * The `SOURCE_DAMAGED` warnings of one finished ffmpeg run of a render or of a split render's
 * part ({@link damagedSourceWarnings} over `damage.lines`), logging the damage found with
 * `logFields` ("ffmpeg reported damaged source data").
 *
 * @param run.inputs - the run's plan inputs (`RenderPlan.inputs`).
 * @param run.refsByPath - which upload each local source file is (`resolveRenderAssets`).
 * @param opts.checkTimeoutMs - time limit of each re-check decode, ms.
 * @throws when `opts.signal` is aborted during a re-check.
 */
export function runDamageWarnings(
  damage: DamageLog,
  run: { inputs: readonly PlanInput[]; refsByPath: ReadonlyMap<string, AssetRef> },
  opts: { checkTimeoutMs: number; signal: AbortSignal; log: Logger; logFields: Record<string, unknown> },
): Promise<RenderWarning[]> {
  return damagedSourceWarnings(damage.lines, run.inputs, run.refsByPath, {
    checkTimeoutMs: opts.checkTimeoutMs,
    signal: opts.signal,
    log: (found) => opts.log.warn({ ...opts.logFields, ...found }, "ffmpeg reported damaged source data"),
  });
}

/**
 * After a run that read damaged sources (`damaged`: its `SOURCE_DAMAGED` warnings), fails it
 * when its output has fewer video frames than its plan makes. A clip none of whose source
 * frames decode (its range lies in the lost part of a truncated file) gives no frame to hold,
 * and ffmpeg then ends the picture early while the sound runs on: the file would look
 * finished and be short. A run without damage is not checked: sources that decode fill every
 * frame (a clip past its source's end holds the last frame).
 *
 * @param run.outPath - the run's output file.
 * @param run.frames - the video frames its plan makes (`RenderPlan.durationSec` × `output.fps`).
 * @throws RenderError `ASSET_UNSUPPORTED` naming the damaged clip and its upload when the output
 *   is short; MediaProbeError when the output cannot be read.
 */
export async function expectEveryFrame(
  run: { outPath: string; frames: number },
  damaged: readonly RenderWarning[],
  signal: AbortSignal,
): Promise<void> {
  if (damaged.length === 0 || run.frames <= 0) return;
  const frames = await videoFrameCount(run.outPath, { signal });
  if (frames >= run.frames) return;
  const named = damaged.find((w) => w.code === "SOURCE_DAMAGED" && w.clipId);
  throw new RenderError(
    "ASSET_UNSUPPORTED",
    `${named ? `The source of clip ${named.clipId}` : "A source file"} is damaged or truncated where the composition uses it: none of its frames there could be decoded, so the picture would stop ${run.frames - frames} frames early (${frames} of ${run.frames}). Trim the clip to the part of the file that plays, or upload the file again`,
    {
      ...(named?.clipId ? { clipId: named.clipId } : {}),
      ...(named?.uploadId ? { uploadId: named.uploadId } : {}),
    },
  );
}

/**
 * The warnings a split render's join adds to the render's own (`existing`, recorded when it was
 * split) from its parts' (`parts`, every part's in order): those not already there, each once,
 * and no clip-less `SOURCE_DAMAGED` when a part named a damaged clip (a part may fail to blame
 * a source another part names; the render in one piece names it). So a split render reports
 * what the same render made in one piece reports.
 */
export function partWarningsToAdd(
  existing: readonly RenderWarning[],
  parts: readonly RenderWarning[],
): RenderWarning[] {
  const all = dedupeWarnings([...existing, ...parts]);
  const named = all.some((w) => w.code === "SOURCE_DAMAGED" && w.clipId);
  return all.filter((w) => !existing.includes(w) && !(named && w.code === "SOURCE_DAMAGED" && !w.clipId));
}
