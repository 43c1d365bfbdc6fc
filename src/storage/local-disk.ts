import { randomBytes } from "node:crypto";
import type { Dirent } from "node:fs";
import { copyFile, type FileHandle, mkdir, open, readdir, rename, rm, rmdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { notFound } from "../errors.ts";
import {
  assertValidKey,
  assertValidPrefix,
  type BlobStat,
  type BlobStore,
  type ByteRange,
  type PutFileOptions,
  type PutOptions,
  type PutResult,
  type SignedUrl,
  type SignedUrlOptions,
} from "./blob-store.ts";
import { writeToFile } from "./file-writer.ts";
import { createUrlSigner, type UrlSigner } from "./signed-url.ts";

/** Options of {@link LocalDiskStore}. */
export interface LocalDiskStoreOptions {
  /** Root directory of the objects (e.g. `DATA_DIR/blobs`); created when missing. */
  dir: string;
  /** Origin clients reach the API at, used in signed URLs, e.g. `http://localhost:3000`. */
  publicBaseUrl: string;
  /** HMAC secret for signed URLs (≥ 32 characters; see `loadOrCreateSecret`). */
  secret: string;
  /** Path of the file route, default `/files` (the lead registers `GET /files/*`). */
  routePrefix?: string;
}

const TEMP_SUFFIX = ".tmp";

/**
 * Objects as plain files under one directory: key `uploads/upl_1/original` is the file
 * `<dir>/uploads/upl_1/original`. Writes go to a dot-named temp file in the same directory
 * (hashed and written on a writer thread, see `writeToFile`), are fsynced and renamed into
 * place (atomic on POSIX); a failed or aborted write removes its temp file. A file handed over
 * with `putFile(…, { move: true })` is renamed into place when it is on the same filesystem.
 * Signed URLs point at the API's own file route (see `serveSignedFile`).
 */
export class LocalDiskStore implements BlobStore {
  readonly driver = "local" as const;
  /** Absolute root directory. */
  readonly dir: string;
  /** Signs and verifies this store's file URLs. */
  readonly signer: UrlSigner;

  constructor(opts: LocalDiskStoreOptions) {
    this.dir = path.resolve(opts.dir);
    this.signer = createUrlSigner({
      secret: opts.secret,
      publicBaseUrl: opts.publicBaseUrl,
      ...(opts.routePrefix ? { routePrefix: opts.routePrefix } : {}),
    });
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<PutResult> {
    const target = this.filePath(key);
    const { handle, tmp } = await this.openTemp(target);
    try {
      // Hashed and written on the shared writer thread, which also flushes the file as it
      // grows (so the fsync below is short). Only what is kept is fsynced: a failed write is
      // dropped at once (a refused 512 MB upload's 413 must not wait for its data to reach disk).
      const { bytes, sha256 } = await writeToFile(handle.fd, body, {
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.transferChunks ? { transferChunks: true } : {}),
      });
      await handle.sync();
      await handle.close();
      await rename(tmp, target);
      return { size: bytes, sha256 };
    } catch (err) {
      await handle.close().catch(() => {});
      await rm(tmp, { force: true });
      await this.pruneEmptyDirs(path.dirname(target));
      throw err;
    }
  }

  async putFile(key: string, localPath: string, opts: PutFileOptions): Promise<{ size: number }> {
    const target = this.filePath(key);
    if (opts.move) {
      const { size } = await stat(localPath);
      try {
        // Same filesystem: one atomic rename, no bytes copied.
        await this.inDir(path.dirname(target), () => rename(localPath, target));
        return { size };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EXDEV") {
          await this.pruneEmptyDirs(path.dirname(target));
          throw err;
        }
      }
    }
    const { handle, tmp } = await this.openTemp(target);
    await handle.close();
    try {
      await copyFile(localPath, tmp);
      const { size } = await stat(tmp);
      await rename(tmp, target);
      if (opts.move) await rm(localPath, { force: true });
      return { size };
    } catch (err) {
      await rm(tmp, { force: true });
      await this.pruneEmptyDirs(path.dirname(target));
      throw err;
    }
  }

  async openRead(key: string, range?: ByteRange): Promise<Readable> {
    let handle: FileHandle;
    try {
      handle = await open(this.filePath(key), "r");
    } catch (err) {
      if (isMissing(err)) throw notFound("File");
      throw err;
    }
    // The stream closes the handle when it ends or is destroyed.
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const s = await stat(this.filePath(key));
      return s.isFile() ? { size: s.size, modifiedAt: s.mtime, contentType: undefined } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.filePath(key);
    await rm(file, { force: true });
    await this.pruneEmptyDirs(path.dirname(file));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidPrefix(prefix);
    const folder = this.filePath(prefix.slice(0, -1));
    let count = 0;
    try {
      const entries = await readdir(folder, { recursive: true, withFileTypes: true });
      count = entries.filter((e) => e.isFile() && !e.name.startsWith(".")).length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOTDIR") return 0;
      // Missing: the folder is gone, or a concurrent delete pruned a subfolder during the walk.
      // What is left must still go (the count is then 0).
      if (!isMissing(err)) throw err;
    }
    await rm(folder, { recursive: true, force: true });
    await this.pruneEmptyDirs(path.dirname(folder));
    return count;
  }

  async signedUrl(key: string, opts: SignedUrlOptions): Promise<SignedUrl> {
    return this.signer.sign(key, opts);
  }

  async keyOfUrl(url: string): Promise<string | null> {
    return this.signer.keyOf(url);
  }

  localPath(key: string): string {
    return this.filePath(key);
  }

  async downloadTo(key: string, dest: string): Promise<void> {
    const tmp = `${dest}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`;
    try {
      await copyFile(this.filePath(key), tmp);
      await rename(tmp, dest);
    } catch (err) {
      await rm(tmp, { force: true });
      if (isMissing(err)) throw notFound("File");
      throw err;
    }
  }

  /**
   * Removes temp files (`.<name>.<random>.tmp`) older than `olderThanMs` left by a process that
   * died mid-write. Call at start (e.g. with 1 hour); live writes are younger than that.
   * @returns how many temp files were removed.
   */
  async sweepTempFiles(olderThanMs: number, now: number = Date.now()): Promise<number> {
    let removed = 0;
    let entries: Dirent[];
    try {
      entries = await readdir(this.dir, { recursive: true, withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return 0;
      throw err;
    }
    for (const e of entries) {
      if (!e.isFile() || !e.name.startsWith(".") || !e.name.endsWith(TEMP_SUFFIX)) continue;
      const file = path.join(e.parentPath, e.name);
      const s = await stat(file).catch(() => null);
      if (s && now - s.mtimeMs > olderThanMs) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /**
   * Runs {@link sweepTempFiles} now and then every `intervalMs` on an unref'd timer (it never
   * keeps the process alive), so a write cut off by a killed process loses its temp file within
   * `olderThanMs + intervalMs` without waiting for a restart. A failed sweep is reported to
   * `onError` and the next one still runs.
   * @returns a function that stops the sweeps.
   */
  sweepTempFilesEvery(intervalMs: number, olderThanMs: number, onError: (err: unknown) => void): () => void {
    const sweep = () => void this.sweepTempFiles(olderThanMs).catch(onError);
    sweep();
    const timer = setInterval(sweep, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Absolute path of `key`, refusing anything that could leave the root. */
  private filePath(key: string): string {
    assertValidKey(key);
    const file = path.resolve(this.dir, key);
    if (!file.startsWith(this.dir + path.sep)) throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
    return file;
  }

  /** Creates the target's directory and an exclusive temp file beside the target. */
  private async openTemp(target: string): Promise<{ handle: FileHandle; tmp: string }> {
    const dir = path.dirname(target);
    const tmp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`);
    return { handle: await this.inDir(dir, () => open(tmp, "wx", 0o600)), tmp };
  }

  /**
   * Runs `work`, which creates an entry in `dir`, after creating `dir`; a concurrent delete may
   * prune the directory between the two, so a missing directory is created again (3 tries).
   */
  private async inDir<T>(dir: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      try {
        return await work();
      } catch (err) {
        if (!isMissing(err) || attempt >= 3) throw err;
      }
    }
  }

  /** Removes now-empty directories from `dir` up to (not including) the root. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    let current = dir;
    while (current.startsWith(this.dir + path.sep)) {
      try {
        await rmdir(current);
      } catch (err) {
        if (!isMissing(err)) return; // not empty (or busy): stop here
      }
      current = path.dirname(current);
    }
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}
