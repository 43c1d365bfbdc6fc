import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { AppError, invalidRequest, payloadTooLarge, unsupportedMediaType } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { IN_PROCESS_IMAGE_TYPES, readImage } from "../../media/image.ts";
import { makePoster } from "../../media/poster.ts";
import { type MediaInfo, MediaProbeError, type ProbeResult, probeMedia } from "../../media/probe.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { uploadOriginalKey, uploadPosterKey, uploadPrefix } from "../../storage/keys.ts";
import { readFontFamilyNames } from "../fonts/fonts.ts";
import { SNIFF_BYTES, type SniffResult, sniffType } from "./sniff.ts";
import type { UploadType } from "./upload-type.ts";

/** Largest accepted file, bytes: 512 MiB (shown to users as "512 MB"). */
export const DEFAULT_MAX_UPLOAD_BYTES = 536_870_912;

/** An incoming file stream, e.g. @fastify/multipart's `part.file` (busboy sets `truncated`). */
export type IncomingFile = Readable & { truncated?: boolean };

/** Options of {@link ingestFile}. */
export interface IngestFileOptions {
  store: BlobStore;
  /** The file's bytes as they arrive; consumed once, destroyed on failure. */
  file: IncomingFile;
  /** The client's file name: metadata only (sanitised; never part of a storage key). */
  filename: string | undefined;
  /** Largest size, bytes (default {@link DEFAULT_MAX_UPLOAD_BYTES}); one byte more → 413 at once. */
  maxBytes?: number;
  /** Aborts storing and media work (e.g. the client went away). */
  signal?: AbortSignal;
  /** Upload ID to use (default: a new `upl_…`). */
  id?: string;
  /**
   * The file's chunks are not read by anyone else (a request body's): the store may take their
   * memory rather than copy them (see `PutOptions.transferChunks`). Default `false`.
   */
  transferChunks?: boolean;
}

/** A stored, typed and probed upload, ready to become a row. */
export interface IngestedFile {
  /** `upl_…`. */
  id: string;
  /** Storage key of the original: `uploads/<id>/original`. */
  key: string;
  /** Size in bytes. */
  size: number;
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: string;
  type: UploadType;
  /** MIME type from the content (e.g. `video/mp4`), never the declared one. */
  mimeType: string;
  /** Sanitised client file name (≤ 255 characters). */
  name: string;
  /** Media facts for video, audio and image (image: width/height only); `null` for subtitles and fonts. */
  media: MediaInfo | null;
  /** A font's family names as the renderer reads them (TTF/OTF name table); `null` for other types. */
  fontFamilies: string[] | null;
  /** Storage key of the JPEG poster (`uploads/<id>/poster.jpg`) for video and image, else `null`. */
  posterKey: string | null;
}

/** Signed URL lifetime used to let ffprobe/ffmpeg read a remote (S3) original, seconds. */
const PROBE_URL_TTL_SEC = 900;

/**
 * A file whose bytes are stored and whose type is sniffed, not yet probed (the first phase of
 * {@link ingestFile}; {@link analyseReceived} finishes it).
 */
export interface ReceivedFile {
  /** `upl_…`. */
  id: string;
  /** Storage key of the original: `uploads/<id>/original`. */
  key: string;
  /** Size in bytes. */
  size: number;
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: string;
  /** Sanitised client file name. */
  name: string;
  /** The type read from the first bytes. */
  sniffed: SniffResult;
}

/**
 * Ingests one uploaded file while it streams in: {@link receiveFile} then {@link analyseReceived}.
 *
 * On any failure everything stored for this upload is deleted before the error is thrown.
 *
 * @throws AppError as {@link receiveFile} and {@link analyseReceived}.
 */
export async function ingestFile(opts: IngestFileOptions): Promise<IngestedFile> {
  return analyseReceived(opts.store, await receiveFile(opts), opts.signal);
}

/**
 * The first phase of ingest, done while the file streams in (no media tools run):
 * 1. peeks at the first 4,100 bytes and sniffs the type from content (415 before storing anything);
 * 2. streams the bytes to `uploads/<id>/original` (the store hashes them, SHA-256), counting them
 *    on the way and failing with 413 the moment the size passes `maxBytes` (the rest is not read).
 *
 * On any failure everything stored for this upload is deleted before the error is thrown.
 *
 * @throws AppError `unsupported_media_type` (415) naming the file when its content is not a
 *   supported type or it is empty; `payload_too_large` (413) naming it when larger than `maxBytes`;
 *   `invalid_request` (400) naming it when the file's stream fails with a multipart parse error
 *   (the body ends inside the file). Other errors (storage down, client aborted) pass through unchanged.
 */
export async function receiveFile(opts: IngestFileOptions): Promise<ReceivedFile> {
  const { store, file, signal } = opts;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const name = sanitizeFilename(opts.filename);
  const id = opts.id ?? newId("upl");
  const key = uploadOriginalKey(id);
  const tooLarge = () => payloadTooLarge(`File "${name}" is larger than the ${formatBytes(maxBytes)} limit`);
  // The part stream's own error (e.g. the multipart body ended inside this file), told apart
  // from storage errors by where it was thrown.
  let streamError: unknown;
  const chunks = file[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const source: AsyncIterator<Buffer> = {
    next: () =>
      chunks.next().catch((err: unknown) => {
        streamError ??= err;
        throw err;
      }),
  };
  let stored = false;

  try {
    const head = await readHead(source, SNIFF_BYTES);
    const sniffed = await sniffType(Buffer.concat(head.chunks).subarray(0, SNIFF_BYTES));
    if (!sniffed) {
      throw unsupportedMediaType(
        head.bytes === 0
          ? `File "${name}" is empty`
          : `File "${name}" is not a supported type (video, audio, image, SRT/WebVTT subtitle, TTF/OTF/WOFF font)`,
      );
    }

    const body = Readable.from(replay(head.chunks, head.done ? null : source, file, maxBytes, tooLarge), {
      objectMode: false,
    });
    stored = true;
    const { size, sha256 } = await store.put(key, body, {
      contentType: sniffed.mimeType,
      ...(signal ? { signal } : {}),
      ...(opts.transferChunks ? { transferChunks: true } : {}),
    });
    // busboy stops a file at its own `fileSize` limit and only flags it: treat as too large.
    if (file.truncated) throw tooLarge();
    return { id, key, size, sha256, name, sniffed };
  } catch (err) {
    // Destroy rather than source.return(): return() would wait behind a pending read of a stalled client.
    if (!file.destroyed) file.destroy();
    if (stored) await store.deletePrefix(uploadPrefix(id)).catch(() => {});
    if (isFileTooLargeError(err)) throw tooLarge();
    if (err === streamError && isParseError(err)) {
      throw invalidRequest(`File "${name}" could not be read from the request: ${(err as Error).message}`);
    }
    throw err;
  }
}

/**
 * The second phase of ingest: probes a received video, audio or image with ffprobe in place
 * (local path, or a short-lived presigned URL for S3 — no temp copy), settles its type, and
 * stores a JPEG poster for video and image beside the original. Subtitles and fonts pass as
 * they are. On failure everything stored for this upload is deleted before the error is thrown.
 *
 * @throws AppError `invalid_request` (400) naming the file when it claims to be media but
 *   ffprobe/ffmpeg cannot read it. Other errors (storage down, aborted) pass through unchanged.
 */
export async function analyseReceived(
  store: BlobStore,
  received: ReceivedFile,
  signal?: AbortSignal,
): Promise<IngestedFile> {
  const { id, key, size, sha256, name } = received;
  try {
    const { type, mimeType, media, poster, fontFamilies } = await analyse(
      store,
      key,
      size,
      name,
      received.sniffed,
      signal,
    );
    let posterKey: string | null = null;
    if (poster) {
      posterKey = uploadPosterKey(id);
      await store.put(posterKey, Readable.from([poster]), {
        contentType: "image/jpeg",
        ...(signal ? { signal } : {}),
      });
    }
    return { id, key, size, sha256, type, mimeType, name, media, posterKey, fontFamilies };
  } catch (err) {
    await store.deletePrefix(uploadPrefix(id)).catch(() => {});
    throw err;
  }
}

/** Reads chunks until at least `n` bytes or the end; returns them unconsumed for replay. */
async function readHead(
  source: AsyncIterator<Buffer>,
  n: number,
): Promise<{ chunks: Buffer[]; bytes: number; done: boolean }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  while (bytes < n) {
    const next = await source.next();
    if (next.done) return { chunks, bytes, done: true };
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    chunks.push(chunk);
    bytes += chunk.length;
  }
  return { chunks, bytes, done: false };
}

/**
 * Yields the peeked chunks, then the rest of `source`, counting bytes: throws `tooLarge()` the
 * moment the count passes `maxBytes` (that chunk is not yielded). Stopped early, it destroys `file`.
 */
async function* replay(
  head: Buffer[],
  source: AsyncIterator<Buffer> | null,
  file: IncomingFile,
  maxBytes: number,
  tooLarge: () => Error,
): AsyncGenerator<Buffer> {
  let finished = source === null;
  let bytes = 0;
  try {
    for (const chunk of head) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw tooLarge();
      yield chunk;
    }
    while (source && !finished) {
      const next = await source.next();
      if (next.done) {
        finished = true;
        break;
      }
      bytes += next.value.length;
      if (bytes > maxBytes) throw tooLarge();
      yield next.value;
    }
  } finally {
    if (!finished && !file.destroyed) file.destroy();
  }
}

interface Analysis {
  type: UploadType;
  mimeType: string;
  media: MediaInfo | null;
  poster: Buffer | null;
  fontFamilies: string[] | null;
}

/** The most of a font file read for its family names, bytes (larger files get none). */
const MAX_FONT_READ_BYTES = 64 * 1024 * 1024;

/** Stills up to this size, bytes, are read into memory for in-process decoding when the store is remote. */
const IN_PROCESS_IMAGE_MAX_BYTES = 64 * 1024 * 1024;

/** The media facts of a still: its size (pixels) and pixel aspect, nothing time-based. */
function stillMedia(
  width: number | null,
  height: number | null,
  sampleAspectRatio: string | null,
): MediaInfo {
  return {
    duration: null,
    width,
    height,
    sampleAspectRatio,
    fps: null,
    videoCodec: null,
    audioCodec: null,
    hasAudio: false,
  };
}

/**
 * Probes media types and renders their poster; subtitles and fonts pass as they are. Common
 * still formats are decoded in-process (libvips); everything else goes through ffprobe and ffmpeg.
 */
async function analyse(
  store: BlobStore,
  key: string,
  size: number,
  name: string,
  sniffed: SniffResult,
  signal: AbortSignal | undefined,
): Promise<Analysis> {
  if (sniffed.type === "subtitle" || sniffed.type === "font") {
    // A font's family names as the renderer reads them (TTF/OTF name table; none for WOFF2).
    const fontFamilies =
      sniffed.type !== "font"
        ? null
        : size <= MAX_FONT_READ_BYTES
          ? readFontFamilyNames(await buffer(await store.openRead(key)))
          : [];
    return { type: sniffed.type, mimeType: sniffed.mimeType, media: null, poster: null, fontFamilies };
  }
  if (sniffed.type === "image" && IN_PROCESS_IMAGE_TYPES.has(sniffed.mimeType)) {
    const local =
      store.localPath(key) ??
      (size <= IN_PROCESS_IMAGE_MAX_BYTES ? await buffer(await store.openRead(key)) : null);
    if (local !== null) {
      try {
        const image = await readImage(local);
        // Read as square-pixel (a JFIF or pHYs density ratio is not applied here; the renderer
        // still reads it from the file).
        const media = stillMedia(image.width, image.height, "1:1");
        return { type: "image", mimeType: sniffed.mimeType, media, poster: image.poster, fontFamilies: null };
      } catch (err) {
        throw unreadable(err, name, "image");
      }
    }
  }
  // ffprobe/ffmpeg read the stored object in place: a local path, or (S3) a presigned URL
  // they fetch with range requests. No temp copy is made.
  const input =
    store.localPath(key) ??
    (await store.signedUrl(key, { expiresInSec: PROBE_URL_TTL_SEC, internal: true })).url;
  const probeOpts = signal ? { signal } : {};
  let probe: ProbeResult;
  try {
    probe = await probeMedia(input, probeOpts);
  } catch (err) {
    throw unreadable(err, name, sniffed.type);
  }

  let type: UploadType = sniffed.type;
  let mimeType = sniffed.mimeType;
  // Containers such as MP4, WebM, Matroska and Ogg hold either: the streams decide.
  if (type === "video" && !probe.hasVideo) {
    type = "audio";
    mimeType = mimeType.replace(/^video\//, "audio/");
  } else if (type === "audio" && probe.hasVideo && /^audio\/(mp4|x-m4a|webm|ogg)$/.test(mimeType)) {
    type = "video";
    mimeType = mimeType === "audio/x-m4a" ? "video/mp4" : mimeType.replace(/^audio\//, "video/");
  }

  if ((type === "video" || type === "image") && (!probe.hasVideo || !probe.width || !probe.height)) {
    throw invalidRequest(`File "${name}" could not be read as ${type}: no picture found`);
  }
  if (type === "audio" && !probe.hasAudio) {
    throw invalidRequest(`File "${name}" could not be read as audio: no audio stream found`);
  }

  const media: MediaInfo =
    type === "image"
      ? stillMedia(probe.width, probe.height, probe.sampleAspectRatio)
      : {
          duration: probe.duration,
          width: type === "video" ? probe.width : null,
          height: type === "video" ? probe.height : null,
          sampleAspectRatio: type === "video" ? probe.sampleAspectRatio : null,
          fps: type === "video" ? probe.fps : null,
          videoCodec: type === "video" ? probe.videoCodec : null,
          audioCodec: probe.audioCodec,
          hasAudio: probe.hasAudio,
          formatName: probe.formatName,
        };

  if (type === "audio") return { type, mimeType, media, poster: null, fontFamilies: null };
  try {
    const poster = await makePoster(input, { type, duration: media.duration, ...probeOpts });
    return { type, mimeType, media, poster, fontFamilies: null };
  } catch (err) {
    throw unreadable(err, name, type);
  }
}

function unreadable(err: unknown, name: string, type: UploadType): unknown {
  if (!(err instanceof MediaProbeError)) return err;
  const reason = err.message.replace(/^ff\w+ failed \(exit \d+\): /, "").replace(/file:\S+: /, "");
  return invalidRequest(`File "${name}" could not be read as ${type}: ${reason}`.slice(0, 300));
}

/**
 * `true` for a multipart parser error about the client's bytes (busboy's "Unexpected end of
 * multipart data", "Boundary not found"…): a plain Error without a `code`. Limit errors, aborts
 * (`ECONNRESET`) and our own AppErrors carry a code or a class and are not parse errors.
 */
export function isParseError(err: unknown): boolean {
  return err instanceof Error && !(err instanceof AppError) && (err as { code?: unknown }).code === undefined;
}

/** @fastify/multipart's / busboy's own size-limit error, should it win the race. */
function isFileTooLargeError(err: unknown): boolean {
  return !(err instanceof AppError) && (err as { code?: unknown } | null)?.code === "FST_REQ_FILE_TOO_LARGE";
}

/**
 * Makes a client file name safe to keep as metadata: the last path segment, control and
 * bidi-override characters removed, trimmed, at most 255 characters; `"file"` when nothing is left.
 */
export function sanitizeFilename(filename: string | undefined): string {
  const base = (filename ?? "").split(/[/\\]/).pop() ?? "";
  const clean = base
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, "")
    .trim()
    .slice(0, 255);
  return clean === "" || clean === "." || clean === ".." ? "file" : clean;
}

/** `536870912` → `"512 MB"` (binary units, as the limit is advertised to users). */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit]}`;
}
