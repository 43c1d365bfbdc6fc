import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { pipeline as pipelineCb, type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { notFound } from "../errors.ts";
import {
  assertValidKey,
  assertValidPrefix,
  type BlobStat,
  type BlobStore,
  type ByteRange,
  keyBelow,
  type PutFileOptions,
  type PutOptions,
  type PutResult,
  type SignedUrl,
  type SignedUrlOptions,
} from "./blob-store.ts";
import { contentDispositionFor } from "./content-disposition.ts";

/** Longest lifetime of an S3 presigned URL (SigV4), seconds: 7 days. */
export const S3_MAX_PRESIGN_SEC = 604_800;

const DELETE_CONCURRENCY = 8;

/** Options of {@link S3BlobStore}. */
export interface S3BlobStoreOptions {
  /** Endpoint of an S3-compatible service, e.g. `http://127.0.0.1:9000`; omit for AWS. */
  endpoint?: string;
  /**
   * Endpoint written into presigned URLs when clients reach the service at another address
   * than this process does (e.g. `https://s3.example.com` vs `http://minio:9000`); default `endpoint`.
   */
  publicEndpoint?: string;
  bucket: string;
  region: string;
  /** Static credentials; omit both to use the SDK's default chain (env, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (`endpoint/bucket/key`), needed by most self-hosted S3 servers. */
  forcePathStyle: boolean;
  /** Multipart part size, bytes (≥ 5 MiB); default 8 MiB. Memory per upload ≈ partSize × queueSize. */
  partSizeBytes?: number;
  /** Parts uploaded concurrently per object; default 2. */
  queueSize?: number;
}

/**
 * Objects in an S3-compatible bucket through AWS SDK v3. `put` streams with lib-storage's
 * multipart `Upload` (bounded memory: part size × queue size) and aborts the multipart upload
 * when the body errors or the signal fires, so a failed write leaves no object and no parts.
 * Signed URLs are SigV4 presigned GETs carrying `response-content-type`/`-disposition`.
 *
 * Checksums are computed only when an operation requires them (`WHEN_REQUIRED`): the SDK's
 * default streams bodies with aws-chunked trailing checksums, which many S3-compatible servers
 * do not understand.
 */
export class S3BlobStore implements BlobStore {
  readonly driver = "s3" as const;
  readonly bucket: string;
  /** The SDK client (exposed for health checks and tests). */
  readonly client: S3Client;
  private readonly presignClient: S3Client;
  private readonly partSize: number;
  /** The URL prefix of this store's presigned URLs, up to the key (computed once). */
  private urlBase: Promise<string> | undefined;
  private readonly queueSize: number;

  constructor(opts: S3BlobStoreOptions) {
    const base: S3ClientConfig = {
      region: opts.region,
      forcePathStyle: opts.forcePathStyle,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      ...(opts.accessKeyId && opts.secretAccessKey
        ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
        : {}),
    };
    this.bucket = opts.bucket;
    this.client = new S3Client({ ...base, ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) });
    this.presignClient =
      opts.publicEndpoint && opts.publicEndpoint !== opts.endpoint
        ? new S3Client({ ...base, endpoint: opts.publicEndpoint })
        : this.client;
    this.partSize = Math.max(opts.partSizeBytes ?? 8 * 1024 * 1024, 5 * 1024 * 1024);
    this.queueSize = Math.max(opts.queueSize ?? 2, 1);
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<PutResult> {
    assertValidKey(key);
    const { signal } = opts;
    signal?.throwIfAborted();
    let size = 0;
    const hash = createHash("sha256");
    let sourceError: unknown;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    // Errors of `body` destroy `counter` with that error, which fails the Upload's read loop.
    const counted = pipelineCb(body, counter, (err) => {
      sourceError ??= err;
    });
    // Failing the source (rather than Upload.abort(), which rejects before the multipart
    // upload is cleaned up) lets done() settle only after AbortMultipartUpload has run.
    const onAbort = () => {
      sourceError ??= signal?.reason;
      counted.destroy(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: counted, ContentType: opts.contentType },
      partSize: this.partSize,
      queueSize: this.queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      return { size, sha256: hash.digest("hex") };
    } catch (err) {
      counted.destroy();
      // The caller needs the source's error (e.g. a size limit), not a failed multipart abort.
      throw sourceError ?? err;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  async putFile(key: string, localPath: string, opts: PutFileOptions): Promise<{ size: number }> {
    assertValidKey(key);
    const { size } = await stat(localPath);
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(localPath),
        ContentType: opts.contentType,
        ContentLength: size,
      },
      partSize: this.partSize,
      queueSize: this.queueSize,
      leavePartsOnError: false,
    });
    await upload.done();
    if (opts.move) await rm(localPath, { force: true });
    return { size };
  }

  async openRead(key: string, range?: ByteRange): Promise<Readable> {
    assertValidKey(key);
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return res.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw notFound("File");
      throw err;
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    assertValidKey(key);
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        size: res.ContentLength ?? 0,
        modifiedAt: res.LastModified ?? new Date(0),
        contentType: res.ContentType,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidPrefix(prefix);
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
      // One DeleteObject per key (a few at a time) rather than DeleteObjects: the multi-object
      // call needs a body checksum that several S3-compatible servers reject or do not implement.
      for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
        await Promise.all(
          keys
            .slice(i, i + DELETE_CONCURRENCY)
            .map((Key) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }))),
        );
      }
      removed += keys.length;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return removed;
  }

  async signedUrl(key: string, opts: SignedUrlOptions): Promise<SignedUrl> {
    assertValidKey(key);
    const expiresIn = Math.ceil(opts.expiresInSec);
    if (!(expiresIn > 0 && expiresIn <= S3_MAX_PRESIGN_SEC)) {
      throw new Error(`expiresInSec must be 1..${S3_MAX_PRESIGN_SEC} for S3 presigned URLs`);
    }
    const signedAt = Date.now();
    const url = await getSignedUrl(
      opts.internal ? this.client : this.presignClient,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ...(opts.contentType ? { ResponseContentType: opts.contentType } : {}),
        ResponseContentDisposition: contentDispositionFor(opts.contentType, opts.filename),
      }),
      { expiresIn },
    );
    return { url, expiresAt: new Date(Math.floor(signedAt / 1000) * 1000 + expiresIn * 1000) };
  }

  async keyOfUrl(url: string): Promise<string | null> {
    // Where this store's presigned URLs put a key: presign a probe key and keep what comes before it.
    this.urlBase ??= getSignedUrl(
      this.presignClient,
      new GetObjectCommand({ Bucket: this.bucket, Key: "k" }),
      {
        expiresIn: 60,
      },
    ).then((probe) => {
      const u = new URL(probe);
      return `${u.origin}${u.pathname.slice(0, -1)}`;
    });
    return keyBelow(await this.urlBase, url);
  }

  localPath(_key: string): null {
    return null;
  }

  async downloadTo(key: string, dest: string): Promise<void> {
    const tmp = `${dest}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await pipeline(await this.openRead(key), createWriteStream(tmp, { flags: "wx" }));
      await rename(tmp, dest);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** Closes the SDK's sockets (tests, shutdown). */
  close(): void {
    this.client.destroy();
    if (this.presignClient !== this.client) this.presignClient.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
}
