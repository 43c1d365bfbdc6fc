import type { Clip, Track } from "../composition/schema.ts";
import { sec } from "./graph.ts";
import { frameToSeconds, type Segment, secondsToFrame, streamEnd } from "./timeline.ts";
import { type BranchContext, openSourceInput } from "./video-branch.ts";

/** Sample rate of every audio branch and of the mix (Hz). */
export const SAMPLE_RATE = 48_000;

/** A track with its segments already cut to the render window. */
export interface LaidOutTrack {
  track: Track;
  segments: Segment[];
}

/**
 * Splits a speed factor into an `atempo` chain whose factors stay within 0.5..2 (the range
 * that keeps atempo's quality; 0.25 → 0.5·0.5, 4 → 2·2).
 */
export function atempoChain(speed: number): string[] {
  const out: string[] = [];
  let rest = speed;
  while (rest > 2 + 1e-9) {
    out.push("atempo=2");
    rest /= 2;
  }
  while (rest < 0.5 - 1e-9) {
    out.push("atempo=0.5");
    rest /= 0.5;
  }
  if (Math.abs(rest - 1) > 1e-9) out.push(`atempo=${Math.round(rest * 1e6) / 1e6}`);
  return out;
}

/** Whether a clip segment contributes sound (a frozen clip is silent). */
function hasSound(ctx: BranchContext, track: Track, seg: Segment): seg is Segment & { clip: Clip } {
  const clip = seg.clip;
  if (seg.kind !== "clip" || !clip || clip.muted || clip.freeze || (clip.volume ?? 1) === 0) return false;
  if (clip.asset.type === "audio") return true;
  if (clip.asset.type !== "video" || track.kind !== "video") return false;
  const key = clip.asset.uploadId ?? clip.asset.src ?? "";
  return ctx.assets.get(key)?.media?.hasAudio === true;
}

/**
 * One clip's sound, placed on the window's absolute timeline: `aresample` 48 kHz, stereo float,
 * speed (atempo chain), exact length, clip volume, transition crossfades (fade in across the
 * incoming transition, out across the outgoing one: both clips sound during the centred
 * transition), clip `fadeIn`/`fadeOut`, then `adelay` by whole samples to its start.
 */
function buildClipAudio(ctx: BranchContext, seg: Segment & { clip: Clip }, windowStart: number): string {
  const clip = seg.clip;
  const input = openSourceInput(ctx, seg);
  const rate = ctx.rate;
  const first = input.firstFrame;
  const length = frameToSeconds(streamEnd(seg) - first, rate);
  const rel = (frame: number) => frameToSeconds(frame - first, rate);
  const filters = [
    // Drop the input's preroll (see SEEK_PREROLL_SEC) at the sample, then count from 0.
    ...(input.preroll > 0 ? [`asetpts=PTS-${sec(input.preroll)}/TB`, "atrim=start=0"] : []),
    "asetpts=PTS-STARTPTS",
    `aresample=${SAMPLE_RATE}`,
    `aformat=sample_fmts=fltp:sample_rates=${SAMPLE_RATE}:channel_layouts=stereo`,
    ...atempoChain(clip.speed ?? 1),
    `atrim=end=${sec(length)}`,
    `apad=whole_dur=${sec(length)}`,
    `atrim=end=${sec(length)}`,
  ];
  if ((clip.volume ?? 1) !== 1) filters.push(`volume=${clip.volume}`);
  const fades: string[] = [];
  const fade = (type: "in" | "out", start: number, duration: number) => {
    if (duration <= 0) return;
    fades.push(`afade=t=${type}:st=${sec(Math.max(0, start))}:d=${sec(duration)}`);
  };
  if (seg.transition && seg.lead > 0) {
    fade("in", rel(seg.startFrame - seg.lead), frameToSeconds(seg.transition.frames, rate));
  }
  if (seg.outTransition && seg.tail > 0) {
    fade("out", rel(seg.endFrame - seg.outTransition.before), frameToSeconds(seg.outTransition.frames, rate));
  }
  if (clip.fadeIn) fade("in", rel(seg.origin), clip.fadeIn);
  if (clip.fadeOut)
    fade("out", rel(secondsToFrame(clip.start + clip.duration, rate)) - clip.fadeOut, clip.fadeOut);
  filters.push(...fades);
  const delay = Math.round(frameToSeconds(first - windowStart, rate) * SAMPLE_RATE);
  if (delay > 0) filters.push(`adelay=delays=${delay}S:all=1`);
  return ctx.graph.chain([`${input.index}:a`], filters, "ac", clip.id);
}

/**
 * Rebuilds an `amix` output's timestamps from its sample count (it starts at the window's
 * start, time 0). Once its first input has ended, ffmpeg 5.1's `amix` gives the frames it still
 * mixes from the others no timestamp; `apad` after it then padded nothing, and a soundtrack
 * whose last sound comes before the end (a gap or a colour clip after it) ended there, short
 * of the video.
 */
const AMIX_PTS = "asetpts=N/SR/TB";

/** Maps a ducking depth in dB to a sidechaincompress ratio (see `buildAudioMix`). */
export function duckingRatio(amountDb: number): number {
  const overshootDb = 16;
  if (amountDb >= overshootDb - 0.5) return 20;
  return Math.min(20, Math.max(1, 1 / (1 - amountDb / overshootDb)));
}

/**
 * The whole soundtrack of a render window `[windowStart, windowEnd)` (frames): every audible
 * clip of enabled, unmuted tracks placed with `adelay`, mixed per track with `amix normalize=0`
 * (the default would quieten every input), track volume, ducking (`sidechaincompress` of the
 * track keyed by the mix of the tracks it ducks under; threshold −34 dBFS, ratio from
 * `amountDb` assuming ~16 dB of overshoot for speech, so the depth is approximate), the mix of
 * all tracks, `alimiter` (auto-level off); every track stream and the mix are padded/trimmed to
 * the window (so a ducking key never ends before the track it ducks). Silence
 * (`anullsrc`) when nothing sounds. Returns the label of a 48 kHz stereo stream.
 */
export function buildAudioMix(
  ctx: BranchContext,
  tracks: readonly LaidOutTrack[],
  windowStart: number,
  windowEnd: number,
): string {
  const g = ctx.graph;
  const windowSec = frameToSeconds(windowEnd - windowStart, ctx.rate);
  const trackStreams = new Map<string, string>();
  for (const { track, segments } of tracks) {
    if (track.enabled === false || track.muted || (track.volume ?? 1) === 0) continue;
    const clips = segments
      .filter((s) => hasSound(ctx, track, s))
      .map((s) => buildClipAudio(ctx, s as Segment & { clip: Clip }, windowStart));
    if (clips.length === 0) continue;
    const filters: string[] = [];
    if (clips.length > 1)
      filters.push(`amix=inputs=${clips.length}:normalize=0:duration=longest:dropout_transition=0`, AMIX_PTS);
    if ((track.volume ?? 1) !== 1) filters.push(`volume=${track.volume}`);
    // Every track lasts the whole window: ffmpeg 5.1 stops pulling a graph in which one
    // `asplit` copy of a track (a ducking key) ended before the others, and the mix then ends at
    // the last sample of the ducked track, short of the video.
    filters.push(`apad=whole_dur=${sec(windowSec)}`, `atrim=end=${sec(windowSec)}`);
    trackStreams.set(track.id, g.chain(clips, filters, "at"));
  }
  if (trackStreams.size === 0) {
    return g.chain([], [`anullsrc=r=${SAMPLE_RATE}:cl=stereo`, `atrim=end=${sec(windowSec)}`], "silence");
  }

  // Count uses (final mix + each sidechain) and split streams used more than once.
  const ducked = tracks.filter((t) => t.track.ducking && trackStreams.has(t.track.id));
  const uses = new Map<string, number>([...trackStreams.keys()].map((id) => [id, 1]));
  for (const { track } of ducked) {
    for (const id of track.ducking?.under ?? [])
      if (uses.has(id) && id !== track.id) uses.set(id, (uses.get(id) ?? 0) + 1);
  }
  const copies = new Map<string, string[]>();
  for (const [id, label] of trackStreams) {
    const n = uses.get(id) ?? 1;
    if (n === 1) {
      copies.set(id, [label]);
      continue;
    }
    const outs = Array.from({ length: n }, () => g.label("split"));
    g.chains.push(`[${label}]asplit=${n}${outs.map((o) => `[${o}]`).join("")}`);
    copies.set(id, outs);
  }
  const take = (id: string) => copies.get(id)?.shift() as string;
  const duckedOut = new Map<string, string>();
  for (const { track } of ducked) {
    const under = (track.ducking?.under ?? []).filter((u) => u !== track.id && trackStreams.has(u));
    if (under.length === 0) continue;
    const main = take(track.id);
    const keys = under.map(take);
    // sidechaincompress stops at the end of either input: both last the whole window.
    const key =
      keys.length === 1
        ? (keys[0] as string)
        : g.chain(keys, [`amix=inputs=${keys.length}:normalize=0:duration=longest`, AMIX_PTS], "key");
    const ratio = duckingRatio(track.ducking?.amountDb ?? 12);
    duckedOut.set(
      track.id,
      g.chain(
        [main, key],
        [`sidechaincompress=threshold=0.02:ratio=${ratio.toFixed(3)}:attack=20:release=400`],
        "duck",
      ),
    );
  }
  const mixInputs = [...trackStreams.keys()].map((id) => duckedOut.get(id) ?? take(id));
  const filters: string[] = [];
  if (mixInputs.length > 1) {
    filters.push(
      `amix=inputs=${mixInputs.length}:normalize=0:duration=longest:dropout_transition=0`,
      AMIX_PTS,
    );
  }
  filters.push(
    "alimiter=limit=0.97:attack=5:release=50:level=0",
    `apad=whole_dur=${sec(windowSec)}`,
    `atrim=end=${sec(windowSec)}`,
  );
  return g.chain(mixInputs, filters, "mix");
}
