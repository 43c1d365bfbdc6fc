/**
 * fal.ai's queue protocol through `@fal-ai/client`, shared by every fal model Cutroom calls
 * (image and video generation, Whisper transcription): the client with the queue origin
 * replaced by `queueUrl` (the client's `requestMiddleware`) and every request sent through the
 * process's HTTP client (`httpFetch`); `call`, which runs one queue
 * call with a time limit and exponential-backoff retries and maps failures to
 * {@link VendorError}s (422 about content → `content_rejected`, other answers →
 * `vendor_error`, time limits → `vendor_timeout`); and `cancel`, which cancels a request. The
 * key never appears in errors.
 */
import { ApiError, createFalClient } from "@fal-ai/client";
import { sleep } from "../../../clock.ts";
import { httpFetch } from "../../../net/http-client.ts";
import { VendorError } from "./errors.ts";

/** fal's public queue origin, which `queueUrl` replaces. */
const FAL_QUEUE_ORIGIN = "https://queue.fal.run";

/** Options of {@link createFalQueue}. */
export interface FalQueueOptions {
  /** The fal key. Sent only as fal's `Authorization: Key …` header; never logged or returned. */
  apiKey: string;
  /** Origin of the queue API (`FAL_QUEUE_URL`), default `https://queue.fal.run`. */
  queueUrl?: string | undefined;
  /** Time limit of one queue call, ms (default 30 000). */
  callTimeoutMs?: number | undefined;
  /** Retries of a call that failed in a retryable way (5xx, 429, network, timeout); default 3. */
  retries?: number | undefined;
  /** First backoff delay, ms, doubled per retry with ±25 % jitter (default 500). */
  retryBaseMs?: number | undefined;
}

/** A fal queue client and its retrying call wrapper (see the module doc). */
export function createFalQueue(opts: FalQueueOptions) {
  const queueUrl = (opts.queueUrl ?? FAL_QUEUE_ORIGIN).replace(/\/+$/, "");
  const queueOrigin = new URL(queueUrl).origin;
  const callTimeoutMs = opts.callTimeoutMs ?? 30_000;
  const retries = opts.retries ?? 3;
  const retryBaseMs = opts.retryBaseMs ?? 500;
  const client = createFalClient({
    credentials: opts.apiKey,
    suppressLocalCredentialsWarning: true,
    fetch: httpFetch,
    requestMiddleware: async (req) =>
      req.url.startsWith(FAL_QUEUE_ORIGIN)
        ? { ...req, url: queueUrl + req.url.slice(FAL_QUEUE_ORIGIN.length) }
        : req,
  });
  const redact = (s: string) => (opts.apiKey ? s.split(opts.apiKey).join("[redacted]") : s);

  /**
   * Runs one vendor call with a time limit and retries.
   * @throws VendorError for a vendor failure; the signal's reason when it aborts.
   */
  async function call<T>(
    what: string,
    signal: AbortSignal,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      const timeout = AbortSignal.timeout(callTimeoutMs);
      try {
        return await fn(AbortSignal.any([signal, timeout]));
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        const mapped = mapFalError(err, what, timeout.aborted, callTimeoutMs, redact);
        if (!mapped.retryable || attempt >= retries) throw mapped;
        const delay = retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
        await sleep(delay, signal);
      }
    }
  }
  /**
   * Cancels a request at fal (`queue.cancel`), with the retries of {@link call} and a time limit
   * of them all; resolves once fal has answered.
   * @throws VendorError when fal cannot be reached or refuses.
   */
  async function cancel(model: string, requestId: string): Promise<void> {
    await call("cancelling", AbortSignal.timeout(callTimeoutMs * (retries + 1)), (s) =>
      client.queue.cancel(model, { requestId, abortSignal: s }),
    );
  }
  return { client, call, cancel, queueOrigin, callTimeoutMs, retries, redact };
}

/** Whether a fal 422 body says the content was refused (fal's `content_policy_violation`). */
function isContentRefusal(body: unknown, message: string): boolean {
  const detail = (body as { detail?: unknown })?.detail;
  const items = Array.isArray(detail) ? detail : [];
  if (items.some((d) => /content_policy|nsfw|safety/i.test(String((d as { type?: unknown })?.type ?? ""))))
    return true;
  return /content polic|nsfw|safety checker|flagged/i.test(message);
}

/** A fal client failure as a {@link VendorError}. */
function mapFalError(
  err: unknown,
  what: string,
  timedOut: boolean,
  timeoutMs: number,
  redact: (s: string) => string,
): VendorError {
  if (err instanceof VendorError) return err;
  if (timedOut) {
    return new VendorError("vendor_timeout", `fal did not answer within ${timeoutMs} ms (${what})`, {
      retryable: true,
    });
  }
  if (err instanceof ApiError) {
    const body = err.body as { detail?: unknown } | undefined;
    const detail = Array.isArray(body?.detail)
      ? body.detail
          .map((d) => String((d as { msg?: unknown })?.msg ?? ""))
          .filter(Boolean)
          .join("; ")
      : typeof body?.detail === "string"
        ? body.detail
        : "";
    const message = redact((detail || err.message || `HTTP ${err.status}`).slice(0, 300));
    if (err.status === 422 && isContentRefusal(body, message)) {
      return new VendorError("content_rejected", `fal refused the content: ${message}`);
    }
    const retryable = err.status === 408 || err.status === 429 || err.status >= 500;
    return new VendorError("vendor_error", `fal answered ${err.status} while ${what}: ${message}`, {
      retryable,
    });
  }
  return new VendorError(
    "vendor_error",
    `fal could not be reached while ${what}: ${redact(String((err as Error)?.message ?? err)).slice(0, 200)}`,
    {
      retryable: true,
    },
  );
}
