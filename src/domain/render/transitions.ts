import type { TransitionType } from "../composition/schema.ts";
import { type BranchPixelFormat, regularPts } from "./conform.ts";
import type { FilterGraph } from "./graph.ts";
import { sec } from "./graph.ts";
import { type FrameRate, frameToSeconds, type Segment, streamEnd, streamStart } from "./timeline.ts";

/**
 * Our transition names → ffmpeg xfade `transition=` values. `dissolve` is a cross-dissolve (a
 * linear blend of the two pictures, as in every editor): xfade's own `dissolve` swaps random
 * pixels, which we offer as `pixeldissolve`.
 */
export const XFADE_NAMES: Record<TransitionType, string> = {
  fade: "fade",
  fadeblack: "fadeblack",
  fadewhite: "fadewhite",
  dissolve: "fade",
  pixeldissolve: "dissolve",
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
 * Joins a track's segment streams (already normalised: same size, fps, pixel format, AV time
 * base) into one stream covering the window. Runs without transitions go through one
 * `concat`. With transitions, only the frames a transition blends go through `xfade`
 * ({@link joinWindowed}): each stream is split into its incoming-transition head, its body and
 * its outgoing-transition tail, each tail is crossfaded with the next head, and everything is
 * concatenated. (ffmpeg's `xfade` costs about as much per passed-through frame as per blended
 * one: chaining whole streams through it made a 60 s 1080p render spend most of its time
 * there.) Frame k of a transition samples progress (k + ½) / frames — symmetric about the cut —
 * and the timeline length is unchanged. Overlapping transitions (a clip shorter than its two
 * transitions' halves) fall back to chaining whole streams through `xfade`. Returns the label.
 *
 * `pixelFormat` is the streams' format: every transition's output is in it ({@link crossfade}).
 * (Left in another format, `concat` would take the format of its first input, so a window
 * starting inside a transition would convert every later body frame and give other chroma than
 * the whole render.)
 */
export function joinSegments(
  graph: FilterGraph,
  built: readonly BuiltSegment[],
  rate: FrameRate,
  pixelFormat: BranchPixelFormat,
): string {
  return joinWindowed(graph, built, rate, pixelFormat) ?? joinChained(graph, built, rate, pixelFormat);
}

/**
 * The windowed join (see {@link joinSegments}), or `undefined` when the streams do not tile as
 * expected (a stream's tail must be exactly the next transition's frames and overlap the next
 * stream's head, and no stream may be shorter than its head plus tail).
 */
function joinWindowed(
  graph: FilterGraph,
  built: readonly BuiltSegment[],
  rate: FrameRate,
  pixelFormat: BranchPixelFormat,
): string | undefined {
  if (built.length < 2 || !built.some((b, i) => i > 0 && b.segment.transition)) return undefined;
  const n = built.length;
  const len = built.map((b) => streamEnd(b.segment) - streamStart(b.segment));
  const head = built.map((b, i) => (i > 0 && b.segment.transition ? b.segment.transition.frames : 0));
  const tail = built.map((_, i) => (i < n - 1 ? (head[i + 1] as number) : 0));
  for (let i = 0; i < n; i += 1) {
    const seg = built[i]?.segment as Segment;
    if ((len[i] as number) - (head[i] as number) - (tail[i] as number) < 0) return undefined;
    if (i > 0) {
      const prev = built[i - 1]?.segment as Segment;
      if (streamStart(seg) !== streamEnd(prev) - (tail[i - 1] as number)) return undefined;
    }
  }
  const parts = built.map((b, i) => {
    const h = head[i] as number;
    const t = tail[i] as number;
    const l = len[i] as number;
    const ranges: [number, number][] = [];
    if (h > 0) ranges.push([0, h]);
    if (l - h - t > 0) ranges.push([h, l - t]);
    if (t > 0) ranges.push([l - t, l]);
    if (ranges.length === 1 && h === 0 && t === 0) return { body: b.label };
    const clipId = b.segment.clip?.id;
    const outs = graph.fanOut(b.label, `split=${ranges.length}`, ranges.length, "part", clipId);
    const cut = ranges.map(([from, to], k) =>
      graph.chain(
        [outs[k] as string],
        [`trim=start_frame=${from}:end_frame=${to}`, regularPts(rate)],
        "cut",
        clipId,
      ),
    );
    let k = 0;
    return {
      ...(h > 0 ? { head: cut[k++] } : {}),
      ...(l - h - t > 0 ? { body: cut[k++] } : {}),
      ...(t > 0 ? { tail: cut[k++] } : {}),
    };
  });
  const pieces: string[] = [];
  built.forEach((b, i) => {
    const part = parts[i] as { head?: string; body?: string; tail?: string };
    const t = b.segment.transition;
    if (i > 0 && t && part.head) {
      const from = (parts[i - 1] as { tail?: string }).tail as string;
      pieces.push(
        crossfade(graph, [from, part.head], {
          type: t.type,
          frames: t.frames,
          offset: -0.5,
          rate,
          pixelFormat,
          clipId: b.segment.clip?.id,
        }),
      );
    }
    if (part.body) pieces.push(part.body);
  });
  return graph.chain(pieces, [`concat=n=${pieces.length}:v=1:a=0`, regularPts(rate)], "cat");
}

/** Chains whole streams through `xfade` (the general case, also for overlapping transitions). */
function joinChained(
  graph: FilterGraph,
  built: readonly BuiltSegment[],
  rate: FrameRate,
  pixelFormat: BranchPixelFormat,
): string {
  const first = built[0];
  if (!first) throw new Error("joinSegments needs at least one segment");
  const origin = streamStart(first.segment);
  let acc: string | undefined;
  let pending: string[] = [];
  const flush = () => {
    const items = acc ? [acc, ...pending] : pending;
    // Regular timestamps after the concat: it places each stream after the previous one's last
    // frame plus that frame's duration, which a one-frame stream (a segment starting on a clip's
    // last frame) does not carry, so the next frame came one tick after it.
    acc =
      items.length === 1
        ? items[0]
        : graph.chain(items, [`concat=n=${items.length}:v=1:a=0`, regularPts(rate)], "cat");
    pending = [];
  };
  for (const { label, segment } of built) {
    const t = segment.transition;
    if (!t || (acc === undefined && pending.length === 0)) {
      pending.push(label);
      continue;
    }
    flush();
    acc = crossfade(graph, [acc as string, label], {
      type: t.type,
      frames: t.frames,
      offset: streamStart(segment) - origin - 0.5,
      rate,
      pixelFormat,
      clipId: segment.clip?.id,
    });
  }
  flush();
  return acc as string;
}

/**
 * Transitions whose `xfade` result mixes the planes of a picture, so that they must blend whole
 * 4:4:4 pictures: `fadeblack`/`fadewhite` (a lone chroma plane would fade to zero, which is
 * green, not to neutral), `pixeldissolve` (its pixel pattern would differ between the luma and
 * the half-size chroma planes) and `zoomin` (it samples each plane at the nearest pixel, so the
 * chroma would land up to two pixels off the luma on sharp edges). Every other transition is a
 * linear blend (`fade`) or a shape that depends only on each plane's relative position (wipes,
 * slides, circles, the radial sweep): it runs on 4:2:0 as it is, one `xfade` per plane
 * ({@link crossfade}).
 */
const WHOLE_PICTURE_TRANSITIONS: ReadonlySet<TransitionType> = new Set([
  "fadeblack",
  "fadewhite",
  "pixeldissolve",
  "zoomin",
]);

/** Transitions that pass through a solid colour (black, white) between the two pictures. */
const DIPS_THROUGH_COLOUR: ReadonlySet<TransitionType> = new Set(["fadeblack", "fadewhite"]);

/** Whether a transition type is blended plane by plane (see {@link WHOLE_PICTURE_TRANSITIONS}). */
export function blendsPlanewise(type: TransitionType): boolean {
  return !WHOLE_PICTURE_TRANSITIONS.has(type);
}

/** One transition between two normalised streams (see {@link crossfade}). */
export interface CrossfadeSpec {
  type: TransitionType;
  /** Frames the transition blends. */
  frames: number;
  /** Frames from the first stream's start to the transition's first frame, less half a frame. */
  offset: number;
  rate: FrameRate;
  pixelFormat: BranchPixelFormat;
  /** The clip the transition leads into: its filters are named for it. */
  clipId: string | undefined;
}

/**
 * The transition from stream `from` into stream `to` as `xfade`, output in `pixelFormat`.
 * ffmpeg 5.1's `xfade` works only on 4:4:4, planar RGB or grey pictures: fed 4:2:0, it had every
 * frame it blends resampled to 4:4:4 and back (three 1080p conversions per frame, about as much
 * CPU as the blend itself, and a softer chroma). For the transitions {@link blendsPlanewise},
 * each plane is instead blended on its own as a grey picture (`extractplanes`, one `xfade` per
 * plane, `mergeplanes`): the same luma, chroma without the round trip, and about a third of the
 * pixels to blend. The others keep the 4:4:4 conversion. Returns the output label.
 */
export function crossfade(graph: FilterGraph, [from, to]: [string, string], spec: CrossfadeSpec): string {
  const xfade = (transition: string) =>
    `xfade=transition=${transition}:duration=${sec(frameToSeconds(spec.frames, spec.rate))}:offset=${sec(frameToSeconds(spec.offset, spec.rate))}`;
  const name = XFADE_NAMES[spec.type];
  const alpha = spec.pixelFormat === "yuva420p";
  if (!blendsPlanewise(spec.type)) {
    if (!alpha || !DIPS_THROUGH_COLOUR.has(spec.type)) {
      return graph.chain([from, to], [xfade(name), `format=${spec.pixelFormat}`], "xf", spec.clipId);
    }
    // A layer dips to black (white) in its own pixels: the colour planes come from the 4:4:4
    // `xfade`, the alpha plane is the two layers' alphas blended (xfade would take it through
    // opaque: a transparent track covered the whole canvas in black at the cut).
    const [colourFrom, alphaFrom] = graph.fanOut(from, "split=2", 2, "part", spec.clipId) as [string, string];
    const [colourTo, alphaTo] = graph.fanOut(to, "split=2", 2, "part", spec.clipId) as [string, string];
    const colour = graph.chain(
      [colourFrom, colourTo],
      [xfade(name), `format=${spec.pixelFormat}`],
      "xf",
      spec.clipId,
    );
    const [y, u, v] = graph.fanOut(colour, "extractplanes=y+u+v", 3, "plane", spec.clipId);
    const [a] = graph.fanOut(alphaFrom, "extractplanes=a", 1, "plane", spec.clipId);
    const [b] = graph.fanOut(alphaTo, "extractplanes=a", 1, "plane", spec.clipId);
    const blendedAlpha = graph.chain([a as string, b as string], [xfade("fade")], "xf", spec.clipId);
    return mergePlanes(graph, [y as string, u as string, v as string, blendedAlpha], spec);
  }
  const planes = alpha ? ["y", "u", "v", "a"] : ["y", "u", "v"];
  const split = (input: string) =>
    graph.fanOut(input, `extractplanes=${planes.join("+")}`, planes.length, "plane", spec.clipId);
  const a = split(from);
  const b = split(to);
  const blended = planes.map((_, p) =>
    graph.chain([a[p] as string, b[p] as string], [xfade(name)], "xf", spec.clipId),
  );
  return mergePlanes(graph, blended, spec);
}

/** One picture in `spec.pixelFormat` from grey streams, one per plane in order (Y, U, V[, A]). */
function mergePlanes(graph: FilterGraph, planes: string[], spec: CrossfadeSpec): string {
  // Output plane p from input p's only plane: 0x00102030 for four.
  const map = planes.map((_, p) => `${p}0`).join("");
  return graph.chain(planes, [`mergeplanes=0x${map}:${spec.pixelFormat}`], "xf", spec.clipId);
}
