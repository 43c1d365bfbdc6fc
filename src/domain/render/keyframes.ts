import type { KeyframeIndex } from "../../media/keyframes.ts";
import { sourceRate } from "../composition/schema.ts";
import type { LaidOutTrack } from "./audio-branch.ts";
import { type FrameRate, frameToSeconds, streamEnd, streamStart, widenWindow } from "./timeline.ts";
import type { ResolvedAsset } from "./types.ts";
import { inputSeekTime, type SourceKeyframes, seekKeyframesOf, sourceTimeAt } from "./video-branch.ts";

/**
 * The keyframes of the video sources among `assets` that keep an index
 * (`ResolvedAsset.keyframes`), by asset key, as `BuildRenderPlanInput.sourceKeyframes` takes
 * them: a split render's segments seek each input to the keyframe its first frame decodes from.
 */
export function keptSourceKeyframes(
  assets: ReadonlyMap<string, ResolvedAsset>,
): Map<string, SourceKeyframes> {
  const found = new Map<string, SourceKeyframes>();
  for (const [key, asset] of assets) {
    const keyframes = asset.keyframes && seekKeyframesOf(asset.keyframes);
    if (keyframes) found.set(key, keyframes);
  }
  return found;
}

/**
 * Source frames a video input decodes before source time `sourceSec` when it seeks there
 * (`openSourceInput`, `inputSeekTime`): with `outputFrameSourceSec` (one output frame in source
 * seconds), to the keyframe the first shown frame decodes from when the `prerollSec` before it
 * holds one, as a split render's segments seek; else `prerollSec` before it. The demuxer starts
 * at the last keyframe at or before the seek time, so the cost is the source time from that
 * keyframe to `sourceSec`, in the source's frames: 0 for a start on a keyframe.
 */
export function prerollFrames(
  keyframes: KeyframeIndex,
  sourceSec: number,
  prerollSec: number,
  outputFrameSourceSec?: number,
): number {
  const seek = inputSeekTime(
    sourceSec,
    prerollSec,
    outputFrameSourceSec ? seekKeyframesOf(keyframes) : undefined,
    outputFrameSourceSec,
  );
  const { times } = keyframes;
  // Last keyframe at or before the seek time (binary search; the file's start when none).
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= seek + 1e-6) lo = mid + 1;
    else hi = mid;
  }
  const key = lo > 0 ? (times[lo - 1] as number) : 0;
  return Math.max(0, sourceSec - key) * keyframes.fps;
}

/**
 * What starting a render (a split render's segment) at output frame `frame` costs in decoding
 * before its first frame: for every video clip playing across the start (the start widened over
 * transitions, as the segment's plan widens it), the {@link prerollFrames} of its source at the
 * start, seeking to keyframes as the segments do. Clips whose stream begins at the start (a
 * clip's first frame, the incoming side of a transition) cost nothing extra: a render in one piece seeks there too. Stills, colours and
 * text cost 0. Source frames; `NaN` when a cut video clip's source has no keyframe index.
 *
 * @param tracks - the laid-out enabled tracks (`layoutTracks`) at `rate`.
 * @param keyframes - keyframe indexes by asset key (`uploadId`, else `src`).
 * @param prerollSec - the plan's seek preroll (`SEEK_PREROLL_SEC`).
 */
export function startPrerollFrames(
  tracks: readonly LaidOutTrack[],
  frame: number,
  rate: FrameRate,
  keyframes: ReadonlyMap<string, KeyframeIndex>,
  prerollSec: number,
): number {
  const start = widenWindow(
    tracks.map((t) => t.segments),
    frame,
    frame + 1,
  ).start;
  let cost = 0;
  for (const { segments } of tracks) {
    for (const seg of segments) {
      if (seg.kind !== "clip" || seg.clip?.asset.type !== "video") continue;
      if (streamStart(seg) >= start || streamEnd(seg) <= start) continue;
      const index = keyframes.get(seg.clip.asset.uploadId ?? seg.clip.asset.src ?? "");
      if (!index) return Number.NaN;
      cost += prerollFrames(
        index,
        sourceTimeAt(seg, start, rate),
        prerollSec,
        frameToSeconds(1, rate) * sourceRate(seg.clip),
      );
    }
  }
  return cost;
}

/**
 * Places the boundaries between `count` segments of `totalFrames` frames whose nominal length is
 * `length` frames (boundary k nominally at `k * length`, as `planSegments` cuts): each within
 * `length / 4` (rounded down) of its nominal frame at the frame of least `cost`, the nearest to
 * the nominal frame among equal costs. The windows do not overlap, so every segment keeps at
 * least `length - 2 * floor(length / 4)` frames; the last boundary also keeps the last segment
 * at least that long, or as long as it nominally is when that is shorter. A boundary whose
 * window has a frame of unknown (`NaN`) cost stays at its nominal frame.
 *
 * @param cost - the cost of a segment starting at a frame (any unit; lower is better).
 * @returns the boundaries (frames, ascending, `count - 1` of them).
 */
export function chooseBoundaries(
  totalFrames: number,
  length: number,
  count: number,
  cost: (frame: number) => number,
): number[] {
  const slack = Math.floor(length / 4);
  const lastNominal = totalFrames - (count - 1) * length;
  const lastMin = Math.min(length - 2 * slack, lastNominal);
  const boundaries: number[] = [];
  for (let k = 1; k < count; k += 1) {
    const nominal = k * length;
    const lo = nominal - slack;
    const hi = Math.min(nominal + slack, totalFrames - lastMin);
    let best = nominal;
    let bestCost = cost(nominal);
    for (let f = lo; f <= hi && !Number.isNaN(bestCost); f += 1) {
      const c = cost(f);
      if (Number.isNaN(c)) bestCost = c;
      else if (
        c < bestCost - 1e-6 ||
        (Math.abs(c - bestCost) <= 1e-6 && Math.abs(f - nominal) < Math.abs(best - nominal))
      ) {
        best = f;
        bestCost = c;
      }
    }
    boundaries.push(Number.isNaN(bestCost) ? nominal : best);
  }
  return boundaries;
}
