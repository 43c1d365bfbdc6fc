import type { Clip, ReframeKeyframe } from "../composition/schema.ts";
import { type FilterGraph, quote, sec } from "./graph.ts";
import type { Segment } from "./timeline.ts";

/**
 * The source times of a clip stream for frame-numbered filters: frame `n` of the stream (after
 * the clip's `fps`, hold and `trim`) shows source time `a + n × b` seconds; the stream spans
 * source `[from, to]`.
 */
export interface StreamSourceTime {
  a: number;
  b: number;
  from: number;
  to: number;
}

const signed = (v: number) => (v < 0 ? `-${sec(-v)}` : `+${sec(v)}`);

/**
 * An ffmpeg expression of the piecewise-linear function through `keyframes` (value `axis` at
 * `time`, held before the first and after the last) of the source time stored in variable 0:
 * `v0 + Σ (v[i+1] − v[i]) × clip((s − t[i]) / (t[i+1] − t[i]), 0, 1)`, a flat sum (no nesting,
 * so ffmpeg's recursive parser stays shallow). Only the keyframes around `[from, to]` (source
 * seconds) are written: outside them the function is constant.
 */
export function piecewiseExpression(
  keyframes: readonly ReframeKeyframe[],
  axis: "x" | "y",
  from: number,
  to: number,
): string {
  let lo = 0;
  while (lo + 1 < keyframes.length && (keyframes[lo + 1] as ReframeKeyframe).time <= from) lo += 1;
  let hi = keyframes.length - 1;
  while (hi - 1 > lo && (keyframes[hi - 1] as ReframeKeyframe).time >= to) hi -= 1;
  const used = keyframes.slice(lo, hi + 1);
  const first = used[0] as ReframeKeyframe;
  let expr = sec(first[axis]);
  for (let i = 0; i + 1 < used.length; i += 1) {
    const k = used[i] as ReframeKeyframe;
    const next = used[i + 1] as ReframeKeyframe;
    const dv = next[axis] - k[axis];
    if (dv === 0) continue;
    expr += `${signed(dv)}*clip((ld(0)-${sec(k.time)})/${sec(next.time - k.time)},0,1)`;
  }
  return expr;
}

/**
 * The `crop` filter of one reframe window: `w`×`h` the largest even window of aspect `aspect`
 * (width / height) inside the picture, its centre at the keyframes' position at each frame's
 * source time (`n`: the stream's frame number, see {@link StreamSourceTime}), clamped so that the
 * window stays inside the picture.
 */
export function reframeCrop(
  keyframes: readonly ReframeKeyframe[],
  aspect: number,
  time: StreamSourceTime,
): string {
  const at = `st(0,${sec(time.a)}+n*${time.b.toPrecision(12)})`;
  const x = `${at};clip((${piecewiseExpression(keyframes, "x", time.from, time.to)})*iw-ow/2,0,iw-ow)`;
  const y = `${at};clip((${piecewiseExpression(keyframes, "y", time.from, time.to)})*ih-oh/2,0,ih-oh)`;
  const r = aspect.toPrecision(12);
  return `crop=w=${quote(`trunc(min(iw,ih*${r})/2)*2`)}:h=${quote(`trunc(min(ih,iw/${r})/2)*2`)}:x=${quote(x)}:y=${quote(y)}:exact=1`;
}

/**
 * The picture of a reframed clip at its box size `box` (render pixels): the reframe window
 * cropped and resized to the box; with `split`, the picture split in two, each window resized to
 * one half of the box (upper half even pixels high) and the halves stacked. Returns the chain's
 * inputs and filters to continue with (the split case has already added its branches to the
 * graph).
 * @param resize - the exact-size resize of the clip's picture.
 */
export function reframePicture(
  graph: FilterGraph,
  seg: Segment,
  time: StreamSourceTime,
  box: { w: number; h: number },
  chain: { inputs: string[]; filters: string[] },
  resize: (w: number, h: number) => string[],
): { inputs: string[]; filters: string[] } {
  const clip = seg.clip as Clip;
  const reframe = clip.reframe;
  if (!reframe) return chain;
  if (!reframe.split) {
    return {
      inputs: chain.inputs,
      filters: [
        ...chain.filters,
        reframeCrop(reframe.keyframes, box.w / box.h, time),
        ...resize(box.w, box.h),
      ],
    };
  }
  const upperH = Math.max(2, Math.floor(box.h / 4) * 2);
  const lowerH = Math.max(2, box.h - upperH);
  const picture = graph.chain(
    chain.inputs,
    chain.filters.length > 0 ? chain.filters : ["null"],
    "clip",
    clip.id,
  );
  const [upper, lower] = graph.fanOut(picture, "split=2", 2, "clip", clip.id) as [string, string];
  const top = graph.chain(
    [upper],
    [reframeCrop(reframe.keyframes, box.w / upperH, time), ...resize(box.w, upperH)],
    "clip",
    clip.id,
  );
  const bottom = graph.chain(
    [lower],
    [reframeCrop(reframe.split.keyframes, box.w / lowerH, time), ...resize(box.w, lowerH)],
    "clip",
    clip.id,
  );
  return { inputs: [top, bottom], filters: ["vstack=inputs=2"] };
}
