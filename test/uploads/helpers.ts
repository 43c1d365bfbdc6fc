// Shared helpers of the upload integration tests: a streaming multipart client over a real
// socket, and "what is left behind" probes for both storage drivers.
import { randomBytes } from "node:crypto";
import http, { type Server } from "node:http";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { uploads } from "../../src/db/schema/uploads.ts";
import type { MediaInfo } from "../../src/media/probe.ts";
import { LocalDiskStore } from "../../src/storage/local-disk.ts";
import { S3BlobStore } from "../../src/storage/s3.ts";
import type { TestApp } from "../helpers/app.ts";
import { filesUnder } from "../helpers/files.ts";
import type { S3TestServer } from "../helpers/s3-server.ts";

/** The Upload resource as the tests read it. */
export interface UploadJson {
  id: string;
  projectId: string | null;
  url: string;
  urlExpiresAt: string;
  type: string;
  mimeType: string;
  name: string;
  size: number;
  sha256: string;
  createdAt: string;
  media: MediaInfo | null;
  posterUrl: string | null;
}

/** A response body of the upload routes: a list, or the standard error body. */
export interface ApiBody {
  data?: UploadJson[];
  nextCursor?: string | null;
  error?: { code: string; message: string; requestId?: string };
}

/** One part of a multipart body: a text field, or a file whose bytes come from a buffer or stream. */
export type FormPart =
  | { field: string; value: string }
  | { field?: string; filename: string; contentType?: string; data: Buffer | Readable };

/** Options of {@link postMultipart}. */
export interface PostMultipartOptions {
  /** API key sent as `Authorization: Bearer`. */
  key?: string;
  /** Path, default `/api/v1/uploads`. */
  path?: string;
  /** Destroy the socket once this many body bytes were written (simulates a client going away). */
  abortAfterBytes?: number;
  /** Overrides the `Content-Type` header (default multipart/form-data with the boundary). */
  contentType?: string;
  /** Raw body instead of `parts` (malformed multipart). */
  rawBody?: Buffer;
  /** Called the moment the response headers arrive (e.g. to read server-side counters then). */
  onResponse?: () => void;
}

/** What {@link postMultipart} saw. */
export interface PostMultipartResult {
  /** HTTP status, or 0 when no response came (aborted, connection reset before an answer). */
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (`{}` when there was no response or it was not JSON; see `text`). */
  body: ApiBody;
  /** Raw response body. */
  text: string;
  /** Body bytes the client had written to the socket when the response headers arrived. */
  sentAtResponse: number;
  /** Body bytes written in all. */
  sent: number;
  /** Whether the whole body was written. */
  finished: boolean;
  /** Socket error seen, if any (e.g. EPIPE once the server closed a refused upload). */
  error: Error | undefined;
}

/**
 * POSTs a multipart/form-data body over a real loopback socket, streaming each file part with
 * backpressure (chunked transfer encoding, no Content-Length). Stops writing as soon as the
 * response arrives, so a prompt 413/415 shows up as `finished: false` with a small
 * `sentAtResponse`. Never rejects: socket errors are reported in `error`.
 */
export function postMultipart(
  baseUrl: string,
  parts: FormPart[],
  opts: PostMultipartOptions = {},
): Promise<PostMultipartResult> {
  const boundary = `----cutroom${randomBytes(8).toString("hex")}`;
  const url = new URL(opts.path ?? "/api/v1/uploads", baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise((resolve) => {
    const result: PostMultipartResult = {
      status: 0,
      headers: {},
      body: {},
      text: "",
      sentAtResponse: -1,
      sent: 0,
      finished: false,
      error: undefined,
    };
    let settled = false;
    let responded = false;
    const done = () => {
      if (settled) return;
      settled = true;
      for (const p of parts) if ("data" in p && !Buffer.isBuffer(p.data)) p.data.destroy();
      agent.destroy();
      resolve(result);
    };
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: "POST",
      // A fresh connection per request, keep-alive like curl and fetch. With `Connection: close`
      // the server closes right after answering a refused upload and the unread bytes make the
      // kernel reset the connection, which can reach the client before it has parsed the answer.
      agent,
      headers: {
        "content-type": opts.contentType ?? `multipart/form-data; boundary=${boundary}`,
        ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      },
    });
    req.on("response", (res) => {
      responded = true;
      opts.onResponse?.();
      result.status = res.statusCode ?? 0;
      result.headers = res.headers;
      result.sentAtResponse = result.sent;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (err) => {
        result.error ??= err;
        done();
      });
      res.on("end", () => {
        result.text = Buffer.concat(chunks).toString("utf8");
        try {
          result.body = JSON.parse(result.text) as ApiBody;
        } catch {
          result.body = {};
        }
        if (!result.finished) req.destroy();
        done();
      });
    });
    req.on("error", (err) => {
      result.error ??= err;
      // An error before any response: the request failed (or was aborted on purpose).
      if (!responded) done();
    });
    req.on("close", () => {
      if (!responded) done();
    });

    const write = async (chunk: Buffer): Promise<void> => {
      if (responded || req.destroyed) throw new StopWriting();
      let buf = chunk;
      if (opts.abortAfterBytes !== undefined && result.sent + buf.length >= opts.abortAfterBytes) {
        buf = buf.subarray(0, Math.max(0, opts.abortAfterBytes - result.sent));
        if (buf.length > 0) await new Promise<void>((r) => req.write(buf, () => r()));
        result.sent += buf.length;
        // Let the bytes reach the server before the socket goes.
        await new Promise((r) => setTimeout(r, 150));
        req.destroy();
        throw new StopWriting();
      }
      result.sent += buf.length;
      if (!req.write(buf)) {
        await new Promise<void>((r) => {
          const go = () => {
            req.off("drain", go);
            req.off("close", go);
            req.off("response", go);
            r();
          };
          req.on("drain", go);
          req.on("close", go);
          req.on("response", go);
        });
      }
    };

    (async () => {
      if (opts.rawBody) {
        await write(opts.rawBody);
      } else {
        for (const part of parts) {
          if ("value" in part) {
            await write(
              Buffer.from(
                `--${boundary}\r\nContent-Disposition: form-data; name="${part.field}"\r\n\r\n${part.value}\r\n`,
              ),
            );
            continue;
          }
          await write(
            Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? "file"}"; filename="${part.filename}"\r\n` +
                `Content-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`,
            ),
          );
          if (Buffer.isBuffer(part.data)) await write(part.data);
          else for await (const chunk of part.data) await write(chunk as Buffer);
          await write(Buffer.from("\r\n"));
        }
        await write(Buffer.from(`--${boundary}--\r\n`));
      }
      result.finished = true;
      req.end();
    })().catch((err: unknown) => {
      if (!(err instanceof StopWriting)) {
        result.error ??= err as Error;
        req.destroy();
      }
    });
  });
}

class StopWriting extends Error {}

/**
 * What storage holds for the app, whatever the driver: files in the local blob directory
 * (temp files included), or the keys of every object in the S3 bucket.
 */
export async function storedFiles(t: TestApp): Promise<string[]> {
  const store = t.runtime.store;
  if (store instanceof LocalDiskStore) return filesUnder(store.dir);
  if (store instanceof S3BlobStore) {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await store.client.send(
        new ListObjectsV2Command({ Bucket: store.bucket, ContinuationToken: token }),
      );
      keys.push(...(page.Contents ?? []).map((o) => o.Key ?? ""));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }
  throw new Error("storedFiles: unknown store");
}

/**
 * Counts what the server reads from its sockets: `read()` is the largest `bytesRead` of any
 * connection accepted since the call (one upload at a time: that upload's request bytes).
 */
export function serverBytesRead(server: Server): { read(): number; stop(): void } {
  const sockets: Socket[] = [];
  const onConnection = (s: Socket) => sockets.push(s);
  server.on("connection", onConnection);
  return {
    read: () => Math.max(0, ...sockets.map((s) => s.bytesRead)),
    stop: () => server.off("connection", onConnection),
  };
}

/** Number of upload rows in the database (all owners). */
export async function uploadRowCount(t: TestApp): Promise<number> {
  return (await t.database.db.select({ id: uploads.id }).from(uploads)).length;
}

/** Polls `probe` until it returns `true` or `timeoutMs` passes. */
export async function eventually(probe: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Env for `startTestApp` that points the app's S3 driver at the test S3 server. */
export function s3Env(s3: S3TestServer): Record<string, string> {
  return {
    STORAGE_DRIVER: "s3",
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_REGION: s3.region,
  };
}

/** Adapts the app's S3 client to s3rver's bucket-path quirk (see `adaptClientToS3rver`). */
export function adaptAppStore(t: TestApp, s3: S3TestServer): void {
  const store = t.runtime.store;
  if (store instanceof S3BlobStore) s3.adaptClient(store.client);
}
