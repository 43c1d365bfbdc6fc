import type { Readable } from "node:stream";

/**
 * An inclusive byte range of an object: bytes `start`..`end` (both 0-based, `end` ≥ `start`),
 * as in an HTTP `Range: bytes=start-end` header.
 */
export interface ByteRange {
  start: number;
  end: number;
}

/** What {@link BlobStore.stat} knows about a stored object. */
export interface BlobStat {
  /** Size in bytes. */
  size: number;
  /** Last modification time. */
  modifiedAt: Date;
  /** Content type recorded at write time, where the driver keeps one (S3 does; local disk does not). */
  contentType: string | undefined;
}

/** Options of {@link BlobStore.put}. */
export interface PutOptions {
  /** MIME type to record with the object (S3 `Content-Type`); local disk ignores it. */
  contentType: string;
  /** Aborts the write; the store then keeps nothing of the object (no temp file, no multipart parts). */
  signal?: AbortSignal;
  /**
   * The caller hands the body's chunks over: the store may take their memory instead of
   * copying them (the local driver transfers a chunk that spans its whole ArrayBuffer to its
   * writer thread, which detaches it: it reads as empty afterwards). Set it only when nothing
   * reads the chunks once `put` has, e.g. for a request body. Default `false`.
   */
  transferChunks?: boolean;
}

/** Options of {@link BlobStore.putFile}. */
export interface PutFileOptions {
  /** MIME type to record with the object (S3 `Content-Type`); local disk ignores it. */
  contentType: string;
  /** Take the file instead of copying it: it no longer exists at its path afterwards. Default `false`. */
  move?: boolean;
}

/** What {@link BlobStore.put} stored. */
export interface PutResult {
  /** Bytes written. */
  size: number;
  /** Lower-case hex SHA-256 of the bytes written. */
  sha256: string;
}

/** Options of {@link BlobStore.signedUrl}. */
export interface SignedUrlOptions {
  /** Lifetime of the URL in seconds (S3 allows at most 604,800 = 7 days). */
  expiresInSec: number;
  /** File name offered to the browser (`Content-Disposition`); metadata only, never part of the key. */
  filename?: string;
  /** `Content-Type` the GET response carries (e.g. the sniffed MIME type). */
  contentType?: string;
  /**
   * The URL is for this server's own tools (ffprobe/ffmpeg reading an S3 object), not for
   * clients: S3 signs it for the internal `endpoint` rather than `publicEndpoint`.
   */
  internal?: boolean;
}

/** A signed, expiring GET URL and when it stops working. */
export interface SignedUrl {
  /** Absolute URL that needs no API key. */
  url: string;
  expiresAt: Date;
}

/**
 * Object storage behind one small interface: local disk or an S3-compatible bucket.
 *
 * Keys are server-generated, `/`-separated paths whose segments match
 * `[A-Za-z0-9][A-Za-z0-9._-]*` (see {@link assertValidKey}); user input (file names) never
 * becomes part of a key. Every method that takes a key throws a plain `Error` for an invalid one.
 * Writes are atomic: an object is either fully present under its key or absent.
 */
export interface BlobStore {
  /** Which driver this is; lets the composition root register the local file route only for `"local"`. */
  readonly driver: "local" | "s3";
  /**
   * Streams `body` into the object `key`, replacing any previous object atomically, and
   * hashes it (SHA-256) on the way. If `body` errors (e.g. a size limit tripped upstream) or
   * `signal` aborts, nothing is kept, `body` is destroyed and the promise rejects with that
   * error (the signal's reason when it is an Error).
   * @returns the number of bytes written and their SHA-256.
   */
  put(key: string, body: Readable, opts: PutOptions): Promise<PutResult>;
  /**
   * Stores the local file at `localPath` as the object `key` (e.g. a rendered output), replacing
   * any previous object atomically. With `move`, the caller hands the file over: it is gone once
   * the promise resolves (local disk renames it into place when it is on the same filesystem,
   * else copies and then removes it; S3 uploads it, then removes it). When the promise rejects,
   * nothing is stored under `key` and `localPath` is left where it was.
   * @returns the object's size in bytes.
   */
  putFile(key: string, localPath: string, opts: PutFileOptions): Promise<{ size: number }>;
  /**
   * Opens the object for reading, whole or an inclusive byte `range` (clamped to the object's end).
   * @throws AppError `not_found` when the object does not exist.
   */
  openRead(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and time of the object, or `null` when it does not exist. */
  stat(key: string): Promise<BlobStat | null>;
  /** Removes the object; succeeds when it does not exist. */
  delete(key: string): Promise<void>;
  /**
   * Removes every object whose key starts with `prefix` (e.g. `uploads/upl_…/`).
   * @returns how many objects were removed.
   */
  deletePrefix(prefix: string): Promise<number>;
  /** A signed, expiring GET URL for the object that works without an API key. */
  signedUrl(key: string, opts: SignedUrlOptions): Promise<SignedUrl>;
  /**
   * The key of the object a URL of this store points at (a signed URL it gave out, whether or
   * not it has expired), or `null` when the URL is not one of this store's (another host or
   * path, or no valid key). Does not check the signature: the URL only names the object.
   */
  keyOfUrl(url: string): Promise<string | null>;
  /**
   * Absolute path of the object on this machine's disk, or `null` when the driver is remote.
   * Lets ffmpeg and the render worker read local objects in place. The file may not exist.
   */
  localPath(key: string): string | null;
  /** Copies the object to the local file `path` (written atomically: temp file + rename). */
  downloadTo(key: string, path: string): Promise<void>;
}

const KEY_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Longest key accepted, characters (S3 allows 1,024 bytes). */
export const MAX_KEY_LENGTH = 512;

/**
 * Checks that `key` is a well-formed storage key: 1..512 characters, `/`-separated segments of
 * `[A-Za-z0-9][A-Za-z0-9._-]*` (so no `.`/`..`, no empty segment, no leading `/`, no dot-files).
 * @throws Error when it is not (a programming error: keys never come from user input).
 */
export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
}

/**
 * The key a URL names below `base` (a URL prefix ending in `/`, e.g. `https://host/files/`):
 * the rest of its path, percent-decoded, when it is a valid key; else `null`. Query and
 * fragment are ignored.
 */
export function keyBelow(base: string, url: string): string | null {
  let parsed: URL;
  let root: URL;
  try {
    parsed = new URL(url);
    root = new URL(base);
  } catch {
    return null;
  }
  if (parsed.origin !== root.origin || !parsed.pathname.startsWith(root.pathname)) return null;
  let key: string;
  try {
    key = parsed.pathname
      .slice(root.pathname.length)
      .split("/")
      .map((segment) => decodeURIComponent(segment))
      .join("/");
  } catch {
    return null;
  }
  return isValidKey(key) ? key : null;
}

/** `true` when `key` is a well-formed storage key (see {@link assertValidKey}). */
export function isValidKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  return key.split("/").every((segment) => KEY_SEGMENT.test(segment));
}

/**
 * Checks a prefix for {@link BlobStore.deletePrefix}: a key prefix ending in `/`
 * (a whole "folder"), so that `uploads/upl_1` cannot also match `uploads/upl_10`.
 * @throws Error when it is not.
 */
export function assertValidPrefix(prefix: string): void {
  if (!prefix.endsWith("/") || !isValidKey(prefix.slice(0, -1))) {
    throw new Error(`Invalid storage prefix ${JSON.stringify(prefix)} (must be a key followed by "/")`);
  }
}
