import { createHash, randomUUID } from "node:crypto";
import { copyFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { FfmpegError } from "../../../media/ffmpeg-run.ts";
import { probeMedia } from "../../../media/probe.ts";
import { bundledFonts } from "../../fonts/fonts.ts";
import { GenerationError } from "../errors.ts";
import { closestAspectRatio, durationSeconds, imagePixels, videoPixels } from "../sizes.ts";
import { renderKenBurns, runToBuffer } from "./ken-burns.ts";
import type { GenerationProvider, ProviderOutput, ProviderRequest, VendorRef } from "./types.ts";

/** Frames per second of offline videos. */
export const OFFLINE_VIDEO_FPS = 24;

/** The label every offline output carries, so nobody mistakes it for AI output. */
export const OFFLINE_LABEL = "OFFLINE PLACEHOLDER - not AI-generated";

/**
 * The offline provider: makes honest placeholders on this machine, through the same
 * submit/status/result protocol as a vendor. `submit` records the request (and a copy of the
 * still) under `root/<requestId>/`; `result` renders the files:
 * - image: a PNG at the exact size, a two-colour gradient whose colours and direction come from
 *   a SHA-256 of prompt and seed (deterministic), the prompt as a caption and {@link OFFLINE_LABEL};
 * - video: a Ken Burns move over the still ({@link renderKenBurns}) at the exact resolution,
 *   aspect ratio and duration, 24 fps, silent.
 *
 * @param root - a scratch directory (e.g. `WORK_DIR/offline-generations`).
 */
export function createOfflineProvider(root: string): GenerationProvider {
  const dirOf = (id: string) => {
    if (!/^off_[0-9a-f-]{36}$/.test(id))
      throw new GenerationError("vendor_error", "Unknown offline request id");
    return path.join(root, id);
  };
  return {
    name: "offline",
    async submit(request, { signal }) {
      signal.throwIfAborted();
      const requestId = `off_${randomUUID()}`;
      const dir = dirOf(requestId);
      await mkdir(dir, { recursive: true });
      const stored = { ...request };
      if (stored.kind === "video") {
        await copyFile(stored.imagePath, path.join(dir, "still"));
        stored.imagePath = "still";
      }
      await writeFile(path.join(dir, "request.json"), JSON.stringify(stored));
      return requestId;
    },
    async status(ref) {
      const exists = await stat(path.join(dirOf(ref.requestId), "request.json")).catch(() => null);
      if (!exists) {
        throw new GenerationError(
          "vendor_error",
          "The offline request is gone (its scratch directory was removed)",
        );
      }
      return { state: "completed" };
    },
    async result(ref, { dir, signal, onProgress }) {
      const requestDir = dirOf(ref.requestId);
      const request = JSON.parse(
        await readFile(path.join(requestDir, "request.json"), "utf8"),
      ) as ProviderRequest;
      try {
        if (request.kind === "image") return await offlineImages(request, dir, signal, onProgress);
        return [
          await offlineVideo(request, path.join(requestDir, request.imagePath), dir, signal, onProgress),
        ];
      } catch (err) {
        if (err instanceof FfmpegError && err.code === "ABORTED") throw signal.reason ?? err;
        if (err instanceof FfmpegError)
          throw new GenerationError(
            "vendor_error",
            `The offline renderer failed: ${err.message}`.slice(0, 500),
          );
        throw err;
      }
    },
    async cancel(ref: VendorRef) {
      await rm(dirOf(ref.requestId), { recursive: true, force: true });
    },
    async release(ref: VendorRef) {
      await rm(dirOf(ref.requestId), { recursive: true, force: true });
    },
  };
}

/** Two colours and a direction from the prompt and seed (SHA-256 bytes). */
function gradientFor(prompt: string, seed: number) {
  const h = createHash("sha256").update(`${seed}\n${prompt}`).digest();
  const hex = (o: number) => `0x${h.subarray(o, o + 3).toString("hex")}`;
  const angle = ((h[6] as number) / 256) * 2 * Math.PI;
  return { c0: hex(0), c1: hex(3), dx: Math.cos(angle), dy: Math.sin(angle) };
}

/** Splits `text` into at most `maxLines` lines of at most `width` characters (… when cut). */
export function wrapCaption(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.replace(/\s+/g, " ").trim().split(" ")) {
    for (let w = word; w.length > 0; ) {
      const room = line ? width - line.length - 1 : width;
      if (w.length <= room) {
        line = line ? `${line} ${w}` : w;
        w = "";
      } else if (!line) {
        lines.push(w.slice(0, width));
        w = w.slice(width);
      } else {
        lines.push(line);
        line = "";
      }
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${(kept[maxLines - 1] as string).slice(0, Math.max(0, width - 1))}…`;
  return kept;
}

/** Quotes a path or value for an ffmpeg filtergraph option. */
const quote = (s: string) => `'${s.replace(/\\/g, "/").replace(/'/g, "'\\''")}'`;

async function offlineImages(
  request: Extract<ProviderRequest, { kind: "image" }>,
  dir: string,
  signal: AbortSignal,
  onProgress?: (ratio: number) => void,
): Promise<ProviderOutput[]> {
  const { width, height } = imagePixels(request.imageSize as never);
  const fonts = bundledFonts()[0]?.faces ?? [];
  const regular = fonts.find((f) => f.weight === 400 && !f.italic)?.path as string;
  const bold = fonts.find((f) => f.weight === 700 && !f.italic)?.path ?? regular;
  const size = Math.max(10, Math.min(64, Math.round(Math.min(width, height) / 18)));
  const labelSize = Math.max(8, Math.round(size * 0.6));
  const perLine = Math.max(8, Math.floor((width * 0.9) / (size * 0.6)));
  const maxLines = Math.max(1, Math.floor((height * 0.55) / (size * 1.3)));
  const caption = wrapCaption(request.prompt, perLine, maxLines).join("\n");
  const captionFile = path.join(dir, "caption.txt");
  const labelFile = path.join(dir, "label.txt");
  await writeFile(captionFile, caption);
  await writeFile(labelFile, OFFLINE_LABEL);
  const outputs: ProviderOutput[] = [];
  for (let i = 0; i < request.numImages; i++) {
    const seed = (request.seed ?? 0) + i;
    const g = gradientFor(request.prompt, seed);
    const x0 = Math.round(width / 2 - (g.dx * width) / 2);
    const y0 = Math.round(height / 2 - (g.dy * height) / 2);
    const x1 = Math.round(width / 2 + (g.dx * width) / 2);
    const y1 = Math.round(height / 2 + (g.dy * height) / 2);
    const out = path.join(dir, `image-${i + 1}.png`);
    const graph = [
      `gradients=s=${width}x${height}:c0=${g.c0}:c1=${g.c1}:x0=${x0}:y0=${y0}:x1=${x1}:y1=${y1}:nb_colors=2:speed=0.00001:seed=${seed % 2 ** 31}`,
      `drawtext=fontfile=${quote(regular)}:textfile=${quote(captionFile)}:expansion=none:fontsize=${size}:fontcolor=white:line_spacing=${Math.round(size * 0.3)}:box=1:boxcolor=black@0.45:boxborderw=${Math.round(size / 3)}:x=(w-text_w)/2:y=(h-text_h)/2`,
      `drawtext=fontfile=${quote(bold)}:textfile=${quote(labelFile)}:expansion=none:fontsize=${labelSize}:fontcolor=white:box=1:boxcolor=black@0.7:boxborderw=${Math.round(labelSize / 2)}:x=${Math.round(labelSize)}:y=${Math.round(labelSize)}`,
      "format=rgb24",
    ].join(",");
    await runToBuffer(["-v", "error", "-y", "-f", "lavfi", "-i", graph, "-frames:v", "1", out], signal);
    outputs.push({ path: out });
    onProgress?.((i + 1) / request.numImages);
  }
  return outputs;
}

async function offlineVideo(
  request: Extract<ProviderRequest, { kind: "video" }>,
  still: string,
  dir: string,
  signal: AbortSignal,
  onProgress?: (ratio: number) => void,
): Promise<ProviderOutput> {
  let aspect = request.aspectRatio;
  if (aspect === "auto") {
    const probe = await probeMedia(still, { signal });
    aspect = closestAspectRatio(probe.width ?? 16, probe.height ?? 9);
  }
  const { width, height } = videoPixels(request.resolution, aspect);
  const out = path.join(dir, "video.mp4");
  await renderKenBurns({
    input: still,
    output: out,
    width,
    height,
    fps: OFFLINE_VIDEO_FPS,
    duration: durationSeconds(request.duration),
    signal,
    ...(onProgress ? { onProgress } : {}),
  });
  return { path: out };
}
