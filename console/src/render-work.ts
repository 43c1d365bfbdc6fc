/**
 * What a render saved by not encoding: the share of its video frames copied from the sources
 * (smart rendering) and the parts copied from earlier renders (the render cache), as the lines
 * a render card shows.
 */
import type { Render } from "../../clients/typescript/src/types.ts";

/** The parts of a render these lines read. */
export type RenderWork = Pick<Render, "smartRender" | "reuse">;

/**
 * One short line per saving, empty when nothing was saved:
 * `"92 % of frames copied from the sources (1,656 of 1,800)"`,
 * `"3 of 5 parts reused from earlier renders (12.0 s not rendered)"`.
 */
export function renderSavings(r: RenderWork): string[] {
  const lines: string[] = [];
  const smart = r.smartRender;
  if (smart && smart.copiedFrames > 0) {
    const total = smart.copiedFrames + smart.encodedFrames;
    const pct = Math.floor((smart.copiedFrames / total) * 100);
    lines.push(
      `${pct} % of frames copied from the sources (${smart.copiedFrames.toLocaleString("en")} of ${total.toLocaleString("en")})`,
    );
  }
  const reuse = r.reuse;
  if (reuse && reuse.reused > 0) {
    lines.push(
      `${reuse.reused} of ${reuse.segments} parts reused from earlier renders (${reuse.secondsSaved.toFixed(1)} s not rendered)`,
    );
  }
  return lines;
}

/**
 * Why a smart render encoded frames, one line per stretch (at most `max`, then how many more):
 * `"take.mp4 at 0:06, 0.00–0.53 s: from the cut to the next keyframe"`.
 */
export function encodedReasons(r: RenderWork, max = 6): string[] {
  const reasons = r.smartRender?.reasons ?? [];
  const lines = reasons
    .slice(0, max)
    .map((x) => `${x.clip ?? "empty"}, ${x.from.toFixed(2)}–${x.to.toFixed(2)} s: ${x.reason}`);
  if (reasons.length > max) lines.push(`and ${reasons.length - max} more`);
  return lines;
}
