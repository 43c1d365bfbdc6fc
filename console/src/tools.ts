// The editing tools' document logic (text, captions, tracks, composition settings): pure
// functions from a composition to the JSON Patch that makes the change.
import type {
  Composition,
  JsonPatchOperation as PatchOperation,
} from "../../clients/typescript/src/types.ts";

type Track = Composition["tracks"][number];
type Clip = Track["clips"][number];

/** Text appearance of text and caption clips (sizes in pixels at the canvas height). */
export type TextStyle = Extract<Clip["asset"], { type: "text" }>["style"];
/** A clip as a write sends it (the server gives it an id). */
export type ClipDraft = Omit<Clip, "id">;
type TrackKind = Track["kind"];

/** The font families every server has (uploaded fonts add theirs). */
export const BUNDLED_FAMILIES = ["DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono"] as const;

/** Where text sits in the frame: its box alignment (horizontal and vertical). */
export const TEXT_POSITIONS = {
  "Top centre": { align: "center", valign: "top" },
  Centre: { align: "center", valign: "center" },
  "Bottom centre": { align: "center", valign: "bottom" },
  "Bottom left": { align: "left", valign: "bottom" },
  "Top left": { align: "left", valign: "top" },
} as const satisfies Record<string, Pick<TextStyle, "align" | "valign">>;
export type TextPosition = keyof typeof TEXT_POSITIONS;

/** The position preset a style matches, if any. */
export function positionOf(style: Pick<TextStyle, "align" | "valign">): TextPosition | undefined {
  const align = style.align ?? "center";
  const valign = style.valign ?? "center";
  return (Object.keys(TEXT_POSITIONS) as TextPosition[]).find(
    (k) => TEXT_POSITIONS[k].align === align && TEXT_POSITIONS[k].valign === valign,
  );
}

/**
 * Time `t` seconds on the frame grid of a `fps` canvas (the nearest frame start, to the
 * microsecond); 23.976, 29.97 and 59.94 are the NTSC rates 24000/1001, 30000/1001 and 60000/1001.
 */
export function onFrame(t: number, fps: number): number {
  const ntsc = Math.abs(fps * 1.001 - Math.round(fps * 1.001)) < 0.01 && !Number.isInteger(fps);
  const frame = ntsc ? 1001 / (Math.round(fps * 1.001) * 1000) : 1 / fps;
  return Math.round(Math.round(Math.max(0, t) / frame) * frame * 1e6) / 1e6;
}

/** The kinds of text the Text tool adds. */
export type TextKind = "title" | "lower-third";

/**
 * The starting style of a title (large, bold, centred, outlined) or a lower third (smaller,
 * bottom left, on a dark box), sized for a canvas `height` pixels high.
 */
export function textStyleFor(kind: TextKind, height: number): TextStyle {
  if (kind === "title") {
    return {
      family: "DejaVu Sans",
      size: Math.max(8, Math.round(height * 0.09)),
      weight: 700,
      color: "#ffffff",
      align: "center",
      valign: "center",
      stroke: { color: "#000000", width: Math.max(1, Math.round(height / 360)) },
    };
  }
  return {
    family: "DejaVu Sans",
    size: Math.max(8, Math.round(height * 0.05)),
    weight: 600,
    color: "#ffffff",
    align: "left",
    valign: "bottom",
    background: { color: "#1a1d23", padding: Math.max(2, Math.round(height * 0.015)) },
  };
}

/** The style captions start with on a canvas `height` pixels high: white on a thin outline, bottom centre. */
export function captionStyleFor(height: number): TextStyle {
  return {
    family: "DejaVu Sans",
    size: Math.max(8, Math.round(height * 0.055)),
    color: "#ffffff",
    align: "center",
    valign: "bottom",
    stroke: { color: "#000000", width: Math.max(1, Math.round(height / 540)) },
    highlightColor: "#ffd000",
  };
}

/** What a track holds, as its label says it: text and caption tracks are video tracks by kind. */
export function trackContent(track: Pick<Track, "kind" | "clips">): "video" | "audio" | "text" | "captions" {
  if (track.kind === "audio") return "audio";
  const types = new Set(track.clips.map((c) => c.asset.type));
  if (types.size === 1 && types.has("text")) return "text";
  if (types.size === 1 && types.has("caption")) return "captions";
  return "video";
}

/** Whether `track` has no clip overlapping [start, end) seconds. */
function freeAt(track: Track, start: number, end: number): boolean {
  return track.clips.every((c) => c.start + c.duration <= start + 1e-6 || c.start >= end - 1e-6);
}

/** Adds `clip` to track `t`, or (t = "new") as the only clip of a new track of `kind` on top. */
function placeOps(t: number | "new", clip: ClipDraft, kind: TrackKind, name?: string): PatchOperation[] {
  if (t === "new") {
    return [{ op: "add", path: "/tracks/-", value: { kind, ...(name ? { name } : {}), clips: [clip] } }];
  }
  return [{ op: "add", path: `/tracks/${t}/clips/-`, value: clip }];
}

/**
 * Puts an overlay clip (a title, captions) above the picture: on the highest video track that holds
 * only clips of the same content and is free for the clip's span, else on a new top track named
 * `name` (tracks are layered bottom to top, so a new last track draws over everything).
 */
export function overlayClipOps(c: Composition, clip: ClipDraft, name: string): PatchOperation[] {
  const content = clip.asset.type === "caption" ? "captions" : "text";
  const last = c.tracks.length - 1;
  const top = c.tracks[last];
  const fits = top && trackContent(top) === content && freeAt(top, clip.start, clip.start + clip.duration);
  return placeOps(fits ? last : "new", clip, "video", name);
}

/** The track kind a clip of asset type `type` needs: audio clips go on audio tracks, the rest on video. */
export function kindFor(type: Clip["asset"]["type"]): TrackKind {
  return type === "audio" ? "audio" : "video";
}

/**
 * Where a clip dropped on track `t` goes: that track when its kind fits the clip; else the first
 * track of the right kind that is free for the clip's span, else a new one, and `moved` says why
 * it went elsewhere. Without `t` (added at the playhead) the first track of the right kind, else
 * a new one.
 */
export function dropOps(
  c: Composition,
  t: number | undefined,
  clip: ClipDraft,
): { ops: PatchOperation[]; track: number | "new"; moved: string | null } {
  const kind = kindFor(clip.asset.type);
  const end = clip.start + clip.duration;
  const wanted = t === undefined ? undefined : c.tracks[t];
  if (wanted && wanted.kind === kind && t !== undefined) {
    return { ops: placeOps(t, clip, kind), track: t, moved: null };
  }
  if (t === undefined) {
    const first = c.tracks.findIndex((x) => x.kind === kind);
    return {
      ops: placeOps(first >= 0 ? first : "new", clip, kind),
      track: first >= 0 ? first : "new",
      moved: null,
    };
  }
  const free = c.tracks.findIndex((x) => x.kind === kind && freeAt(x, clip.start, end));
  const track = free >= 0 ? free : ("new" as const);
  const why = wanted
    ? `an ${wanted.kind} track holds ${wanted.kind === "audio" ? "sound only" : "no sound-only clips"}, so it went on ${track === "new" ? `a new ${kind} track` : `track ${track + 1}`}`
    : null;
  return { ops: placeOps(track, clip, kind), track, moved: why };
}

/** Adds a track of `kind` on top (the last track), empty or holding `clips`. */
export function addTrackOps(kind: TrackKind, clips: ClipDraft[] = []): PatchOperation[] {
  return [{ op: "add", path: "/tracks/-", value: { kind, clips } }];
}

/** The composition-wide settings the settings form edits. */
export interface CompositionSettings {
  name: string;
  width: number;
  height: number;
  fps: Composition["canvas"]["fps"];
  background: string;
}

/** The patch that changes `c`'s settings into `next` (only what differs). */
export function settingsOps(c: Composition, next: CompositionSettings): PatchOperation[] {
  const ops: PatchOperation[] = [];
  if (next.name !== c.name) ops.push({ op: "replace", path: "/name", value: next.name });
  for (const key of ["width", "height", "fps", "background"] as const) {
    if (next[key] !== c.canvas[key]) ops.push({ op: "replace", path: `/canvas/${key}`, value: next[key] });
  }
  return ops;
}

/** Aspect presets of the settings form. */
export const ASPECTS = [
  { label: "16:9", w: 16, h: 9 },
  { label: "9:16", w: 9, h: 16 },
  { label: "1:1", w: 1, h: 1 },
] as const;

/**
 * The canvas size of aspect `w`:`h` that keeps the current size's long edge (1920×1080 → 9:16
 * is 1080×1920; 320×180 → 180×320), in even pixels within 16..4096.
 */
export function aspectSize(current: { width: number; height: number }, w: number, h: number) {
  const long = Math.max(current.width, current.height);
  const even = (n: number) => Math.max(16, Math.min(4096, Math.round(n / 2) * 2));
  return w >= h
    ? { width: even(long), height: even((long * h) / w) }
    : { width: even((long * w) / h), height: even(long) };
}

/** Box presets for a picture clip: full frame, or a picture-in-picture corner. */
export const PICTURE_LAYOUTS = {
  "Full frame": undefined,
  "Picture in picture, top right": { x: 0.75, y: 0.25, width: 0.35, height: 0.35 },
  "Picture in picture, bottom right": { x: 0.75, y: 0.75, width: 0.35, height: 0.35 },
  "Picture in picture, bottom left": { x: 0.25, y: 0.75, width: 0.35, height: 0.35 },
} as const satisfies Record<string, Clip["transform"]>;
export type PictureLayout = keyof typeof PICTURE_LAYOUTS;
