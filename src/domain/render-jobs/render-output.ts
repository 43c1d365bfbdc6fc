/**
 * Storing a finished render's file: what the render resource says about it (size, duration,
 * frame size, hash) and its poster, for a render made in one piece and a split render's join.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import { makePoster } from "../../media/poster.ts";
import { probeMedia } from "../../media/probe.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderOutputKey, renderPosterKey } from "../../storage/keys.ts";
import { FORMAT_MIME } from "../render/outputs.ts";
import type { RenderPlan } from "../render/plan.ts";
import { RenderError, type RenderOutput, type RenderOutputOptions } from "../render/types.ts";

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/**
 * Probes, hashes and stores the rendered file `outPath` under `renders/<renderId>/output.<format>`,
 * with a JPEG poster for a video (written into `workDir` first). What the plan says is the
 * fallback of what the probe cannot tell.
 *
 * @param input.plan - the render's output shape (`output` width/height/fps, `durationSec` seconds).
 * @returns the render's `output` (keys, format, size in bytes, duration in seconds, sha256).
 * @throws RenderError `OUTPUT_UPLOAD_FAILED` when storing the file fails (nothing stays stored).
 */
export async function storeRenderOutput(input: {
  store: BlobStore;
  log: Logger;
  renderId: string;
  options: RenderOutputOptions;
  outPath: string;
  workDir: string;
  plan: { output: Pick<RenderPlan["output"], "width" | "height" | "fps">; durationSec: number };
}): Promise<RenderOutput> {
  const { store, renderId, options, outPath, plan } = input;
  const [info, size, sha256] = await Promise.all([
    probeMedia(outPath).catch(() => null),
    stat(outPath).then((s) => s.size),
    sha256File(outPath),
  ]);
  const key = renderOutputKey(renderId, options.format);
  let posterKey: string | undefined;
  try {
    await store.putFile(key, outPath, { contentType: FORMAT_MIME[options.format] });
    if (plan.output.width && options.format !== "jpg" && options.format !== "png") {
      const poster = await makePoster(outPath, {
        type: "video",
        duration: info?.duration ?? plan.durationSec,
      }).catch(() => null);
      if (poster) {
        const posterFile = path.join(input.workDir, "poster.jpg");
        await writeFile(posterFile, poster);
        posterKey = renderPosterKey(renderId);
        await store.putFile(posterKey, posterFile, { contentType: "image/jpeg" });
      }
    }
  } catch (err) {
    input.log.warn({ renderId, err }, "storing the render output failed");
    await store.delete(key).catch(() => {});
    if (posterKey) await store.delete(posterKey).catch(() => {});
    throw new RenderError("OUTPUT_UPLOAD_FAILED", "Storing the rendered file failed");
  }
  return {
    key,
    ...(posterKey ? { posterKey } : {}),
    format: options.format,
    ...(plan.output.width ? { width: info?.width ?? plan.output.width } : {}),
    ...(plan.output.height ? { height: info?.height ?? plan.output.height } : {}),
    ...(plan.output.fps ? { fps: info?.fps ?? plan.output.fps } : {}),
    duration: info?.duration ?? plan.durationSec,
    size,
    sha256,
  };
}
