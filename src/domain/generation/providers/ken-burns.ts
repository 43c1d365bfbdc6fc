import type { ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import type { Readable, Writable } from "node:stream";
import { Worker } from "node:worker_threads";
import { FfmpegError } from "../../../media/ffmpeg-run.ts";
import { spawnTool } from "../../../media/tool-launch.ts";
import { KEN_BURNS_MAX_ZOOM } from "./ken-burns-move.ts";
import type { KenBurnsThreadData } from "./ken-burns-thread.ts";
import { resamplerModule } from "./resample-simd.ts";

/** The x264 settings of the offline video (and of the benchmark's encode-only floor). */
export const KEN_BURNS_X264_ARGS = [
  "-c:v",
  "libx264",
  "-preset",
  "veryfast",
  "-crf",
  "20",
  "-pix_fmt",
  "yuv420p",
];

/** Options of {@link renderKenBurns}. */
export interface RenderKenBurnsOptions {
  /** The still (any format ffmpeg reads). */
  input: string;
  /** MP4 file to write. */
  output: string;
  /** Output size, pixels (even numbers). */
  width: number;
  height: number;
  /** Frames per second (24). */
  fps: number;
  /** Output duration, seconds; the video has `round(duration·fps)` frames. */
  duration: number;
  signal?: AbortSignal;
  /** Called with the share of frames written, 0..1. */
  onProgress?: (ratio: number) => void;
  /** Resampling threads (default: the machine's parallelism, at most 4). */
  threads?: number;
}

/**
 * Animates a still with a Ken Burns move (slow zoom-in with a drift) into an H.264 MP4 of
 * exactly `width`×`height`, `fps` and `duration`, silent:
 * 1. ffmpeg scales the still once to cover `width·1.15`×`height·1.15` (Lanczos, centre crop),
 *    so the closest frame still reads the source at native resolution, as planar YUV 4:2:0;
 * 2. every frame is resampled from that buffer with bilinear weights at sub-pixel positions
 *    (`kenBurnsWindow` in `ken-burns-move.ts`, eased by frame index), so zoom and drift advance
 *    smoothly instead of snapping to whole pixels as ffmpeg's `zoompan` does, and chroma moves
 *    with luma; worker threads (`ken-burns-thread.ts`) resample frames in parallel into shared
 *    frame slots, with the WebAssembly SIMD resampler (`resample-simd.ts`) where the runtime has
 *    it, else the JavaScript `resamplePlane` (`resample-plane.ts`);
 * 3. frames stream in order as raw video into an x264 encoder ({@link KEN_BURNS_X264_ARGS}).
 *
 * @throws FfmpegError `FFMPEG_FAILED` when either ffmpeg fails (stderr tail in the message),
 *   `ABORTED` when `signal` aborts (both processes are killed first).
 */
export async function renderKenBurns(opts: RenderKenBurnsOptions): Promise<void> {
  const { width, height } = opts;
  const srcW = even(width * KEN_BURNS_MAX_ZOOM);
  const srcH = even(height * KEN_BURNS_MAX_ZOOM);
  const still = await runToBuffer(
    [
      "-v",
      "error",
      "-i",
      opts.input,
      "-frames:v",
      "1",
      "-vf",
      `scale=${srcW}:${srcH}:force_original_aspect_ratio=increase:flags=lanczos,crop=${srcW}:${srcH},format=yuv420p`,
      "-f",
      "rawvideo",
      "pipe:1",
    ],
    opts.signal,
  );
  const lumaSize = srcW * srcH;
  const chromaSize = (srcW / 2) * (srcH / 2);
  if (still.length !== lumaSize + 2 * chromaSize) {
    throw new FfmpegError(
      "FFMPEG_FAILED",
      `the still decoded to ${still.length} bytes, not one ${srcW}x${srcH} frame`,
    );
  }
  const frames = Math.round(opts.duration * opts.fps);
  // Launched to die with this worker: killed mid-render, no orphan encodes on.
  const encoder = spawnTool(
    "ffmpeg",
    [
      "-v",
      "error",
      "-y",
      "-f",
      "rawvideo",
      "-pix_fmt",
      "yuv420p",
      "-s",
      `${width}x${height}`,
      "-framerate",
      String(opts.fps),
      "-i",
      "pipe:0",
      "-frames:v",
      String(frames),
      ...KEN_BURNS_X264_ARGS,
      "-movflags",
      "+faststart",
      opts.output,
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  ) as ChildProcessByStdio<Writable, null, Readable>;
  let stderr = "";
  encoder.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4096);
  });
  const exited = once(encoder, "close") as Promise<[number | null]>;
  const onAbort = () => encoder.kill("SIGKILL");
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  encoder.stdin.on("error", () => {});
  const frameSize = width * height * 1.5;
  const threadCount = opts.threads ?? Math.max(1, Math.min(4, availableParallelism()));
  // Two frame slots per thread: one being resampled while the other waits for the pipe.
  const slots = threadCount * 2;
  const sharedStill = new SharedArrayBuffer(still.length);
  new Uint8Array(sharedStill).set(still);
  const sharedFrames = new SharedArrayBuffer(frameSize * slots);
  const data: KenBurnsThreadData = {
    wasm: await resamplerModule(),
    still: sharedStill,
    frames: sharedFrames,
    srcW,
    srcH,
    width,
    height,
    frameCount: frames,
  };
  const threads = Array.from(
    { length: threadCount },
    () => new Worker(new URL("./ken-burns-thread.ts", import.meta.url), { workerData: data }),
  );
  const ready = new Map<number, () => void>();
  let threadError: unknown;
  for (const t of threads) {
    t.on("message", ({ n }: { n: number }) => ready.get(n)?.());
    t.on("error", (err) => {
      threadError = err;
      for (const resolve of ready.values()) resolve();
    });
  }
  // Per slot: resolves once the frame last written from it has left for the encoder (or failed
  // to). These promises never reject: a write error is kept in `writeError` and thrown by the
  // loop, so a write that fails after the loop stopped (the encoder was killed) is not an
  // unhandled rejection.
  const slotFree: Promise<void>[] = Array.from({ length: slots }, () => Promise.resolve());
  let writeError: Error | undefined;
  const write = (frame: Buffer) =>
    new Promise<void>((resolve) =>
      encoder.stdin.write(frame, (err) => {
        if (err) writeError ??= err;
        resolve();
      }),
    );
  const resampled: Promise<void>[] = [];
  const schedule = (n: number) => {
    const slot = n % slots;
    resampled[n] = (slotFree[slot] as Promise<void>).then(
      () =>
        new Promise<void>((resolve) => {
          ready.set(n, resolve);
          threads[n % threadCount]?.postMessage({ n, slot });
        }),
    );
  };
  try {
    for (let n = 0; n < Math.min(slots, frames); n++) schedule(n);
    for (let n = 0; n < frames; n++) {
      if (opts.signal?.aborted) throw new FfmpegError("ABORTED", "the offline video was cancelled");
      await resampled[n];
      ready.delete(n);
      if (threadError) throw threadError;
      if (writeError) throw writeError;
      const slot = n % slots;
      slotFree[slot] = write(Buffer.from(sharedFrames, slot * frameSize, frameSize));
      if (n + slots < frames) schedule(n + slots);
      opts.onProgress?.((n + 1) / frames);
    }
    await Promise.all(slotFree);
    if (writeError) throw writeError;
    encoder.stdin.end();
    const [code] = await exited;
    if (opts.signal?.aborted) throw new FfmpegError("ABORTED", "the offline video was cancelled");
    if (code !== 0) {
      throw new FfmpegError("FFMPEG_FAILED", `ffmpeg failed (exit ${code}): ${stderr.trim()}`, {
        stderrTail: stderr,
        exitCode: code,
      });
    }
  } catch (err) {
    encoder.kill("SIGKILL");
    await exited.catch(() => {});
    if (opts.signal?.aborted) throw new FfmpegError("ABORTED", "the offline video was cancelled");
    if (err instanceof FfmpegError) throw err;
    throw new FfmpegError(
      "FFMPEG_FAILED",
      `encoding the offline video failed: ${(err as Error).message}; ${stderr.trim()}`,
    );
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    await Promise.all(threads.map((t) => t.terminate()));
  }
}

/** Nearest even integer ≥ 2 (4:2:0 frames need even sizes). */
function even(x: number): number {
  return Math.max(2, 2 * Math.round(x / 2));
}

/**
 * Runs ffmpeg with `args` and collects its stdout.
 * @throws FfmpegError `FFMPEG_FAILED` on a non-zero exit, `ABORTED` when `signal` aborts.
 */
export async function runToBuffer(args: string[], signal?: AbortSignal): Promise<Buffer> {
  signal?.throwIfAborted();
  const child = spawnTool("ffmpeg", args, { stdio: ["ignore", "pipe", "pipe"] }) as ChildProcessByStdio<
    null,
    Readable,
    Readable
  >;
  const chunks: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => chunks.push(d));
  child.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4096);
  });
  const onAbort = () => child.kill("SIGKILL");
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const [code] = (await once(child, "close")) as [number | null];
    if (signal?.aborted) throw new FfmpegError("ABORTED", "ffmpeg was stopped: the generation was cancelled");
    if (code !== 0) {
      throw new FfmpegError("FFMPEG_FAILED", `ffmpeg failed (exit ${code}): ${stderr.trim()}`, {
        stderrTail: stderr,
        exitCode: code,
      });
    }
    return Buffer.concat(chunks);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}
