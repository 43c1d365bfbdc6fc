/**
 * The one HTTP client of the process: every outbound request (vendor SDKs, result downloads,
 * webhooks, remote assets) goes through the `undici` package pinned in package.json, never
 * through Node's built-in `fetch`, over dispatchers built here with the same limits:
 * - connect, response-headers and body-idle time limits, a total time limit per request;
 * - a cap on response header bytes, and on decoded body bytes for {@link httpFetch};
 * - redirects: {@link httpFetch} follows at most 20 (the fetch standard's limit), {@link httpRequest}
 *   none (its callers check each hop themselves);
 * - every failure, while waiting for the headers or reading the body, becomes an
 *   {@link HttpClientError} with a sentence naming the host and what went wrong.
 * The `undici` module is imported on first use, so a process that never calls out does not load it.
 */
import type { LookupFunction } from "node:net";
import type { Agent, Dispatcher } from "undici";

/** A connection pool of {@link createDispatcher}; `destroy()` it after use. */
export type HttpDispatcher = Agent;

/** Limits of every outbound request; see {@link configureHttpClient}. */
export interface HttpClientSettings {
  /** TCP (and TLS) connect limit, milliseconds. */
  connectTimeoutMs: number;
  /** From sending the request to the end of the response headers, milliseconds. */
  headersTimeoutMs: number;
  /** Longest silence between two pieces of a response body, milliseconds. */
  bodyTimeoutMs: number;
  /** Whole request through {@link httpFetch}, body read included, milliseconds. */
  requestTimeoutMs: number;
  /** Largest response header block, bytes. */
  maxHeaderBytes: number;
  /** Largest decoded response body through {@link httpFetch}, bytes. */
  maxResponseBytes: number;
}

const DEFAULTS: HttpClientSettings = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  requestTimeoutMs: 15 * 60_000,
  maxHeaderBytes: 64 * 1024,
  maxResponseBytes: 64 * 1024 * 1024,
};

let settings: HttpClientSettings = { ...DEFAULTS };
let shared: Agent | undefined;
let undiciModule: Promise<typeof import("undici")> | undefined;

/** The `undici` package, imported once on first use. */
function loadUndici(): Promise<typeof import("undici")> {
  undiciModule ??= import("undici");
  return undiciModule;
}

/**
 * Sets the limits of every later request (unset fields keep their defaults) and drops the
 * shared connection pool, so the next request builds one with the new limits.
 */
export function configureHttpClient(next: Partial<HttpClientSettings>): void {
  settings = { ...DEFAULTS, ...next };
  const old = shared;
  shared = undefined;
  void old?.close().catch(() => {});
}

/** The limits in force. */
export function httpClientSettings(): Readonly<HttpClientSettings> {
  return settings;
}

/** A failed outbound request, with a sentence fit for a job's error or an API answer. */
export class HttpClientError extends Error {
  /** undici's error code (`UND_ERR_SOCKET`, `HPE_…`) or one of this module's (`TOO_LARGE`, `DEADLINE`). */
  readonly code: string;
  constructor(message: string, code: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "HttpClientError";
    this.code = code;
  }
}

/**
 * The {@link HttpClientError} behind an error an SDK threw (SDKs wrap the fetch's failure in
 * their own error, as its `cause`), or undefined when the failure was not the connection's.
 */
export function httpFailureOf(err: unknown): HttpClientError | undefined {
  let e = err;
  for (let i = 0; i < 6 && e; i++) {
    if (e instanceof HttpClientError) return e;
    const next = e as { cause?: unknown; lastError?: unknown };
    e = next.cause ?? next.lastError;
  }
  return undefined;
}

/** `host` of a URL for messages (never its path, query or credentials). */
function hostOf(url: string | URL): string {
  try {
    return new URL(url).host;
  } catch {
    return "the server";
  }
}

/** The innermost cause of an error (undici wraps its own errors in `TypeError: fetch failed`). */
function rootCause(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 5 && e instanceof Error && e.cause instanceof Error; i++) e = e.cause;
  return e;
}

/**
 * Turns whatever undici threw into an {@link HttpClientError} naming `url`'s host. Aborts by the
 * caller are returned unchanged (callers tell their own time limits apart).
 */
export function describeHttpError(err: unknown, url: string | URL): unknown {
  if (err instanceof HttpClientError) return err;
  if (err instanceof Error && err.name === "AbortError") return err;
  const cause = rootCause(err) as Error & { code?: string };
  if (cause instanceof HttpClientError) return cause;
  if (cause?.name === "AbortError" || cause?.name === "TimeoutError") return err;
  const host = hostOf(url);
  const code = String(cause?.code ?? "");
  const message = String(cause?.message ?? err);
  const s = settings;
  const sentence = (() => {
    switch (code) {
      case "UND_ERR_CONNECT_TIMEOUT":
        return `${host} could not be connected to within ${s.connectTimeoutMs} ms`;
      case "UND_ERR_HEADERS_TIMEOUT":
        return `${host} sent no complete response headers within ${s.headersTimeoutMs} ms`;
      case "UND_ERR_BODY_TIMEOUT":
        return `${host} stopped sending the response body for ${s.bodyTimeoutMs} ms`;
      case "UND_ERR_HEADERS_OVERFLOW":
        return `${host} sent response headers over the ${s.maxHeaderBytes} byte limit`;
      case "UND_ERR_RES_CONTENT_LENGTH_MISMATCH":
        return `${host} sent a body that does not match its Content-Length`;
      case "UND_ERR_RES_EXCEEDED_MAX_SIZE":
        return `${host} sent a response body over the size limit`;
      case "UND_ERR_SOCKET":
      case "ECONNRESET":
      case "EPIPE":
        return `${host} closed the connection before the response was complete`;
      case "ECONNREFUSED":
        return `${host} refused the connection`;
      default:
        if (code.startsWith("HPE_")) return `${host} sent a malformed HTTP response (${message})`;
        if (/redirect count exceeded/i.test(message)) return `${host} redirected too many times`;
        if (/terminated|other side closed/i.test(message)) {
          return `${host} closed the connection before the response was complete`;
        }
        if (/incorrect header check|unexpected end of file|zlib/i.test(message)) {
          return `${host} sent a body that does not decode (${message})`;
        }
        return `The request to ${host} failed: ${message}`;
    }
  })();
  return new HttpClientError(sentence, code || "UND_ERR", err);
}

/** Options of {@link createDispatcher}. */
export interface DispatcherOptions {
  /** Answers every DNS query (e.g. with the one address an SSRF check allowed). */
  lookup?: LookupFunction;
  /** Extra trusted CA certificate(s), PEM. */
  ca?: string;
  /** Overrides the connect limit, milliseconds. */
  connectTimeoutMs?: number;
}

/**
 * A connection pool with the client's limits, for requests that need their own connections
 * (a pinned address, a test CA). Close it (`destroy()`) after use.
 */
export async function createDispatcher(opts: DispatcherOptions = {}): Promise<Agent> {
  const { Agent } = await loadUndici();
  return new Agent({
    connect: {
      timeout: opts.connectTimeoutMs ?? settings.connectTimeoutMs,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
      ...(opts.ca ? { ca: opts.ca } : {}),
    },
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    maxHeaderSize: settings.maxHeaderBytes,
    allowH2: false,
  });
}

/** The process's shared pool (built on first use with the current limits). */
async function sharedDispatcher(): Promise<Agent> {
  if (!shared) shared = await createDispatcher();
  return shared;
}

/** Options of {@link httpRequest}: undici's, plus a dispatcher of {@link createDispatcher}. */
export type HttpRequestOptions = Omit<Dispatcher.RequestOptions, "origin" | "path" | "method"> &
  Partial<Pick<Dispatcher.RequestOptions, "method">> & { dispatcher?: Dispatcher };

/** A response of {@link httpRequest}: status, headers and a Node stream body to read or discard. */
export type HttpResponse = Dispatcher.ResponseData<unknown>;

/**
 * One request with undici's stream API (no redirects followed, no body decoding): for
 * downloads to disk and webhooks. The body must be read (e.g. {@link readLimited}) or
 * discarded ({@link discard}).
 * @throws HttpClientError when no response came (see {@link describeHttpError}); the signal's
 *   reason when it aborts.
 */
export async function httpRequest(url: string | URL, opts: HttpRequestOptions = {}): Promise<HttpResponse> {
  const { request } = await loadUndici();
  const dispatcher = opts.dispatcher ?? (await sharedDispatcher());
  try {
    const res = await request(url, { ...opts, dispatcher } as Parameters<typeof request>[1]);
    res.body.on("error", () => {});
    return res;
  } catch (err) {
    throw describeHttpError(err, url);
  }
}

/**
 * Reads a response body whole, up to `maxBytes`.
 * @param onOver - `"error"` (default) rejects past the limit; `"truncate"` stops reading there
 *   and returns what it read (the rest is dropped with the connection).
 * @throws HttpClientError `TOO_LARGE` past the limit, or the read's failure.
 */
export async function readLimited(
  res: HttpResponse,
  maxBytes: number,
  url: string | URL,
  onOver: "error" | "truncate" = "error",
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      if (size + buf.length > maxBytes) {
        if (onOver === "truncate") {
          chunks.push(buf.subarray(0, maxBytes - size));
          size = maxBytes;
          break;
        }
        throw new HttpClientError(
          `${hostOf(url)} sent a response body over the ${maxBytes} byte limit`,
          "TOO_LARGE",
        );
      }
      chunks.push(buf);
      size += buf.length;
    }
  } catch (err) {
    throw describeHttpError(err, url);
  } finally {
    res.body.destroy();
  }
  return Buffer.concat(chunks, size);
}

/**
 * Drops a response body that is not wanted (an error status, a redirect): reads and discards
 * up to 64 KiB so the connection can be reused, else closes it. Never throws.
 */
export async function discard(res: HttpResponse): Promise<void> {
  await res.body.dump({ limit: 64 * 1024 }).catch(() => res.body.destroy());
}

/**
 * A form of Node's built-in `FormData` rebuilt as the package's own: the package does not
 * recognise the built-in class and would send it as the text "[object FormData]".
 */
function asUndiciFormData(
  undici: typeof import("undici"),
  form: FormData,
): InstanceType<typeof undici.FormData> {
  const out = new undici.FormData();
  for (const [name, value] of form) {
    if (typeof value === "string") out.append(name, value);
    else out.append(name, value, value.name);
  }
  return out;
}

/** Statuses whose responses have no body (a `Response` with one cannot be built). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` every SDK is given (`@fal-ai/client`, the AI SDK providers): undici's fetch over
 * the shared pool, with the total time limit (`requestTimeoutMs`, joined to the caller's
 * signal) and the decoded body capped at `maxResponseBytes`. Failures — before or after the
 * headers — are {@link HttpClientError}s with a sentence.
 */
export const httpFetch: typeof globalThis.fetch = async (input, init) => {
  const undici = await loadUndici();
  const url = input instanceof Request ? input.url : String(input);
  const limit = settings.requestTimeoutMs;
  const maxBytes = settings.maxResponseBytes;
  const deadline = AbortSignal.timeout(limit);
  const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  const overDeadline = () =>
    new HttpClientError(`${hostOf(url)} did not finish the response within ${limit} ms`, "DEADLINE");
  let res: Awaited<ReturnType<typeof undici.fetch>>;
  try {
    res = await undici.fetch(input as Parameters<typeof undici.fetch>[0], {
      ...(init as Parameters<typeof undici.fetch>[1]),
      ...(init?.body instanceof FormData ? { body: asUndiciFormData(undici, init.body) } : {}),
      signal,
      dispatcher: await sharedDispatcher(),
    });
  } catch (err) {
    if (deadline.aborted && !init?.signal?.aborted) throw overDeadline();
    throw describeHttpError(err, url);
  }
  const source = res.body;
  const headers = new Headers(res.headers as unknown as Headers);
  let body: ReadableStream<Uint8Array> | null = null;
  if (source && NULL_BODY_STATUSES.has(res.status)) {
    await source.cancel().catch(() => {});
  } else if (source) {
    const reader = source.getReader();
    let size = 0;
    body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          size += value.byteLength;
          if (size > maxBytes) {
            const err = new HttpClientError(
              `${hostOf(url)} sent a response body over the ${maxBytes} byte limit`,
              "TOO_LARGE",
            );
            await reader.cancel(err).catch(() => {});
            return controller.error(err);
          }
          controller.enqueue(value);
        } catch (err) {
          controller.error(
            deadline.aborted && !init?.signal?.aborted ? overDeadline() : describeHttpError(err, url),
          );
        }
      },
      cancel(reason) {
        return reader.cancel(reason).catch(() => {});
      },
    });
  }
  const out = new Response(body, { status: res.status, statusText: res.statusText, headers });
  Object.defineProperty(out, "url", { value: res.url });
  Object.defineProperty(out, "redirected", { value: res.redirected });
  return out;
};
