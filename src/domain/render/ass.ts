import type { Clip, Cue, TextStyle } from "../composition/schema.ts";
import { EMOJI_FAMILY } from "../fonts/fonts.ts";
import type { CueWord } from "../transcription/exports.ts";
import { type ResolvedFont, resolveFont } from "./resolve-font.ts";
import { parseSubtitles } from "./subtitle-parse.ts";
import { type FrameRate, frameToSeconds, secondsToFrame } from "./timeline.ts";
import { RenderError, type ResolvedAsset, type UploadedFont } from "./types.ts";

/** A text or caption clip placed on the timeline (frames), with its ASS time band. */
export interface AssClipInput {
  clip: Clip;
  /** Index of the time band of the clip's track (see `buildAss`). */
  band: number;
  startFrame: number;
  endFrame: number;
  /** Frames of an incoming transition before `startFrame` (the text fades in across it). */
  lead: number;
  /** Frames of an outgoing transition after `endFrame`. */
  tail: number;
}

/** Inputs of `buildAss`. Sizes in render pixels; frames on the timeline of `rate`. */
export interface BuildAssInput {
  width: number;
  height: number;
  /** Render pixels per canvas pixel (text sizes are canvas px). */
  scale: number;
  rate: FrameRate;
  /** Rendered window `[start, end)` in frames; event times are relative to `start`. */
  window: { start: number; end: number };
  /** Seconds between bands: events of band k are shifted by `k * bandSeconds`. */
  bandSeconds: number;
  clips: AssClipInput[];
  assets: ReadonlyMap<string, ResolvedAsset>;
  uploadedFonts: readonly UploadedFont[];
}

/** The characters one clip draws with one font (see {@link AssDocument.glyphs}). */
export interface GlyphUse {
  clipId: string;
  /** Family name as written in the ASS file. */
  family: string;
  /** The font file libass draws them with. */
  path: string;
  /** The distinct characters (code points; no whitespace, joiners or variation selectors). */
  characters: string;
}

/** The generated ASS document and the font files it needs in the fontsdir. */
export interface AssDocument {
  content: string;
  fonts: ResolvedFont[];
  /**
   * Which characters each clip draws with which font, so that the caller, which may read the
   * font files, can tell characters that no font has (libass draws those as empty boxes).
   */
  glyphs: GlyphUse[];
  /** Bands that received at least one event. */
  bands: number[];
}

/** Whether a character is not drawn as a glyph of its own: whitespace, joiners, variation selectors, tags. */
function notDrawn(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return (
    /^\s$/.test(ch) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0020 && cp <= 0xe007f)
  );
}
const EMOJI_JOINER = "(?:\u{FE0F}|\u{200D}|[\u{1F3FB}-\u{1F3FF}])";
/** A keycap: digit, `#` or `*`, optional emoji presentation selector, combining enclosing keycap. */
const KEYCAP = "[0-9#*]\u{FE0F}?\u{20E3}";
const EMOJI_RUN = new RegExp(
  `(?:${KEYCAP}|\\p{Extended_Pictographic}|\\p{Regional_Indicator})(?:${EMOJI_JOINER}|${KEYCAP}|\\p{Extended_Pictographic}|\\p{Regional_Indicator})*`,
  "gu",
);

/**
 * Builds one ASS (Advanced SubStation Alpha v4+) document for every text and caption clip,
 * rendered by libass through ffmpeg's `subtitles` filter with `PlayResX/Y` = the render size.
 * Layering: the events of each text-bearing track live in their own time band (`band *
 * bandSeconds` later) so that one file can be drawn at each track's layer by shifting the
 * stream's timestamps into that band. Times are floored to centiseconds: an event starts (ends)
 * within 10 ms before its first (end) frame, and the plan nudges each frame's timestamp half a
 * millisecond later while libass draws it, so that every frame falls on the same side of every
 * event time whatever frame the rendered window starts at (canvas rates ≤ 60 fps). Each clip gets its own style; position via `\an` + `\pos` in the
 * clip's box (`transform`, default the canvas inset by 5%, captions 10% at top and bottom); `fadeIn`/`fadeOut` via `\fad` (`\fade` on the clip's own times where the window cuts the event);
 * `background` as one box per line (BorderStyle 4) under the stroked text; emoji runs switch to
 * Noto Emoji. Captions come from inline cues or a parsed SRT/WebVTT upload (`text` of the
 * resolved asset) or a transcription (its `cues`); cue times are source seconds: timeline =
 * clip.start + (cue - trim) / speed. Karaoke mode emits one event per word with that word in
 * `highlightColor`: from the word's spoken start to the next word's when the cues carry word
 * times (a transcription), else the cue's time spread over its words by length.
 *
 * @throws RenderError `FONT_NOT_FOUND` for an unknown family, `ASSET_NOT_FOUND` for a caption
 *   upload or transcription missing from `assets`, `ASSET_UNSUPPORTED` when its text is missing.
 */
export function buildAss(input: BuildAssInput): AssDocument {
  const styles: string[] = [];
  const events: string[] = [];
  const fonts = new Map<string, ResolvedFont>();
  const bands = new Set<number>();
  const glyphs = new Map<string, GlyphUse & { seen: Set<string> }>();
  const use = (clipId: string, font: ResolvedFont, text: string) => {
    const key = `${clipId}\u0000${font.path}`;
    let entry = glyphs.get(key);
    if (!entry) {
      entry = { clipId, family: font.family, path: font.path, characters: "", seen: new Set() };
      glyphs.set(key, entry);
    }
    for (const ch of text) {
      if (notDrawn(ch) || entry.seen.has(ch)) continue;
      entry.seen.add(ch);
      entry.characters += ch;
    }
  };
  input.clips.forEach((item, index) => {
    const { clip } = item;
    const asset = clip.asset;
    if (asset.type !== "text" && asset.type !== "caption") return;
    const style = asset.style;
    const font = resolveFont(style.family, input.uploadedFonts, {
      weight: style.weight ?? 400,
      italic: style.italic ?? false,
      clipId: clip.id,
    });
    fonts.set(font.path, font);
    const name = `c${index}`;
    const box = clipBox(clip, input.width, input.height);
    const opacity = clip.transform?.opacity ?? 1;
    styles.push(styleLine(name, font.family, style, input.scale, opacity));

    const rotate = clip.transform?.rotate ?? 0;
    const valign = style.valign ?? (asset.type === "caption" ? "bottom" : "center");
    const an = alignmentCode(style.align, valign);
    const px = style.align === "left" ? box.x0 : style.align === "right" ? box.x1 : (box.x0 + box.x1) / 2;
    const py = valign === "top" ? box.y0 : valign === "bottom" ? box.y1 : (box.y0 + box.y1) / 2;
    const marginL = Math.max(0, Math.round(box.x0));
    const marginR = Math.max(0, Math.round(input.width - box.x1));
    const position = `\\an${an}\\pos(${round2(px)},${round2(py)})${
      rotate
        ? `\\org(${round2((box.x0 + box.x1) / 2)},${round2((box.y0 + box.y1) / 2)})\\frz${round2(-rotate)}`
        : ""
    }`;
    const emoji = font.family === EMOJI_FAMILY ? undefined : EMOJI_FAMILY;

    const clipFrom = item.startFrame - item.lead;
    const clipTo = item.endFrame + item.tail;
    const pieces = timedPieces(item, input);
    for (const piece of pieces) {
      const from = Math.max(piece.from, clipFrom, input.window.start);
      const to = Math.min(piece.to, clipTo, input.window.end);
      if (to <= from) continue;
      const fadeIn = piece.from <= clipFrom ? fadeMs(clip.fadeIn, item.lead, input.rate) : 0;
      const fadeOut = piece.to >= clipTo ? fadeMs(clip.fadeOut, item.tail, input.rate) : 0;
      const fad = fadeTag(fadeIn, fadeOut, {
        from: Math.max(piece.from, clipFrom),
        to: Math.min(piece.to, clipTo),
        start: from,
        end: to,
        window: input.window.start,
        rate: input.rate,
      });
      const start = assTime(
        frameToSeconds(from - input.window.start, input.rate) + item.band * input.bandSeconds,
      );
      const end = assTime(
        frameToSeconds(to - input.window.start, input.rate) + item.band * input.bandSeconds,
      );
      const text = piece.render((t) => {
        if (emoji) {
          const runs = t.match(EMOJI_RUN) ?? [];
          if (runs.length > 0)
            use(clip.id, addEmojiFont(fonts, input.uploadedFonts, style, clip.id), runs.join(""));
          use(clip.id, font, t.replace(EMOJI_RUN, ""));
        } else use(clip.id, font, t);
        return escapeText(t, emoji, font.family);
      });
      bands.add(item.band);
      events.push(`Dialogue: 0,${start},${end},${name},,${marginL},${marginR},0,,{${position}${fad}}${text}`);
    }
  });
  const content = [
    "[Script Info]",
    "; Generated by Cutroom",
    "ScriptType: v4.00+",
    `PlayResX: ${input.width}`,
    `PlayResY: ${input.height}`,
    "WrapStyle: 0",
    "ScaledBorderAndShadow: yes",
    "Kerning: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    ...styles,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
    ...events,
    "",
  ].join("\n");
  return {
    content,
    fonts: [...fonts.values()],
    bands: [...bands].sort((a, b) => a - b),
    glyphs: [...glyphs.values()].filter((g) => g.characters.length > 0).map(({ seen: _seen, ...g }) => g),
  };
}

interface Piece {
  from: number;
  to: number;
  render: (escapeText: (t: string) => string) => string;
}

/** Splits a clip into timed pieces: the whole clip for text, one per cue (or per word) for captions. */
function timedPieces(item: AssClipInput, input: BuildAssInput): Piece[] {
  const { clip } = item;
  const asset = clip.asset;
  if (asset.type === "text") {
    return [
      { from: item.startFrame - item.lead, to: item.endFrame + item.tail, render: (esc) => esc(asset.text) },
    ];
  }
  if (asset.type !== "caption") return [];
  const cues = clipCues(clip, input.assets);
  const trim = clip.trim ?? 0;
  const speed = clip.speed ?? 1;
  const toFrame = (t: number) => secondsToFrame(clip.start + (t - trim) / speed, input.rate);
  const pieces: Piece[] = [];
  const highlight = assColor(asset.style.highlightColor ?? "#ffff00", clip.transform?.opacity ?? 1);
  const normal = assColor(asset.style.color ?? "#ffffff", clip.transform?.opacity ?? 1);
  for (const cue of cues) {
    const from = toFrame(cue.start);
    const to = toFrame(cue.end);
    if (to <= from) continue;
    if (asset.mode !== "karaoke") {
      pieces.push({ from, to, render: (esc) => esc(cue.text) });
      continue;
    }
    const words = cue.text.split(/(\s+)/);
    /** The cue with its `w`-th part (a word, never whitespace) highlighted; -1: none. */
    const lit = (w: number) => (esc: (t: string) => string) =>
      words
        .map((other, o) => (o === w ? `{\\1c${highlight}}${esc(other)}{\\1c${normal}}` : esc(other)))
        .join("");
    const wordParts = words.flatMap((w, i) => (/^\s*$/.test(w) ? [] : [i]));
    const timed = cue.words ?? [];
    if (timed.length > 0 && timed.length === wordParts.length) {
      // Spoken word times: each word is lit from its start until the next word starts (the
      // last until the cue ends); before the first word nothing is.
      const starts = timed.map((w) => Math.min(to, Math.max(from, toFrame(w.start))));
      if ((starts[0] ?? from) > from) pieces.push({ from, to: starts[0] ?? from, render: lit(-1) });
      wordParts.forEach((part, k) => {
        const wFrom = starts[k] ?? from;
        const wTo = starts[k + 1] ?? to;
        if (wTo > wFrom) pieces.push({ from: wFrom, to: wTo, render: lit(part) });
      });
      continue;
    }
    // No word times: the cue's time spread over its words by their length.
    const weights = words.map((w) => (/^\s+$/.test(w) ? 0 : Math.max(1, [...w].length)));
    const total = weights.reduce((a, b) => a + b, 0) || 1;
    let acc = 0;
    words.forEach((_word, w) => {
      const weight = weights[w] ?? 0;
      if (weight === 0) return;
      const wFrom = from + Math.round(((to - from) * acc) / total);
      acc += weight;
      const wTo =
        w === words.length - 1 || acc >= total ? to : from + Math.round(((to - from) * acc) / total);
      if (wTo <= wFrom) return;
      pieces.push({ from: wFrom, to: wTo, render: lit(w) });
    });
  }
  return pieces;
}

/** A caption's cues: inline, parsed from its subtitle upload, or its transcription's (with word times). */
function clipCues(clip: Clip, assets: ReadonlyMap<string, ResolvedAsset>): (Cue & { words?: CueWord[] })[] {
  const asset = clip.asset;
  if (asset.type !== "caption") return [];
  if ("cues" in asset.source) return asset.source.cues;
  if ("transcriptionId" in asset.source) {
    const cues = assets.get(asset.source.transcriptionId)?.cues;
    if (!cues) {
      throw new RenderError(
        "ASSET_NOT_FOUND",
        `Transcription ${asset.source.transcriptionId} was not resolved`,
        { clipId: clip.id },
      );
    }
    return cues;
  }
  const resolved = assets.get(asset.source.uploadId);
  if (!resolved) {
    throw new RenderError("ASSET_NOT_FOUND", `Subtitle upload ${asset.source.uploadId} was not resolved`, {
      clipId: clip.id,
      uploadId: asset.source.uploadId,
    });
  }
  if (resolved.text === undefined) {
    throw new RenderError("ASSET_UNSUPPORTED", `Subtitle upload ${asset.source.uploadId} has no text`, {
      clipId: clip.id,
      uploadId: asset.source.uploadId,
    });
  }
  return parseSubtitles(resolved.text);
}

function addEmojiFont(
  fonts: Map<string, ResolvedFont>,
  uploaded: readonly UploadedFont[],
  style: TextStyle,
  clipId: string,
): ResolvedFont {
  const f = resolveFont(EMOJI_FAMILY, uploaded, { weight: style.weight ?? 400, clipId });
  fonts.set(f.path, f);
  return f;
}

/** Default text box height as a fraction of the canvas: 5% margins; captions keep 10% (title-safe). */
const DEFAULT_BOX_HEIGHT = { text: 0.9, caption: 0.8 } as const;

/**
 * The clip's text box in render pixels. Default: the canvas inset by 5% on each side; a caption's
 * box is inset by 10% at the top and bottom, so bottom captions sit inside the title-safe area
 * (their lowest ink at least 10% of the height above the bottom edge).
 */
function clipBox(clip: Clip, width: number, height: number) {
  const t = clip.transform ?? {};
  const inset = DEFAULT_BOX_HEIGHT[clip.asset.type === "caption" ? "caption" : "text"];
  const w = (t.width ?? (t.height === undefined ? 0.9 : 1)) * width;
  const h = (t.height ?? (t.width === undefined ? inset : 1)) * height;
  const cx = (t.x ?? 0.5) * width;
  const cy = (t.y ?? 0.5) * height;
  return { x0: cx - w / 2, x1: cx + w / 2, y0: cy - h / 2, y1: cy + h / 2 };
}

/** ASS numpad alignment: bottom row 1..3, middle 4..6, top 7..9. */
function alignmentCode(align: TextStyle["align"], valign: "top" | "center" | "bottom"): number {
  const col = align === "left" ? 1 : align === "right" ? 3 : 2;
  return col + (valign === "top" ? 6 : valign === "center" ? 3 : 0);
}

function styleLine(name: string, family: string, style: TextStyle, scale: number, opacity: number): string {
  const size = round2(style.size * scale);
  const primary = assColor(style.color ?? "#ffffff", opacity);
  const secondary = assColor(style.highlightColor ?? style.color ?? "#ffffff", opacity);
  const outlineColor = assColor(style.stroke?.color ?? "#000000", opacity);
  const outline = round2((style.stroke?.width ?? 0) * scale);
  // BorderStyle 4 (libass ≥ 0.17): one box per line in BackColour, padded by Shadow, stroke kept.
  const bg = style.background;
  const borderStyle = bg ? 4 : 1;
  const backColor = bg ? assColor(bg.color, opacity) : "&HFF000000";
  const shadow = bg ? round2((bg.padding ?? style.size * 0.25) * scale) : 0;
  // libass reads any Bold value but 0 as bold (400 came out as 700): the face is chosen by the
  // font file we link, so only say bold (-1) for bold weights.
  const bold = (style.weight ?? 400) >= 600 ? -1 : 0;
  const italic = style.italic ? -1 : 0;
  return `Style: ${name},${family},${size},${primary},${secondary},${outlineColor},${backColor},${bold},${italic},0,0,100,100,0,0,${borderStyle},${outline},${shadow},5,0,0,0,1`;
}

/** `#rrggbb[aa]` and an opacity 0..1 → ASS `&HAABBGGRR` (AA = transparency). */
export function assColor(hex: string, opacity = 1): string {
  const r = hex.slice(1, 3);
  const g = hex.slice(3, 5);
  const b = hex.slice(5, 7);
  const a = hex.length >= 9 ? Number.parseInt(hex.slice(7, 9), 16) / 255 : 1;
  const transparency = Math.round((1 - a * opacity) * 255);
  return `&H${`${transparency.toString(16).padStart(2, "0")}${b}${g}${r}`.toUpperCase()}`;
}

/** Seconds → ASS `H:MM:SS.cc`, floored to the centisecond (see `buildAss`). */
export function assTime(seconds: number): string {
  const cs = assCentiseconds(seconds);
  const h = Math.floor(cs / 360_000);
  const m = Math.floor((cs % 360_000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const c = cs % 100;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(c).padStart(2, "0")}`;
}

/** Whole centiseconds of an ASS time: `seconds` floored (never below 0). */
function assCentiseconds(seconds: number): number {
  return Math.max(0, Math.floor(seconds * 100 + 1e-6));
}

/**
 * The fade tag of an event that fades in over `fadeIn` ms from frame `span.from` and out over
 * `fadeOut` ms to `span.to`, drawn on frames `[span.start, span.end)` (later than `span.from`
 * where the rendered window begins inside the event, earlier than `span.to` where it ends inside). An
 * event the window cuts fades on its own times, not the cut's (`\fade`, times relative to the
 * event's start as written: whole centiseconds), so that a range or split segment starting in a
 * text clip does not fade it in again at its first frame or out at its last.
 */
function fadeTag(
  fadeIn: number,
  fadeOut: number,
  span: { from: number; to: number; start: number; end: number; window: number; rate: FrameRate },
): string {
  if (!fadeIn && !fadeOut) return "";
  if (span.start === span.from && span.end === span.to) return `\\fad(${fadeIn},${fadeOut})`;
  const ms = (frame: number) => Math.round(frameToSeconds(frame - span.window, span.rate) * 1000);
  const startMs = assCentiseconds(frameToSeconds(span.start - span.window, span.rate)) * 10;
  const t1 = ms(span.from) - startMs;
  const t4 = ms(span.to) - startMs;
  return `\\fade(${fadeIn ? 255 : 0},0,${fadeOut ? 255 : 0},${t1},${t1 + fadeIn},${t4 - fadeOut},${t4})`;
}

function fadeMs(fade: number | undefined, handleFrames: number, rate: FrameRate): number {
  // A transition into/out of a text clip is drawn as a fade across the transition.
  const seconds = Math.max(fade ?? 0, handleFrames > 0 ? frameToSeconds(handleFrames * 2, rate) : 0);
  return Math.round(seconds * 1000);
}

/**
 * Escapes user text for an ASS event so that every character renders literally: newlines →
 * `\N`, braces → `\{`/`\}`, emoji runs → the emoji font. libass reads a backslash followed by
 * `N`, `n`, `h`, `{` or `}` as an escape and any other backslash literally, so each backslash
 * is followed by U+2060 WORD JOINER (default-ignorable: shaped to nothing), which keeps it from
 * pairing with the next character, whether the user's or an override block this adds.
 */
export function escapeText(text: string, emojiFamily: string | undefined, family: string): string {
  const escaped = text
    .replace(/\\/g, "\\\u2060")
    .replace(/\{/g, "\\{")
    .replace(/\}/g, "\\}")
    .replace(/\r?\n/g, "\\N");
  if (!emojiFamily) return escaped;
  return escaped.replace(EMOJI_RUN, (run) => `{\\fn${emojiFamily}}${run}{\\fn${family}}`);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
