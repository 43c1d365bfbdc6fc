import type { TransitionType } from "../composition/schema.ts";
import type { FilterGraph } from "./graph.ts";
import { sec } from "./graph.ts";
import { type FrameRate, frameToSeconds, type Segment, streamStart } from "./timeline.ts";

/** Our transition names → ffmpeg xfade `transition=` values (identical today; kept as the one mapping point). */
export const XFADE_NAMES: Record<TransitionType, string> = {
  fade: "fade",
  fadeblack: "fadeblack",
  fadewhite: "fadewhite",
  dissolve: "dissolve",
  wipeleft: "wipeleft",
  wiperight: "wiperight",
  wipeup: "wipeup",
  wipedown: "wipedown",
  slideleft: "slideleft",
  slideright: "slideright",
  slideup: "slideup",
  slidedown: "slidedown",
  circleopen: "circleopen",
  circleclose: "circleclose",
  radial: "radial",
  zoomin: "zoomin",
};

/** A built segment stream: its label and layout. */
export interface BuiltSegment {
  label: string;
  segment: Segment;
}

/**
 * Joins a track's segment streams (already normalised: same size, fps, `yuva420p`, AV time
 * base) into one stream covering the window. Runs without transitions go through one
 * `concat`; a transition becomes `xfade` whose offset is the transition's first frame relative
 * to the joined stream's start, minus half a frame so that frame k of the transition samples
 * progress (k + ½) / frames — symmetric about the cut. The first input ends exactly at the
 * transition's last frame, so the output length is offset + length of the second input, and
 * the timeline length is unchanged. Returns the label.
 */
export function joinSegments(graph: FilterGraph, built: readonly BuiltSegment[], rate: FrameRate): string {
  const first = built[0];
  if (!first) throw new Error("joinSegments needs at least one segment");
  const origin = streamStart(first.segment);
  let acc: string | undefined;
  let pending: string[] = [];
  const flush = () => {
    const items = acc ? [acc, ...pending] : pending;
    acc = items.length === 1 ? items[0] : graph.chain(items, [`concat=n=${items.length}:v=1:a=0`], "cat");
    pending = [];
  };
  for (const { label, segment } of built) {
    const t = segment.transition;
    if (!t || (acc === undefined && pending.length === 0)) {
      pending.push(label);
      continue;
    }
    flush();
    const offsetFrames = streamStart(segment) - origin;
    const offset = frameToSeconds(offsetFrames - 0.5, rate);
    acc = graph.chain(
      [acc as string, label],
      [
        `xfade=transition=${XFADE_NAMES[t.type]}:duration=${sec(frameToSeconds(t.frames, rate))}:offset=${sec(offset)}`,
      ],
      "xf",
    );
  }
  flush();
  return acc as string;
}
