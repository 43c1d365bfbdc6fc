/**
 * Silence and filler removal on a whole composition: the stretches of one recording (an upload)
 * where nobody speaks, and the hesitations ("um", "uh") of its speaker, cut out of every clip
 * that plays it, and everything after closed up.
 */
import { isFiller } from "../analysis/fillers.ts";
import {
  fitTransitions,
  merged,
  recutClip,
  removeSourceRanges,
  rippledTime,
  rippleMarkers,
  type SourceRange,
  sourceSpan,
} from "./recut.ts";
import type { Clip, Timeline, Track } from "./schema.ts";

/** One transcribed word, seconds of the recording (a transcription's `segments[].words[]`). */
export interface TimedWord {
  start: number;
  end: number;
  text: string;
}

/** Defaults of {@link RemovePausesOptions}. */
export const REMOVE_PAUSES_DEFAULTS = {
  /** Shortest silence removed, seconds. */
  minSilence: 0.75,
  /** Seconds of a pause kept next to speech, on each side. */
  pad: 0.15,
  /** Shortest clip a cut leaves, timeline seconds: a shorter piece is cut too. */
  minPiece: 0.1,
} as const;

/** Removed stretches shorter than this are not cut, seconds (slivers between padded words). */
const MIN_CUT = 0.05;

/** What {@link removePauses} removes, and from which recording. */
export interface RemovePausesOptions {
  /** The recording: every video or audio clip that plays this upload is cut. */
  uploadId: string;
  /** Only these clips of the recording (ids; default every clip that plays it). */
  clipIds?: readonly string[];
  /** Its transcript's words, seconds of the recording; speech is never cut (nor `pad` around it). */
  words?: readonly TimedWord[];
  /**
   * Its silences, seconds of the recording (the upload analysis's `silences.ranges`). Without
   * them, the gaps between consecutive `words` are the silences.
   */
  silences?: readonly SourceRange[];
  /** Remove the silences longer than `minSilence` (default true). */
  removeSilences?: boolean;
  /** Shortest silence removed, seconds (default 0.75). */
  minSilence?: number;
  /** Remove the fillers of `language` among `words` (default false; fillers.ts lists them). */
  fillers?: boolean;
  /** ISO 639-1 language of the speech (default `en`). */
  language?: string;
  /** Seconds kept next to speech on each side of a cut (default 0.15). */
  pad?: number;
  /** Shortest clip a cut leaves, timeline seconds (default 0.1). */
  minPiece?: number;
}

/** Count and timeline seconds of what was removed. */
export interface RemovedAmount {
  count: number;
  /** Timeline seconds, 3 decimals. */
  seconds: number;
}

/** What {@link removePauses} made. */
export interface RemovePausesResult<T extends Timeline> {
  /** The composition after the cut (a copy; the input is not changed). */
  composition: T;
  /** One line: "removed 14 silences, 3.2 s", "removed 5 fillers, 1.8 s", both, or "nothing to remove". */
  summary: string;
  /** Everything removed: stretches cut and the timeline seconds they took. */
  removed: RemovedAmount;
  /** The silences among them. */
  silences: RemovedAmount;
  /** The fillers among them. */
  fillers: RemovedAmount;
  /** The timeline stretches removed, in the composition's times before the cut, sorted, not overlapping. */
  cuts: SourceRange[];
  /** The cut list in the recording's seconds: the source ranges removed (before `minPiece`). */
  sourceCuts: SourceRange[];
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** `ranges` minus `holes` (both sorted, merged), pieces shorter than `min` dropped. */
function subtract(ranges: readonly SourceRange[], holes: readonly SourceRange[], min: number): SourceRange[] {
  const out: SourceRange[] = [];
  for (const r of ranges) {
    let from = r.start;
    for (const h of holes) {
      if (h.end <= from || h.start >= r.end) continue;
      if (h.start > from) out.push({ start: from, end: h.start });
      from = Math.max(from, h.end);
    }
    if (r.end > from) out.push({ start: from, end: r.end });
  }
  return out.filter((x) => x.end - x.start >= min);
}

/**
 * The cut list of a recording in its own seconds: silences longer than `minSilence` (from
 * `silences`, else the gaps between words) narrowed by `pad` at both ends, and fillers (each
 * from `pad` after the spoken word before it to its end), minus every other word widened by
 * `pad` on both sides; stretches under 50 ms dropped. Pure.
 */
export function pauseCuts(options: RemovePausesOptions): {
  silences: SourceRange[];
  fillers: SourceRange[];
  /** The words kept (all but the fillers cut), merged. */
  speech: SourceRange[];
} {
  const minSilence = options.minSilence ?? REMOVE_PAUSES_DEFAULTS.minSilence;
  const pad = options.pad ?? REMOVE_PAUSES_DEFAULTS.pad;
  const language = options.language ?? "en";
  const words = [...(options.words ?? [])]
    .filter((w) => Number.isFinite(w.start) && Number.isFinite(w.end) && w.end >= w.start)
    .sort((a, b) => a.start - b.start);
  const filler = (w: TimedWord) => options.fillers === true && isFiller(w.text, language);
  const spoken = words.filter((w) => !filler(w));
  const speech = merged(spoken.map((w) => ({ start: w.start - pad, end: w.end + pad })));

  let silences: SourceRange[] = [];
  if (options.removeSilences !== false) {
    const found =
      options.silences ??
      words.slice(1).map((w, i) => ({ start: (words[i] as TimedWord).end, end: w.start }));
    silences = merged(
      found
        .filter((s) => s.end - s.start > minSilence)
        .map((s) => ({ start: s.start + pad, end: s.end - pad }))
        .filter((s) => s.end > s.start),
    );
  }
  const fillerRanges = merged(
    words.filter(filler).map((w) => {
      const before = spoken.filter((x) => x.end <= w.start).at(-1);
      return { start: before ? Math.min(w.start, before.end) : w.start, end: w.end };
    }),
  );
  const fillers = subtract(fillerRanges, speech, MIN_CUT);
  return {
    silences: subtract(subtract(silences, fillers, 0), speech, MIN_CUT),
    fillers,
    speech: merged(spoken.map((w) => ({ start: w.start, end: w.end }))),
  };
}

/**
 * A clip of the recording that the options cut (video or audio playing `uploadId`, among
 * `clipIds`; not a frozen clip, which plays no stretch of it).
 */
const isTarget = (clip: Clip, o: RemovePausesOptions) =>
  (clip.asset.type === "video" || clip.asset.type === "audio") &&
  !clip.freeze &&
  clip.asset.uploadId === o.uploadId &&
  (o.clipIds === undefined || o.clipIds.includes(clip.id));

/** Whether two clips play the same stretch of source at the same place (start, length, trim, speed). */
export function inStep(a: Clip, b: Clip): boolean {
  const close = (x: number, y: number) => Math.abs(x - y) < 1e-3;
  return (
    close(a.start, b.start) &&
    close(a.duration, b.duration) &&
    close(a.trim ?? 0, b.trim ?? 0) &&
    close(a.speed ?? 1, b.speed ?? 1)
  );
}

/**
 * The source ranges cut from `clip`: `cuts` inside its span, plus every piece left between them
 * shorter than `minPiece` timeline seconds that holds no `speech` (a piece with speech is kept
 * however short, unless under a millisecond).
 */
function clipCuts(
  clip: Clip,
  cuts: readonly SourceRange[],
  speech: readonly SourceRange[],
  minPiece: number,
): SourceRange[] {
  const span = sourceSpan(clip);
  const speed = clip.speed ?? 1;
  const inside = merged(
    cuts.map((r) => ({ start: Math.max(r.start, span.start), end: Math.min(r.end, span.end) })),
  );
  const extra = subtract([span], inside, 0).filter((k) => {
    const length = (k.end - k.start) / speed;
    if (length < 1e-3) return true;
    return length < minPiece && !speech.some((w) => w.start < k.end && w.end > k.start);
  });
  return merged([...inside, ...extra]);
}

/** Timeline seconds of `ranges` (source) inside the clips that play them. */
function timelineSeconds(clips: readonly Clip[], ranges: readonly SourceRange[]): RemovedAmount {
  let seconds = 0;
  const hit = new Set<SourceRange>();
  for (const clip of clips) {
    const span = sourceSpan(clip);
    for (const r of ranges) {
      const overlap = Math.min(r.end, span.end) - Math.max(r.start, span.start);
      if (overlap > 0) {
        seconds += overlap / (clip.speed ?? 1);
        hit.add(r);
      }
    }
  }
  return { count: hit.size, seconds: r3(seconds) };
}

/** "removed 14 silences, 3.2 s" and the like. */
function summaryOf(silences: RemovedAmount, fillers: RemovedAmount, total: RemovedAmount): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const parts = [
    ...(silences.count > 0 ? [plural(silences.count, "silence")] : []),
    ...(fillers.count > 0 ? [plural(fillers.count, "filler")] : []),
  ];
  if (parts.length === 0 || total.seconds === 0) return "nothing to remove";
  return `removed ${parts.join(" and ")}, ${total.seconds.toFixed(1)} s`;
}

/**
 * Removes the silences and fillers of one recording from a composition ({@link pauseCuts} gives
 * the cut list, in the recording's seconds). Every video or audio clip that plays `uploadId`
 * is replaced by the pieces of it outside the cuts (`removeSourceRanges`; pieces shorter than
 * `minPiece` go too), on every track that holds one; caption clips in step with such a clip
 * (its speech's captions: same start, length, trim and speed) are cut the same way. Everything
 * else ripples: later clips of those tracks move left, clips of the other tracks (music, titles,
 * B-roll) and markers are moved and shortened by the timeline stretches removed before and
 * inside them (a clip wholly inside a removed stretch is dropped), transitions and fades kept
 * within their clips. The timeline stretches are those of the track with the most removed.
 *
 * Pure: no reads or writes; the only effect is drawing fresh `clp_` ids for new pieces.
 *
 * @returns the cut composition with counts, seconds and a one-line summary; the composition
 *   unchanged (a copy) with "nothing to remove" when no cut applies.
 */
export function removePauses<T extends Timeline>(
  composition: T,
  options: RemovePausesOptions,
): RemovePausesResult<T> {
  const minPiece = options.minPiece ?? REMOVE_PAUSES_DEFAULTS.minPiece;
  const cuts = pauseCuts(options);
  const all = merged([...cuts.silences, ...cuts.fillers]);
  const doc = structuredClone(composition);
  const targets = doc.tracks.filter((t) => t.clips.some((c) => isTarget(c, options)));
  const clips = targets.flatMap((t) => t.clips.filter((c) => isTarget(c, options)));
  const none: RemovedAmount = { count: 0, seconds: 0 };
  if (all.length === 0 || targets.length === 0) {
    return {
      composition: doc,
      summary: "nothing to remove",
      removed: none,
      silences: none,
      fillers: none,
      cuts: [],
      sourceCuts: all,
    };
  }
  // Caption clips in step with a clip of the recording (its speech's captions), by id.
  const linked = new Map<string, Clip>();
  for (const track of doc.tracks) {
    if (targets.includes(track)) continue;
    for (const c of track.clips) {
      const media = c.asset.type === "caption" ? clips.find((x) => inStep(x, c)) : undefined;
      if (media) linked.set(c.id, media);
    }
  }
  // Recut each track playing the recording; markers move with the one losing the most.
  const pieces = new Map<string, Clip[]>();
  const done = targets.map((track) => {
    const ranges = new Map(
      track.clips
        .filter((c) => isTarget(c, options))
        .map((c) => [c.id, clipCuts(c, all, cuts.speech, minPiece)]),
    );
    const result = removeSourceRanges(track, undefined, ranges, 0);
    for (const [id, ids] of result.pieces) {
      pieces.set(
        id,
        ids.map((p) => track.clips.find((c) => c.id === p) as Clip),
      );
    }
    return result;
  });
  const primary = done.reduce((a, b) => (b.removedSeconds > a.removedSeconds ? b : a));
  const removedAt = primary.removedAt;
  rippleMarkers(doc.markers, removedAt);
  for (const track of doc.tracks) {
    if (targets.includes(track)) continue;
    // Captions in step become the pieces of their clip (same places, same source); the rest ripples.
    const captions = track.clips.filter((c) => linked.has(c.id));
    rippleTrack(track, removedAt, new Set(captions.map((c) => c.id)));
    for (const caption of captions) {
      const media = pieces.get((linked.get(caption.id) as Clip).id) ?? [];
      const first = media[0];
      if (!first) continue;
      track.clips.push(...recutClip({ ...caption, start: first.start }, media.map(sourceSpan)));
    }
    track.clips.sort((a, b) => a.start - b.start);
    fitTransitions(track);
  }
  const silences = timelineSeconds(clips, cuts.silences);
  const fillers = timelineSeconds(clips, cuts.fillers);
  const removed = { count: silences.count + fillers.count, seconds: primary.removedSeconds };
  return {
    composition: doc,
    summary: summaryOf(silences, fillers, removed),
    removed,
    silences,
    fillers,
    cuts: merged(removedAt.map((r) => ({ start: r3(r.start), end: r3(r.end) }))),
    sourceCuts: all,
  };
}

/**
 * Moves and shortens every clip of `track` by the timeline stretches `removed` (times before the
 * cut): its start and end go where `rippledTime` puts them; a clip left shorter than a
 * millisecond is dropped, and so is every clip of `drop` (ids); fades and transitions are kept
 * within the clip.
 */
function rippleTrack(track: Track, removed: readonly SourceRange[], drop: ReadonlySet<string>): void {
  track.clips = track.clips.flatMap((clip) => {
    if (drop.has(clip.id)) return [];
    const start = r3(rippledTime(removed, clip.start));
    const duration = r3(r3(rippledTime(removed, clip.start + clip.duration)) - start);
    if (duration < 1e-3) return [];
    const out: Clip = { ...clip, start, duration };
    if (out.fadeIn !== undefined) out.fadeIn = Math.min(out.fadeIn, duration);
    if (out.fadeOut !== undefined) out.fadeOut = Math.min(out.fadeOut, duration - (out.fadeIn ?? 0));
    if (out.transition)
      out.transition = { ...out.transition, duration: Math.min(out.transition.duration, duration) };
    return [out];
  });
}
