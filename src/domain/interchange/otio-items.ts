import { z } from "zod";
import { invalidRequest } from "../../errors.ts";
import { TRANSITION_TYPES } from "../composition/schema.ts";
import { CUTROOM_NS } from "./common.ts";
import {
  Clip,
  Gap,
  type OtioClipIn,
  type OtioMediaReferenceIn,
  type OtioRationalTimeIn,
  type OtioTimeRangeIn,
  parseAt,
  Stack,
  TimeRange,
  Track,
  Transition,
} from "./otio-schema.ts";

/** A transition item of a parsed track. */
export interface TransitionItem {
  kind: "transition";
  path: string;
  duration: number;
  /** `in_offset` and `out_offset`, seconds: the parts before and after the cut. */
  before: number;
  after: number;
  type: (typeof TRANSITION_TYPES)[number];
}
/** A gap (or a disabled clip, or an item Cutroom cannot carry) of a parsed track. */
export interface GapItem {
  kind: "gap";
  path: string;
  duration: number;
  /** Frame rate of the item's range, when it has one (the timeline's rate is read from these). */
  rate?: number | undefined;
  /** The clip whose time this gap leaves empty (its markers are kept). */
  replaces?: ClipItem | undefined;
}
/** A clip item of a parsed track. */
export interface ClipItem {
  kind: "clip";
  path: string;
  clip: OtioClipIn;
  reference: OtioMediaReferenceIn | null;
  /** Seconds on the timeline; null when neither the clip nor its reference gives a range (the upload's probe decides). */
  duration: number | null;
  /** Source time of the clip's first frame, seconds (reference timecode included). */
  sourceStart: number;
  /** `time_scalar` of its `LinearTimeWarp.1`, 1 without one (and for a freeze). */
  speed: number;
  /**
   * Source time of the frame a freeze holds (`FreezeFrame.1`, or a `LinearTimeWarp.1` of
   * `time_scalar` 0), seconds: the clip's first frame, kept when the item is cut. Null when it plays.
   */
  heldAt: number | null;
  /** Set on a piece of a clip cut by flattening: only its markers in this source range [from, to) are kept. */
  piece?: { from: number; to: number } | undefined;
}
/** One item of a parsed track. */
export type OtioItem = TransitionItem | GapItem | ClipItem;

/** Something of the document that Cutroom does not carry, and where it is. */
export interface ImportWarning {
  /** JSON Pointer of the item in the request body. */
  path: string;
  message: string;
}

/** Seconds of a `RationalTime.1`, unrounded: sums stay exact until a value is written out. */
export const seconds = (t: OtioRationalTimeIn) => t.value / t.rate;
/** Start and duration of a `TimeRange.1`, seconds. */
export const rangeSeconds = (r: OtioTimeRangeIn) => ({
  start: seconds(r.start_time),
  duration: seconds(r.duration),
});

/** Our namespace inside an OTIO `metadata` object, or `{}`. */
export function cutroom(metadata: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const ns = metadata?.[CUTROOM_NS];
  return ns && typeof ns === "object" && !Array.isArray(ns) ? (ns as Record<string, unknown>) : {};
}

/**
 * Current schema name of a legacy one, by OpenTimelineIO's upgrade rules: `Sequence.1` is
 * `Track.1`; `Clip.1` (one `media_reference`) is read as it is.
 */
export function upgradeSchema(name: string): string {
  return name === "Sequence.1" ? "Track.1" : name;
}

function upgraded(item: { OTIO_SCHEMA: string }): { OTIO_SCHEMA: string } {
  const name = upgradeSchema(item.OTIO_SCHEMA);
  return name === item.OTIO_SCHEMA ? item : { ...item, OTIO_SCHEMA: name };
}

function activeReference(clip: OtioClipIn): OtioMediaReferenceIn | null {
  if (clip.media_references) {
    const key = clip.active_media_reference_key ?? "DEFAULT_MEDIA";
    return clip.media_references[key] ?? Object.values(clip.media_references)[0] ?? null;
  }
  return clip.media_reference ?? null;
}

/** The transition type a Cutroom export recorded, else `fade` (other tools' type names differ). */
function transitionType(metadata: Record<string, unknown> | null | undefined): TransitionItem["type"] {
  const ours = cutroom(metadata).type;
  if (typeof ours === "string" && (TRANSITION_TYPES as readonly string[]).includes(ours)) {
    return ours as TransitionItem["type"];
  }
  return "fade";
}

const effectName = (e: { OTIO_SCHEMA: string; effect_name?: unknown; name?: unknown }) =>
  (typeof e.effect_name === "string" && e.effect_name) ||
  (typeof e.name === "string" && e.name) ||
  e.OTIO_SCHEMA;

const TIME_EFFECT = /^(LinearTimeWarp|FreezeFrame)\./;

/**
 * Warns about each effect other than a clip's `LinearTimeWarp.1` and `FreezeFrame.1` (Cutroom
 * carries speed and freezes only).
 */
function warnEffects(
  effects: readonly { OTIO_SCHEMA: string; effect_name?: unknown; name?: unknown }[] | null | undefined,
  path: string,
  warnings: ImportWarning[],
  allowTimeEffects: boolean,
): void {
  (effects ?? []).forEach((e, k) => {
    if (allowTimeEffects && TIME_EFFECT.test(e.OTIO_SCHEMA)) return;
    warnings.push({
      path: `${path}/effects/${k}`,
      message: `effect not carried: ${e.OTIO_SCHEMA} "${effectName(e)}"`,
    });
  });
}

function parseClip(raw: unknown, path: string, warnings: ImportWarning[]): OtioItem {
  const clip = parseAt(Clip, raw, path);
  const reference = activeReference(clip);
  const range = clip.source_range ?? reference?.available_range ?? null;
  const rate = clip.source_range?.duration.rate;
  const duration = range ? rangeSeconds(range).duration : null;
  const sourceStart = range ? rangeSeconds(range).start : 0;
  // A freeze is OTIO's `FreezeFrame.1` (a time warp of scalar 0), or such a warp written as is.
  const freeze = (clip.effects ?? []).some(
    (e) =>
      /^FreezeFrame\./.test(e.OTIO_SCHEMA) ||
      (/^LinearTimeWarp\./.test(e.OTIO_SCHEMA) && e.time_scalar === 0),
  );
  const warp = (clip.effects ?? []).find((e) => /^LinearTimeWarp\./.test(e.OTIO_SCHEMA));
  const speed = freeze ? 1 : (warp?.time_scalar ?? 1);
  warnEffects(clip.effects, path, warnings, true);
  if (warp && speed < 0) {
    warnings.push({
      path,
      message: `time_scalar ${speed} not carried: Cutroom plays forward only (speed 1)`,
    });
  }
  const item: ClipItem = {
    kind: "clip",
    path,
    clip,
    reference,
    duration,
    sourceStart,
    speed: speed > 0 ? speed : 1,
    heldAt: freeze ? sourceStart : null,
  };
  // A disabled clip leaves its time empty, as in OTIO; its markers stay.
  if (clip.enabled === false) return { kind: "gap", path, duration: duration ?? 0, rate, replaces: item };
  if (
    reference?.OTIO_SCHEMA === "GeneratorReference.1" &&
    !(reference.generator_kind === "SolidColor" && typeof reference.parameters?.color === "string")
  ) {
    warnings.push({
      path,
      message: `generator "${reference.generator_kind}" not carried (only SolidColor with a #rrggbb color is): its time is left empty`,
    });
    return { kind: "gap", path, duration: duration ?? 0, rate };
  }
  if (
    reference &&
    ![
      "ExternalReference.1",
      "ImageSequenceReference.1",
      "GeneratorReference.1",
      "MissingReference.1",
    ].includes(reference.OTIO_SCHEMA)
  ) {
    warnings.push({
      path,
      message: `media reference ${reference.OTIO_SCHEMA} not carried: its time is left empty`,
    });
    return { kind: "gap", path, duration: duration ?? 0 };
  }
  return item;
}

/**
 * The items of a track's `children`, nested stacks and tracks flattened in place. An item
 * Cutroom cannot carry leaves its time empty and adds a warning.
 * @throws AppError 400 naming the JSON Pointer of a malformed item.
 */
export function parseItems(
  children: readonly unknown[],
  path: string,
  warnings: ImportWarning[],
): OtioItem[] {
  return children.flatMap((raw, i) => parseItem(raw, `${path}/children/${i}`, warnings));
}

const Named = z.looseObject({ OTIO_SCHEMA: z.string() });

/** One child of a track as track items (a nested stack or track gives several). */
export function parseItem(raw: unknown, itemPath: string, warnings: ImportWarning[]): OtioItem[] {
  const item = upgraded(parseAt(Named, raw, itemPath));
  const schema = item.OTIO_SCHEMA;
  if (schema === "Transition.1") {
    const t = parseAt(Transition, item, itemPath);
    return [
      {
        kind: "transition",
        path: itemPath,
        duration: seconds(t.in_offset) + seconds(t.out_offset),
        before: seconds(t.in_offset),
        after: seconds(t.out_offset),
        type: transitionType(t.metadata),
      },
    ];
  }
  if (schema === "Gap.1") {
    const g = parseAt(Gap, item, itemPath);
    return [
      {
        kind: "gap",
        path: itemPath,
        duration: rangeSeconds(g.source_range).duration,
        rate: g.source_range.duration.rate,
      },
    ];
  }
  if (/^Clip\.[12]$/.test(schema)) return [parseClip(item, itemPath, warnings)];
  if (schema === "Stack.1" || schema === "Track.1") return flattenNested(item, itemPath, warnings);
  const rawRange = (item as { source_range?: unknown }).source_range;
  const range = rawRange ? rangeSeconds(parseAt(TimeRange, rawRange, `${itemPath}/source_range`)) : null;
  warnings.push({
    path: itemPath,
    message: `item ${schema} not carried${range ? ": its time is left empty" : ""}`,
  });
  return range ? [{ kind: "gap", path: itemPath, duration: range.duration }] : [];
}

/** A piece of a flattened track: [start, end) seconds in the nested composition's time. */
interface Segment {
  start: number;
  end: number;
  item: GapItem | ClipItem;
}

/** The part of `item` from `from` to `to` seconds into it (a clip's source start moves with it). */
export function slice(item: GapItem | ClipItem, from: number, to: number): GapItem | ClipItem {
  if (item.kind === "gap") return { ...item, duration: to - from };
  const sourceStart = item.sourceStart + from * item.speed;
  const piece = { from: sourceStart, to: sourceStart + (to - from) * item.speed };
  return { ...item, duration: to - from, sourceStart, piece };
}

/**
 * The items of a track seen through its `source_range` (OpenTimelineIO: a track's range trims
 * its children in the track's own time): the part from `from` to `to` seconds, items cut at
 * the edges (a clip keeps the right source start), time past the children left empty. A
 * transition stays when its cut lies inside the range; one on or beyond an edge is a warning.
 */
export function trimItems(
  items: OtioItem[],
  from: number,
  to: number,
  path: string,
  warnings: ImportWarning[],
): OtioItem[] {
  const out: OtioItem[] = [];
  // A range starting before the children (negative time) shows empty time first.
  if (from < 0) out.push({ kind: "gap", path: `${path}/source_range`, duration: Math.min(0, to) - from });
  let cursor = 0;
  for (const item of items) {
    if (item.kind === "transition") {
      if (cursor > from + 1e-9 && cursor < to - 1e-9) out.push(item);
      else
        warnings.push({
          path: item.path,
          message: "transition at or outside the edge of its track's source_range not carried",
        });
      continue;
    }
    const duration = item.duration ?? 0;
    const a = Math.max(cursor, from);
    const b = Math.min(cursor + duration, to);
    if (b > a + 1e-9) out.push(slice({ ...item, duration }, a - cursor, b - cursor));
    cursor += duration;
  }
  const shown = Math.max(cursor, from);
  if (to > shown + 1e-9) out.push({ kind: "gap", path: `${path}/source_range`, duration: to - shown });
  return out;
}

function segments(items: OtioItem[]): Segment[] {
  const out: Segment[] = [];
  let cursor = 0;
  for (const item of items) {
    if (item.kind === "transition") continue;
    const duration = item.duration ?? 0;
    out.push({ start: cursor, end: cursor + duration, item: { ...item, duration } });
    cursor += duration;
  }
  return out;
}

/** `base` with the parts of it in [start, end) replaced by `over` (pieces cut at the edges). */
function overlay(base: Segment[], over: Segment): Segment[] {
  const out: Segment[] = [];
  for (const s of base) {
    if (s.end <= over.start || s.start >= over.end) {
      out.push(s);
      continue;
    }
    if (s.start < over.start)
      out.push({ start: s.start, end: over.start, item: slice(s.item, 0, over.start - s.start) });
    if (s.end > over.end)
      out.push({ start: over.end, end: s.end, item: slice(s.item, over.end - s.start, s.end - s.start) });
  }
  out.push(over);
  return out.sort((a, b) => a.start - b.start);
}

/**
 * A nested `Stack.1` or `Track.1` as the items of one track, as OpenTimelineIO's
 * `flatten_stack` does: tracks stacked bottom to top, an upper track's clip wins wherever it is
 * not a gap; then the nested item's `source_range` selects the part shown. Transitions inside
 * and effects on the nested item are not carried (warnings).
 */
function flattenNested(item: { OTIO_SCHEMA: string }, path: string, warnings: ImportWarning[]): OtioItem[] {
  const isStack = item.OTIO_SCHEMA === "Stack.1";
  const nested = isStack ? parseAt(Stack, item, path) : parseAt(Track, item, path);
  const own = nested as { source_range?: OtioTimeRangeIn | null; effects?: { OTIO_SCHEMA: string }[] | null };
  warnEffects(own.effects as Parameters<typeof warnEffects>[0], path, warnings, false);
  if ((nested.markers ?? []).length) {
    warnings.push({ path: `${path}/markers`, message: "markers of a nested stack or track not carried" });
  }
  const layers: { items: OtioItem[]; path: string }[] = isStack
    ? nested.children.map((child, j) => {
        const childPath = `${path}/children/${j}`;
        const c = upgraded(child);
        if (c.OTIO_SCHEMA !== "Track.1") return { items: parseItem(c, childPath, warnings), path: childPath };
        const track = parseAt(Track, c, childPath);
        if (track.enabled === false) return { items: [], path: childPath };
        return { items: parseItems(track.children, childPath, warnings), path: childPath };
      })
    : [{ items: parseItems(nested.children, path, warnings), path }];
  let flat: Segment[] = [];
  for (const layer of layers) {
    if (layer.items.some((x) => x.kind === "transition")) {
      warnings.push({
        path: layer.path,
        message: "transitions inside a nested stack or track not carried (cuts)",
      });
    }
    const segs = segments(layer.items);
    if (flat.length === 0) flat = segs;
    else for (const s of segs) if (s.item.kind === "clip" && s.end > s.start) flat = overlay(flat, s);
  }
  const length = flat.reduce((m, s) => Math.max(m, s.end), 0);
  const range = own.source_range ? rangeSeconds(own.source_range) : { start: 0, duration: length };
  const from = range.start;
  const to = range.start + range.duration;
  const out: OtioItem[] = [];
  let cursor = from;
  for (const s of flat) {
    const a = Math.max(s.start, from);
    const b = Math.min(s.end, to);
    if (b <= a) continue;
    if (a > cursor) out.push({ kind: "gap", path, duration: a - cursor });
    out.push(slice(s.item, a - s.start, b - s.start));
    cursor = b;
  }
  if (to > cursor) out.push({ kind: "gap", path, duration: to - cursor });
  return out;
}

/** Throws when a required range is missing where no probe can supply it. */
export function requireDuration(item: ClipItem): number {
  if (item.duration !== null) return item.duration;
  throw invalidRequest("A clip has no source_range and its media no length", [
    { path: `${item.path}/source_range`, message: "required: neither the clip nor its media give a range" },
  ]);
}
