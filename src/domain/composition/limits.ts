import type { RenderLimits } from "../../config.ts";
import type { ErrorDetail } from "../../errors.ts";
import type { Plan } from "../quota/daily-quota.ts";

/** What one render may cost (the shape the `RENDER_*` settings are read into). */
export type { RenderLimits };

/** The defaults of the `RENDER_*` and `COMPOSITION_MAX_CLIPS` settings. */
export const DEFAULT_RENDER_LIMITS: RenderLimits = {
  maxWidth: 3840,
  maxHeight: 3840,
  maxPixels: 3840 * 2160,
  maxFps: 60,
  maxDurationSec: 4 * 3600,
  maxClips: 1000,
  dailyRenderSec: { standard: 120 * 60, upgraded: 1200 * 60 },
  maxActivePerAccount: 5,
};

/** The facts of one render (or of a composition's canvas) that its cost depends on. */
export interface RenderCostFacts {
  /** Output size, pixels; absent for audio-only outputs. */
  width?: number | undefined;
  height?: number | undefined;
  /** Output frame rate, frames per second. */
  fps?: number | undefined;
  /** Timeline length rendered, seconds. */
  durationSec: number;
  /** Clips over all tracks. */
  clips: number;
}

/** JSON Pointers the problems of {@link renderCostProblems} are reported at. */
export interface RenderCostPaths {
  width: string;
  height: string;
  fps: string;
  duration: string;
  clips: string;
}

/**
 * Checks a render's (or a composition's) cost against the limits.
 *
 * @returns one `{ path, message }` per exceeded limit (empty when within all of them); each
 *   message states the limit with its unit.
 */
export function renderCostProblems(
  facts: RenderCostFacts,
  limits: RenderLimits,
  paths: RenderCostPaths,
): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const { width, height } = facts;
  if (width !== undefined && width > limits.maxWidth)
    problems.push({ path: paths.width, message: `must be at most ${limits.maxWidth} pixels` });
  if (height !== undefined && height > limits.maxHeight)
    problems.push({ path: paths.height, message: `must be at most ${limits.maxHeight} pixels` });
  if (width !== undefined && height !== undefined && width * height > limits.maxPixels) {
    problems.push({
      path: paths.height,
      message: `a ${width}×${height} frame has ${width * height} pixels; at most ${limits.maxPixels} are allowed`,
    });
  }
  if (facts.fps !== undefined && facts.fps > limits.maxFps)
    problems.push({ path: paths.fps, message: `must be at most ${limits.maxFps} frames per second` });
  if (facts.durationSec > limits.maxDurationSec) {
    problems.push({
      path: paths.duration,
      message: `the timeline is ${facts.durationSec} s long; at most ${limits.maxDurationSec} s can be rendered`,
    });
  }
  if (facts.clips > limits.maxClips)
    problems.push({
      path: paths.clips,
      message: `${facts.clips} clips; at most ${limits.maxClips} are allowed`,
    });
  return problems;
}

/** Timeline seconds `plan` may render per UTC day; null = unlimited (admin). */
export function dailyRenderSeconds(plan: Plan, limits: RenderLimits): number | null {
  return plan === "admin" ? null : limits.dailyRenderSec[plan];
}
