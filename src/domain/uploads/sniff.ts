import { fileTypeFromBuffer } from "file-type";
import type { UploadType } from "./upload-type.ts";

/** What the first bytes of a file say it is. */
export interface SniffResult {
  type: UploadType;
  /** MIME type without parameters, e.g. `video/mp4`, `text/vtt`, `font/ttf`. */
  mimeType: string;
  /** Usual extension without the dot, e.g. `mp4`, `srt`. */
  ext: string;
}

/** How many leading bytes {@link sniffType} looks at (file-type's reasonable detection size). */
export const SNIFF_BYTES = 4100;

const AUDIO = new Set([
  "audio/aac",
  "audio/aiff",
  "audio/amr",
  "audio/ape",
  "audio/flac",
  "audio/mp4",
  "audio/mpeg",
  "audio/ogg",
  "audio/opus",
  "audio/wav",
  "audio/wavpack",
  "audio/webm",
  "audio/x-caf",
  "audio/x-m4a",
  "audio/x-ms-asf",
  "audio/x-musepack",
  "audio/vnd.dolby.dd-raw",
]);

// Raster formats ffmpeg decodes for posters; HEIC/AVIF/JPEG XL/RAW/PSD are refused (415).
const IMAGE = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
  "image/bmp",
  "image/tiff",
  "image/apng",
]);

const FONT = new Set(["font/ttf", "font/otf", "font/woff", "font/woff2"]);

/**
 * Decides an upload's type from its content, never from the declared Content-Type or name:
 * binary formats by magic numbers (file-type), SRT and WebVTT by their text. Accepted: any
 * video container file-type knows, common audio formats, raster images ffmpeg decodes
 * (JPEG, PNG, GIF, WebP, BMP, TIFF, APNG), fonts (TTF, OTF, WOFF, WOFF2), subtitles (SRT, VTT).
 *
 * @param head - the first {@link SNIFF_BYTES} bytes (fewer for a shorter file).
 * @returns the type, or `null` for anything else (executables, archives, documents, SVG, HTML,
 *   random bytes, an empty file…), which the caller answers with 415.
 */
export async function sniffType(head: Uint8Array): Promise<SniffResult | null> {
  if (head.length === 0) return null;
  const found = await fileTypeFromBuffer(head);
  if (found) {
    const mime = found.mime.split(";")[0]?.trim().toLowerCase() ?? "";
    if (mime.startsWith("video/")) return { type: "video", mimeType: mime, ext: found.ext };
    if (AUDIO.has(mime)) return { type: "audio", mimeType: mime, ext: found.ext };
    if (IMAGE.has(mime)) return { type: "image", mimeType: mime, ext: found.ext };
    if (FONT.has(mime)) return { type: "font", mimeType: mime, ext: found.ext };
    if (mime === "text/vtt") return sniffSubtitle(head); // file-type knows WebVTT too: same rules
    return null;
  }
  return sniffSubtitle(head);
}

const SRT_TIMING = /^\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}/;

/**
 * Recognises UTF-8 (optionally BOM-prefixed) WebVTT (`WEBVTT` header line) and SubRip (a cue
 * number line, then a `00:00:01,000 --> 00:00:02,500` timing line) text.
 */
export function sniffSubtitle(head: Uint8Array): SniffResult | null {
  if (head.includes(0)) return null; // binary, or UTF-16 (not supported)
  let text = new TextDecoder("utf-8").decode(head);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (/^WEBVTT(?:[ \t\r\n]|$)/.test(text)) return { type: "subtitle", mimeType: "text/vtt", ext: "vtt" };

  const lines = text.split(/\r\n|\r|\n/);
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first < 0) return null;
  const cueNumber = lines[first]?.trim() ?? "";
  const timing = lines[first + 1]?.trim() ?? "";
  if (/^\d{1,9}$/.test(cueNumber) && SRT_TIMING.test(timing)) {
    return { type: "subtitle", mimeType: "application/x-subrip", ext: "srt" };
  }
  return null;
}
