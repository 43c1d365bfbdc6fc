/**
 * The measuring passes of a render's loudness normalisation (render/loudness.ts): before the
 * render's own ffmpeg run (or its split render's audio part), its soundtrack is rendered to a
 * null output through `ebur128`, once, and once more through the gain and limiter when the
 * limiter has peaks to reduce.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { LoudnessTarget, Timeline } from "../composition/schema.ts";
import {
  correctedGain,
  type LoudnessGain,
  type LoudnessMeasurement,
  limiterEngages,
  loudnessGain,
  parseLoudnessMeasurement,
} from "../render/loudness.ts";
import { FORMAT_TRAITS } from "../render/outputs.ts";
import { type BuildRenderPlanInput, buildRenderPlan } from "../render/plan.ts";
import type { AssetRef } from "./render-assets.ts";
import { type RenderRunDeps, runRenderFfmpeg } from "./render-ffmpeg.ts";
import { writePlanFiles } from "./write-plan-files.ts";

/** A render's plan input without what only its own output run sets. */
export type LoudnessPlanBase = Omit<
  BuildRenderPlanInput,
  "outputPath" | "variant" | "names" | "posterPath" | "posterFrame" | "loudness"
>;

/** The loudness target a render of `composition` in `format` meets, if any (formats with sound only). */
export function loudnessTargetOf(
  composition: Timeline,
  format: BuildRenderPlanInput["output"]["format"],
): LoudnessTarget | undefined {
  return FORMAT_TRAITS[format].audio ? composition.audio?.loudness : undefined;
}

/**
 * Measures the soundtrack `base` renders and returns the gain that brings it to `target`
 * (`loudnessGain`; corrected after a second pass when the limiter engages), or null when the
 * soundtrack is silent. Each pass renders the sound alone to a null output in `cwd`.
 *
 * @returns the gain and the measurements taken (first the mix as it is, then through the gain).
 * @throws RenderError as a render's ffmpeg run does (`runRenderFfmpeg`); FfmpegError `ABORTED`.
 */
export async function measureRenderLoudness(input: {
  base: LoudnessPlanBase;
  target: LoudnessTarget;
  cwd: string;
  signal: AbortSignal;
  deps: Pick<RenderRunDeps, "log" | "stallTimeoutMs">;
  logFields: Record<string, unknown>;
  refsByPath: Map<string, AssetRef>;
}): Promise<{ gain: LoudnessGain | null; measured: LoudnessMeasurement[] }> {
  const pass = async (n: number, gain?: LoudnessGain): Promise<LoudnessMeasurement> => {
    const file = `loudness-${n}.txt`;
    const plan = buildRenderPlan({
      ...input.base,
      outputPath: "-",
      names: { graphFile: `graph-loudness-${n}.txt` },
      loudness: { measureFile: file, ...(gain ? { gain } : {}) },
    });
    await writePlanFiles(plan, input.cwd);
    await runRenderFfmpeg({
      plan,
      cwd: input.cwd,
      signal: input.signal,
      stallTimeoutMs: input.deps.stallTimeoutMs,
      failure: {
        log: input.deps.log,
        logFields: { ...input.logFields, step: "loudness" },
        composition: input.base.composition,
        refsByPath: input.refsByPath,
      },
    });
    return parseLoudnessMeasurement(await readFile(path.join(input.cwd, file), "utf8"));
  };
  const first = await pass(1);
  const gain = loudnessGain(input.target, first);
  if (!gain || !limiterEngages(gain, first)) return { gain, measured: [first] };
  const second = await pass(2, gain);
  return { gain: correctedGain(gain, input.target, second), measured: [first, second] };
}
