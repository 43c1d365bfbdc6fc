import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiError } from "@fal-ai/client";
import { fetchRemoteAsset, RemoteAssetError } from "../../../media/fetch-remote-asset.ts";
import { FfmpegError } from "../../../media/ffmpeg-run.ts";
import { describeHttpError, discard, httpRequest } from "../../../net/http-client.ts";
import { createFalQueue, type FalQueueOptions } from "../../vendors/fal/queue.ts";
import { GenerationError } from "../errors.ts";
import { runToBuffer } from "./ken-burns.ts";
import type { GenerationProvider, ProviderRequest, VendorRef } from "./types.ts";

/** Options of {@link createFalProvider}: the queue's, and limits of inputs and outputs. */
export interface FalProviderOptions extends FalQueueOptions {
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
  const { client, call, cancel, queueOrigin } = createFalQueue(opts);
  const maxOutputBytes = opts.maxOutputBytes ?? 512 * 1024 * 1024;
  const downloadTimeoutMs = opts.downloadTimeoutMs ?? 120_000;
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
        const res = await httpRequest(url, {
          signal: s,
          headers: { authorization: `Key ${opts.apiKey}`, "accept-encoding": "identity" },
        });
        if (res.statusCode !== 200) {
          await discard(res);
          throw new ApiError({ message: `HTTP ${res.statusCode}`, status: res.statusCode });
        }
        const encoding = String(res.headers["content-encoding"] ?? "identity").toLowerCase();
        if (encoding !== "identity") {
          res.body.destroy();
          throw new GenerationError("vendor_error", `fal sent the result file ${encoding}-encoded`);
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
          throw err instanceof GenerationError ? err : describeHttpError(err, url);
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
      await cancel(ref.model, ref.requestId);
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

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an invalid URL";
  }
}
