import { XMLBuilder } from "fast-xml-parser";
import { compositionDuration } from "../composition/duration.ts";
import type { Clip, Composition, MediaAsset, Track } from "../composition/schema.ts";
import { isMediaAsset } from "../composition/schema.ts";
import { gcd, secondsToFrame, toFrameRate } from "../render/timeline.ts";
import type { ResolvedMedia } from "./common.ts";

/**
 * MLT XML export (the project format of Kdenlive and Shotcut, rendered by `melt`); the mapping
 * and what it loses are in docs/interchange.md.
 */

/** A node of fast-xml-parser's order-preserving tree: `{ tag: children, ":@": attributes }`. */
type XmlNode = Record<string, unknown>;

/** An element with attributes (written as given) and children, in document order. */
function el(
  tag: string,
  attrs: Record<string, string | number | undefined> = {},
  children: XmlNode[] = [],
): XmlNode {
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) attributes[`@_${k}`] = String(v);
  return { [tag]: children, ":@": attributes };
}

/** Length given to colour and image producers: they last as long as their entries ask. */
const FOREVER = 2_147_483_647;

/** `#rrggbb[aa]` → MLT's `#aarrggbb` (alpha first) or `#rrggbb`. */
function mltColor(hex: string): string {
  return hex.length === 9 ? `#${hex.slice(7, 9)}${hex.slice(1, 7)}` : hex;
}

/** `<property name="…">value</property>`. */
const property = (name: string, value: string | number) =>
  el("property", { name }, [{ "#text": String(value) }]);

class MltDocument {
  readonly producers: XmlNode[] = [];
  readonly playlists: XmlNode[] = [];
  readonly tractors: XmlNode[] = [];
  private seq = 0;
  private readonly media: (asset: MediaAsset) => ResolvedMedia;
  private readonly frames: (seconds: number) => number;

  constructor(media: (asset: MediaAsset) => ResolvedMedia, frames: (seconds: number) => number) {
    this.media = media;
    this.frames = frames;
  }

  nextId(prefix: string): string {
    return `${prefix}${this.seq++}`;
  }

  /**
   * Filters of one clip use: its gain (`volume`, linear `gain`) and, on the clip's own entry
   * (`span`, source frames), its fades as keyframed `brightness` (picture, to and from black)
   * and `volume` (sound, to and from −60 dB).
   */
  filters(clip: Clip, hideVideo: boolean, span?: { in: number; out: number }): XmlNode[] {
    const out: XmlNode[] = [];
    const gain = clip.muted ? 0 : (clip.volume ?? 1);
    if (gain !== 1) {
      out.push(
        el("filter", { id: this.nextId("filter") }, [
          property("mlt_service", "volume"),
          property("gain", gain),
        ]),
      );
    }
    if (!span) return out;
    const length = span.out - span.in + 1;
    const fadeIn = Math.min(length, this.frames(clip.fadeIn ?? 0));
    const fadeOut = Math.min(length, this.frames(clip.fadeOut ?? 0));
    if (fadeIn === 0 && fadeOut === 0) return out;
    const keyframes = (low: number, high: number) =>
      [
        ...(fadeIn ? [`0=${low}`, `${fadeIn}=${high}`] : [`0=${high}`]),
        // As our render: full level `fadeOut` frames before the end, reaching `low` at the end.
        ...(fadeOut ? [`${length - fadeOut}=${high}`, `${length}=${low}`] : []),
      ].join(";");
    const fade = (service: string, name: string, low: number, high: number) =>
      el("filter", { id: this.nextId("filter"), in: span.in, out: span.out }, [
        property("mlt_service", service),
        property(name, keyframes(low, high)),
        property("cutroom:fade", `${clip.fadeIn ?? 0}/${clip.fadeOut ?? 0}`),
      ]);
    if (!hideVideo) out.push(fade("brightness", "level", 0, 1));
    out.push(fade("volume", "level", -60, 0));
    return out;
  }

  /** A new producer for one use of a clip's source; returns its id (`null` for text and captions). */
  producer(clip: Clip, hideVideo: boolean, span?: { in: number; out: number }): string | null {
    const asset = clip.asset;
    const props: XmlNode[] = [];
    if (asset.type === "color") {
      props.push(property("mlt_service", "color"), property("resource", mltColor(asset.color)));
      props.push(property("length", FOREVER));
    } else if (isMediaAsset(asset)) {
      const resolved = this.media(asset);
      const resource = resolved.path ?? resolved.targetUrl;
      const speed = clip.speed ?? 1;
      if (asset.type === "image") {
        props.push(property("mlt_service", "qimage"), property("resource", resource));
        props.push(property("length", FOREVER), property("ttl", 1));
      } else if (clip.freeze) {
        // `hold` repeats one frame of its source (at the profile's rate), without sound.
        props.push(property("mlt_service", "hold"), property("resource", resource));
        props.push(property("frame", this.frames(clip.trim ?? 0)), property("length", FOREVER));
      } else if (speed !== 1) {
        props.push(property("mlt_service", "timewarp"), property("resource", `${speed}:${resource}`));
      } else {
        props.push(property("mlt_service", "avformat"), property("resource", resource));
      }
      if (hideVideo) props.push(property("video_index", -1));
      if (resolved.uploadId) props.push(property("cutroom:uploadId", resolved.uploadId));
    } else {
      return null;
    }
    props.push(property("cutroom:clipId", clip.id), ...this.filters(clip, hideVideo, span));
    const id = this.nextId("producer");
    this.producers.push(el("producer", { id, in: 0 }, props));
    return id;
  }

  /** Source frame shown at timeline frame `f` of a clip (frames of the producer's timebase). */
  sourceFrame(clip: Clip, f: number): number {
    const speed = clip.speed ?? 1;
    return this.frames((clip.trim ?? 0) / speed) + (f - this.frames(clip.start));
  }

  /**
   * A short tractor that crossfades the tail of `a` into the head of `b` over `length` frames
   * starting at timeline frame `from` (luma without a pattern = dissolve, plus an audio mix).
   */
  crossfade(a: Clip, b: Clip, from: number, length: number, hideVideo: boolean): string | null {
    const pa = this.producer(a, hideVideo);
    const pb = this.producer(b, hideVideo);
    if (!pa || !pb) return null;
    const id = this.nextId("transition_tractor");
    const inA = this.sourceFrame(a, from);
    const inB = Math.max(0, this.sourceFrame(b, from));
    const transition = (service: string, extra: XmlNode[] = []) =>
      el("transition", { id: this.nextId("transition"), out: length - 1 }, [
        property("a_track", 0),
        property("b_track", 1),
        property("mlt_service", service),
        ...extra,
      ]);
    this.tractors.push(
      el("tractor", { id, in: 0, out: length - 1 }, [
        property("shotcut:transition", "lumaMix"),
        property("cutroom:transition", b.transition?.type ?? ""),
        el("track", { producer: pa, in: inA, out: inA + length - 1 }),
        el("track", { producer: pb, in: inB, out: inB + length - 1 }),
        transition("luma"),
        transition("mix", [property("start", -1), property("accepts_blanks", 1)]),
      ]),
    );
    return id;
  }

  /** One playlist for a track: blanks for gaps, entries for clips, transition tractors for crossfades. */
  playlist(track: Track): string {
    const id = this.nextId("playlist");
    const hideVideo = track.kind === "audio";
    const clips = track.clips;
    // Frames each clip gives up at its head/tail to the crossfade tractors around it.
    const head = new Map<string, number>();
    const tail = new Map<string, number>();
    const crossfades = new Map<string, { from: number; length: number; a: Clip }>();
    clips.forEach((clip, i) => {
      const prev = clips[i - 1];
      if (!clip.transition || !prev) return;
      const cut = this.frames(clip.start);
      if (this.frames(prev.start + prev.duration) !== cut) return; // from a gap: a cut in MLT
      const length = this.frames(clip.transition.duration);
      if (length < 2) return;
      const before = Math.floor(length / 2);
      tail.set(prev.id, before);
      head.set(clip.id, length - before);
      crossfades.set(clip.id, { from: cut - before, length, a: prev });
    });
    const items: XmlNode[] = [property("cutroom:trackId", track.id)];
    if (track.name) items.push(property("shotcut:name", track.name));
    let cursor = 0;
    for (const clip of clips) {
      const start = this.frames(clip.start);
      const end = this.frames(clip.start + clip.duration);
      const fade = crossfades.get(clip.id);
      const tractor = fade ? this.crossfade(fade.a, clip, fade.from, fade.length, hideVideo) : null;
      const from = tractor && fade ? fade.from : start;
      if (from > cursor) items.push(el("blank", { length: from - cursor }));
      if (tractor && fade) items.push(el("entry", { producer: tractor, in: 0, out: fade.length - 1 }));
      const entryStart = start + (tractor ? (head.get(clip.id) ?? 0) : 0);
      const entryEnd = end - (tail.get(clip.id) ?? 0);
      if (entryEnd > entryStart) {
        const first = this.sourceFrame(clip, entryStart);
        const span = { in: first, out: first + (entryEnd - entryStart) - 1 };
        const producer = this.producer(clip, hideVideo, span);
        if (producer) {
          items.push(el("entry", { producer, ...span }));
        } else {
          items.push(el("blank", { length: entryEnd - entryStart }));
        }
      }
      cursor = Math.max(cursor, entryEnd);
    }
    this.playlists.push(el("playlist", { id }, items));
    return id;
  }
}

/**
 * Serialises a stored composition as MLT XML, the project format of Kdenlive and Shotcut that
 * `melt` renders.
 *
 * - The profile is the canvas: size, exact frame rate (29.97 → 30000/1001), square pixels;
 *   seconds become frames as the renderer counts them.
 * - Every clip is a producer: `avformat` for video and audio (`timewarp` when `speed` ≠ 1, `hold`
 *   for a frozen clip),
 *   `qimage` for images, `color` for colour clips; entry `in`/`out` are source frames (trim).
 * - Each track is a playlist with `blank`s for gaps; a crossfade between two touching clips is a
 *   short tractor of the outgoing tail and incoming head with a `luma` (dissolve) and a `mix`
 *   transition, centred on the cut as our renderer does.
 * - A main tractor stacks a background colour track and the playlists (audio tracks hide their
 *   video), with a `composite` transition per video track and a `mix` per track for sound.
 *
 * Clip volume and mute become a `volume` filter; fades become keyframed `brightness` (through
 * black) and `volume` filters on the clip's entry. Text and caption clips, transitions from a
 * gap, fit, transform, crop, motion, picture filters, track volumes and ducking are not
 * exported (they become blanks or are left out).
 *
 * @param composition - the stored composition.
 * @param media - resolves each media asset to a path (`assets=paths`) or URL.
 * @returns the XML document as a string (UTF-8).
 */
export function compositionToMlt(
  composition: Composition,
  media: (asset: MediaAsset) => ResolvedMedia,
): string {
  const { canvas } = composition;
  const rate = toFrameRate(canvas.fps);
  const frames = (seconds: number) => secondsToFrame(seconds, rate);
  const doc = new MltDocument(media, frames);
  const total = Math.max(1, frames(compositionDuration(composition)));
  const background = el("producer", { id: "background", in: 0, out: total - 1 }, [
    property("mlt_service", "color"),
    property("resource", mltColor(canvas.background)),
    property("length", total),
  ]);
  const tracks = composition.tracks.filter((t) => t.enabled !== false);
  const multitrack: XmlNode[] = [el("track", { producer: "background" })];
  const transitions: XmlNode[] = [];
  tracks.forEach((track, i) => {
    const playlist = doc.playlist(track);
    const hidden = [track.kind === "audio" ? "video" : null, track.muted ? "audio" : null].filter(Boolean);
    const hide = hidden.length === 2 ? "both" : (hidden[0] ?? undefined);
    multitrack.push(el("track", { producer: playlist, hide }));
    const common = [property("a_track", 0), property("b_track", i + 1), property("always_active", 1)];
    transitions.push(
      el("transition", { id: doc.nextId("mix") }, [
        ...common,
        property("mlt_service", "mix"),
        property("sum", 1),
      ]),
    );
    if (track.kind === "video") {
      transitions.push(
        el("transition", { id: doc.nextId("composite") }, [
          ...common,
          property("mlt_service", "composite"),
          property("fill", 1),
        ]),
      );
    }
  });
  const div = gcd(canvas.width, canvas.height);
  const profile = el("profile", {
    description: `${canvas.width}x${canvas.height} ${canvas.fps} fps`,
    width: canvas.width,
    height: canvas.height,
    progressive: 1,
    sample_aspect_num: 1,
    sample_aspect_den: 1,
    display_aspect_num: canvas.width / div,
    display_aspect_den: canvas.height / div,
    frame_rate_num: rate.num,
    frame_rate_den: rate.den,
    colorspace: 709,
  });
  const main = el("tractor", { id: "main", in: 0, out: total - 1 }, [
    property("cutroom:compositionId", composition.id),
    el("multitrack", {}, multitrack),
    ...transitions,
  ]);
  // MLT reads elements in order: producers before the playlists and tractors that use them.
  const root = el("mlt", { LC_NUMERIC: "C", version: "7.0.0", title: composition.name, producer: "main" }, [
    profile,
    background,
    ...doc.producers,
    ...doc.tractors,
    ...doc.playlists,
    main,
  ]);
  const builder = new XMLBuilder({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    format: true,
    suppressEmptyNode: true,
    tagValueProcessor: (_name, value) => xmlChars(value),
    attributeValueProcessor: (_name, value) => xmlChars(value),
  });
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build([root])}`;
}

/**
 * Characters XML 1.0 does not allow, even as character references (section 2.2 `Char`): the C0
 * controls other than tab, line feed and carriage return, unpaired surrogates, U+FFFE and U+FFFF.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it matches.
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;

/** `value` without the characters an XML 1.0 document cannot carry ({@link NOT_XML_CHAR}). */
function xmlChars(value: unknown): string {
  return String(value).replace(NOT_XML_CHAR, "");
}
