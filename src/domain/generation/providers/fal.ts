import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiError, createFalClient } from "@fal-ai/client";
import { request as httpRequest } from "undici";
import { fetchRemoteAsset, RemoteAssetError } from "../../../media/fetch-remote-asset.ts";
import { FfmpegError } from "../../../media/ffmpeg-run.ts";
import { GenerationError } from "../errors.ts";
import { runToBuffer } from "./ken-burns.ts";
import type { GenerationProvider, ProviderRequest, VendorRef } from "./types.ts";

/** fal's public queue origin, which `queueUrl` replaces. */
const FAL_QUEUE_ORIGIN = "https://queue.fal.run";

/** Options of {@link createFalProvider}. */
export interface FalProviderOptions {
  /** `FAL_KEY`. Sent only as fal's `Authorization: Key …` header; never logged or returned. */
  apiKey: string;
  /** Origin of the queue API (`FAL_QUEUE_URL`), default `https://queue.fal.run`. */
  queueUrl?: string;
  /** Time limit of one queue call, ms (default 30 000). */
  callTimeoutMs?: number;
  /** Retries of a call that failed in a retryable way (5xx, 429, network, timeout); default 3. */
  retries?: number;
  /** First backoff delay, ms, doubled per retry with ±25 % jitter (default 500). */
  retryBaseMs?: number;
  /** Largest output file, bytes (default 512 MiB). */
  maxOutputBytes?: number;
  /** Time limit of one output download, ms (default 120 000). */
  downloadTimeoutMs?: number;
  /** Longest side of the still sent to a video model, pixels (default 1920). */
  maxInputSide?: number;
}

/**
 * The fal.ai provider over fal's queue protocol with `@fal-ai/client`: `queue.submit`,
 * `queue.status`, `queue.result`, `queue.cancel`, with the queue origin replaced by
 * `queueUrl` through the client's `requestMiddleware`.
 * - Inputs use fal's names: `prompt`, `image_size`, `num_images`, `seed`; for video
 *   `image_url` (the still downscaled to `maxInputSide` and sent as a JPEG data URI, because our
 *   signed URLs are usually not reachable from fal), `duration`, `resolution`, `aspect_ratio`,
 *   `generate_audio`.
 * - Every call has a time limit and is retried with exponential backoff when retryable.
 * - Output files on the queue origin are downloaded directly; any other URL goes through the
 *   SSRF guard ({@link fetchRemoteAsset}: https, public addresses only).
 * - Errors become {@link GenerationError}s: 422 about content → `content_rejected`, other
 *   vendor answers → `vendor_error`, time limits → `vendor_timeout`. The key never appears in them.
 */
export function createFalProvider(opts: FalProviderOptions): GenerationProvider {
  const queueUrl = (opts.queueUrl ?? FAL_QUEUE_ORIGIN).replace(/\/+$/, "");
  const queueOrigin = new URL(queueUrl).origin;
  const callTimeoutMs = opts.callTimeoutMs ?? 30_000;
  const retries = opts.retries ?? 3;
  const retryBaseMs = opts.retryBaseMs ?? 500;
  const maxOutputBytes = opts.maxOutputBytes ?? 512 * 1024 * 1024;
  const downloadTimeoutMs = opts.downloadTimeoutMs ?? 120_000;
  const client = createFalClient({
    credentials: opts.apiKey,
    suppressLocalCredentialsWarning: true,
    requestMiddleware: async (req) =>
      req.url.startsWith(FAL_QUEUE_ORIGIN)
        ? { ...req, url: queueUrl + req.url.slice(FAL_QUEUE_ORIGIN.length) }
        : req,
  });
  const redact = (s: string) => (opts.apiKey ? s.split(opts.apiKey).join("[redacted]") : s);

  /** Runs one vendor call with a time limit and retries; maps failures. */
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

  async function download(url: string, dest: string, signal: AbortSignal): Promise<void> {
    if (url.startsWith("data:")) {
      const m = /^data:[^;,]*(;base64)?,(.*)$/s.exec(url);
      if (!m) throw new GenerationError("vendor_error", "fal returned an unreadable data URI");
      const bytes = m[1]
        ? Buffer.from(m[2] as string, "base64")
        : Buffer.from(decodeURIComponent(m[2] as string));
      if (bytes.length > maxOutputBytes)
        throw new GenerationError("vendor_error", "fal returned a file over the size limit");
      await pipeline([bytes], createWriteStream(dest));
      return;
    }
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      throw new GenerationError("vendor_error", "fal returned an invalid result URL");
    }
    if (origin === queueOrigin) {
      await call("downloading a result", signal, async (s) => {
        const res = await httpRequest(url, { signal: s, headers: { authorization: `Key ${opts.apiKey}` } });
        if (res.statusCode !== 200) {
          await res.body.dump().catch(() => {});
          throw new ApiError({ message: `HTTP ${res.statusCode}`, status: res.statusCode });
        }
        let size = 0;
        const limit = new Transform({
          transform(chunk: Buffer, _enc, cb) {
            size += chunk.length;
            cb(
              size > maxOutputBytes
                ? new GenerationError("vendor_error", "fal returned a file over the size limit")
                : null,
              chunk,
            );
          },
        });
        await pipeline(res.body, limit, createWriteStream(dest)).catch(async (err: unknown) => {
          await rm(dest, { force: true });
          throw err;
        });
      });
      return;
    }
    try {
      await fetchRemoteAsset(url, dest, { maxBytes: maxOutputBytes, timeoutMs: downloadTimeoutMs, signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof RemoteAssetError)) throw err;
      const host = safeHost(url);
      if (err.reason === "timeout") {
        throw new GenerationError("vendor_timeout", `Downloading the result from ${host} timed out`, {
          retryable: true,
        });
      }
      throw new GenerationError(
        "vendor_error",
        `Downloading the result from ${host} failed: ${err.message}`,
        {
          retryable: err.retryable,
        },
      );
    }
  }

  return {
    name: "fal",
    async submit(request, { signal }) {
      const input = await falInput(request, opts.maxInputSide ?? 1920, signal);
      const queued = await call("submitting", signal, (s) =>
        client.queue.submit(request.model, { input, abortSignal: s } as never),
      );
      return queued.request_id;
    },
    async status(ref: VendorRef, { signal }) {
      const st = await call("polling", signal, (s) =>
        client.queue.status(ref.model, { requestId: ref.requestId, abortSignal: s }),
      );
      if (st.status === "COMPLETED") return { state: "completed" };
      return { state: st.status === "IN_PROGRESS" ? "running" : "queued" };
    },
    async result(ref, { dir, signal }) {
      const res = await call("fetching the result", signal, (s) =>
        client.queue.result(ref.model, { requestId: ref.requestId, abortSignal: s }),
      );
      const urls = resultUrls(res.data);
      if (urls.length === 0) throw new GenerationError("vendor_error", "fal returned a result without files");
      const files = [];
      for (const [i, url] of urls.entries()) {
        const dest = path.join(dir, `output-${i + 1}`);
        await download(url, dest, signal);
        files.push({ path: dest });
      }
      return files;
    },
    async cancel(ref) {
      await call("cancelling", AbortSignal.timeout(callTimeoutMs * (retries + 1)), (s) =>
        client.queue.cancel(ref.model, { requestId: ref.requestId, abortSignal: s }),
      );
    },
  };
}

/** fal's input object for a request (fal's field names). */
export async function falInput(
  request: ProviderRequest,
  maxInputSide: number,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  if (request.kind === "image") {
    return {
      prompt: request.prompt,
      image_size: request.imageSize,
      num_images: request.numImages,
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
    };
  }
  return {
    prompt: request.prompt,
    image_url: await stillAsDataUri(request.imagePath, maxInputSide, signal),
    duration: request.duration,
    resolution: request.resolution,
    aspect_ratio: request.aspectRatio,
    generate_audio: request.generateAudio,
  };
}

/**
 * The still as a `data:image/jpeg;base64,…` URI, scaled down (never up) so that its longer side
 * is at most `maxSide` pixels.
 * @throws GenerationError `input_unavailable` when ffmpeg cannot read it.
 */
export async function stillAsDataUri(file: string, maxSide: number, signal: AbortSignal): Promise<string> {
  try {
    const jpeg = await runToBuffer(
      [
        "-v",
        "error",
        "-i",
        file,
        "-frames:v",
        "1",
        "-vf",
        `scale='min(iw,${maxSide})':'min(ih,${maxSide})':force_original_aspect_ratio=decrease,format=yuvj420p`,
        "-c:v",
        "mjpeg",
        "-q:v",
        "3",
        "-f",
        "image2pipe",
        "pipe:1",
      ],
      signal,
    );
    return `data:image/jpeg;base64,${jpeg.toString("base64")}`;
  } catch (err) {
    if (err instanceof FfmpegError && err.code !== "ABORTED") {
      throw new GenerationError("input_unavailable", "The input image could not be read");
    }
    throw err;
  }
}

/** The file URLs of a fal result: `images[].url` (image models) or `video.url` (video models). */
function resultUrls(data: unknown): string[] {
  const d = data as { images?: { url?: unknown }[]; image?: { url?: unknown }; video?: { url?: unknown } };
  const urls: unknown[] = [];
  if (Array.isArray(d?.images)) urls.push(...d.images.map((i) => i?.url));
  if (d?.image?.url) urls.push(d.image.url);
  if (d?.video?.url) urls.push(d.video.url);
  return urls.filter((u): u is string => typeof u === "string" && u.length > 0);
}

/** Whether a fal 422 body says the content was refused (fal's `content_policy_violation`). */
function isContentRefusal(body: unknown, message: string): boolean {
  const detail = (body as { detail?: unknown })?.detail;
  const items = Array.isArray(detail) ? detail : [];
  if (items.some((d) => /content_policy|nsfw|safety/i.test(String((d as { type?: unknown })?.type ?? ""))))
    return true;
  return /content polic|nsfw|safety checker|flagged/i.test(message);
}

/** A fal client failure as a {@link GenerationError}. */
function mapFalError(
  err: unknown,
  what: string,
  timedOut: boolean,
  timeoutMs: number,
  redact: (s: string) => string,
): GenerationError {
  if (err instanceof GenerationError) return err;
  if (timedOut) {
    return new GenerationError("vendor_timeout", `fal did not answer within ${timeoutMs} ms (${what})`, {
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
      return new GenerationError("content_rejected", `fal refused the content: ${message}`);
    }
    const retryable = err.status === 408 || err.status === 429 || err.status >= 500;
    return new GenerationError("vendor_error", `fal answered ${err.status} while ${what}: ${message}`, {
      retryable,
    });
  }
  return new GenerationError(
    "vendor_error",
    `fal could not be reached while ${what}: ${redact(String((err as Error)?.message ?? err)).slice(0, 200)}`,
    {
      retryable: true,
    },
  );
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an invalid URL";
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
