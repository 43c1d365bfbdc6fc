import type { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { notFound } from "../errors.ts";
import type { ByteRange } from "./blob-store.ts";
import { contentDispositionFor } from "./content-disposition.ts";
import type { LocalDiskStore } from "./local-disk.ts";
import type { SignedQuery } from "./signed-url.ts";

/** What the file route answers: status, headers (lower-case names) and the body stream, if any. */
export interface FileResponse {
  status: 200 | 206 | 416;
  headers: Record<string, string>;
  /** File bytes (the whole file or the range); `null` for 416. */
  body: Readable | null;
}

/** Inputs of {@link resolveSignedFile}, as parsed from the HTTP request. */
export interface SignedFileRequest {
  /** Storage key: the path after the route prefix, e.g. `uploads/upl_…/original`. */
  key: string;
  /** Parsed query string (`exp`, `sig`, optional `ct`, `fn`). */
  query: SignedQuery;
  /** The `Range` request header, if any. */
  range?: string | undefined;
  /** Current time, ms since the epoch (tests). */
  now?: number;
}

/**
 * Parses a `Range` header against a file of `size` bytes (RFC 9110 §14): one range of the
 * `bytes` unit (`a-b`, `a-`, `-suffix`), clamped to the file.
 * @returns the inclusive range; `null` when the header is absent, malformed or asks for several
 *   ranges (the whole file is then served with 200); `"unsatisfiable"` when it starts past the end (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a = "", b = ""] = m;
  if (a === "" && b === "") return null;
  if (a === "") {
    const suffix = Number(b);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  const end = b === "" ? Number.POSITIVE_INFINITY : Number(b);
  if (end < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(end, size - 1) };
}

/**
 * Decides the response to a signed local file request: verifies the signature and expiry,
 * then answers 200 (whole file), 206 (one byte range, for video seeking) or 416. Headers always
 * include the signed `Content-Type` (default `application/octet-stream`),
 * `X-Content-Type-Options: nosniff`, `Content-Disposition` (`attachment` for anything a browser
 * could execute), `Accept-Ranges: bytes` and a private `Cache-Control` bounded by the expiry.
 *
 * @throws AppError `forbidden` (403) for a missing, tampered or expired signature;
 *   `not_found` (404) when the object no longer exists.
 */
export async function resolveSignedFile(
  store: LocalDiskStore,
  req: SignedFileRequest,
): Promise<FileResponse> {
  const now = req.now ?? Date.now();
  const verified = store.signer.verify(req.key, req.query, now);
  const info = await store.stat(verified.key);
  if (!info) throw notFound("File");

  let contentType = verified.contentType ?? "application/octet-stream";
  if (/^text\//i.test(contentType) && !/charset=/i.test(contentType)) contentType += "; charset=utf-8";
  const maxAge = Math.max(0, Math.floor((verified.expiresAt.getTime() - now) / 1000));
  const headers: Record<string, string> = {
    "content-type": contentType,
    "x-content-type-options": "nosniff",
    "content-disposition": contentDispositionFor(verified.contentType, verified.filename),
    "accept-ranges": "bytes",
    "cache-control": `private, max-age=${maxAge}`,
    "last-modified": info.modifiedAt.toUTCString(),
  };

  const range = parseRange(req.range, info.size);
  if (range === "unsatisfiable") {
    return {
      status: 416,
      headers: { "content-range": `bytes */${info.size}`, "x-content-type-options": "nosniff" },
      body: null,
    };
  }
  if (range) {
    headers["content-range"] = `bytes ${range.start}-${range.end}/${info.size}`;
    headers["content-length"] = String(range.end - range.start + 1);
    return { status: 206, headers, body: await store.openRead(verified.key, range) };
  }
  headers["content-length"] = String(info.size);
  return { status: 200, headers, body: await store.openRead(verified.key) };
}

/**
 * Fastify handler for `GET /files/*` (local driver only): serves a signed file with Range support.
 * No API key: the signature is the credential. Errors are thrown as AppError for the global
 * error handler (403 bad/expired signature, 404 gone); a 416 is answered here with the standard
 * error body and `Content-Range: bytes *\/size`.
 *
 * @example
 * if (store.driver === "local") app.get("/files/*", (req, reply) => serveSignedFile(store, req, reply));
 */
export async function serveSignedFile(
  store: LocalDiskStore,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const key = (request.params as Record<string, string | undefined>)["*"] ?? "";
  const res = await resolveSignedFile(store, {
    key,
    query: (request.query ?? {}) as SignedQuery,
    range: request.headers.range,
  });
  reply.code(res.status).headers(res.headers);
  if (res.body === null) {
    return reply.send({
      error: {
        code: "invalid_request",
        message: "The requested range is not satisfiable",
        requestId: request.id,
      },
    });
  }
  return reply.send(res.body);
}
