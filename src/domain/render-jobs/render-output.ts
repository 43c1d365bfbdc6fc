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

/** The poster a render's own ffmpeg run writes into its work directory (`BuildRenderPlanInput.posterPath`). */
export const POSTER_FILE = "poster.jpg";

/**
 * The poster file of a finished render: the one its ffmpeg run wrote (`plan.output.posterPath`),
 * else one made from the output file (`makePoster`: a frame at 10 % of it); `null` when none
 * can be made.
 */
async function posterOf(
  plan: { output: { posterPath?: string }; durationSec: number },
  workDir: string,
  outPath: string,
): Promise<string | null> {
  const file = path.join(workDir, POSTER_FILE);
  const written =
    plan.output.posterPath !== undefined &&
    (await stat(file).then(
      (s) => s.size > 0,
      () => false,
    ));
  if (written) return file;
  const jpeg = await makePoster(outPath, { type: "video", duration: plan.durationSec }).catch(() => null);
  if (!jpeg) return null;
  await writeFile(file, jpeg);
  return file;
}

/**
 * Probes and hashes the rendered file `outPath` and makes its poster side by side (each reads
 * the file once; the poster only when the render's run did not write it), then moves the file
 * into the store under `renders/<renderId>/output.<format>` and the poster beside it (a rename
 * when the store is local disk on the same filesystem). What the plan says is the fallback of
 * what the probe cannot tell. `outPath` is gone afterwards.
 *
 * @param input.plan - the render's output shape (`output` width/height/fps and the poster its
 *   run wrote, `durationSec` seconds).
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
  plan: {
    output: Pick<RenderPlan["output"], "width" | "height" | "fps" | "posterPath">;
    durationSec: number;
  };
}): Promise<RenderOutput> {
  const { store, renderId, options, outPath, plan } = input;
  const wantPoster = plan.output.width && options.format !== "jpg" && options.format !== "png";
  const [info, sha256, posterFile] = await Promise.all([
    probeMedia(outPath).catch(() => null),
    sha256File(outPath),
    wantPoster ? posterOf(plan, input.workDir, outPath) : null,
  ]);
  const key = renderOutputKey(renderId, options.format);
  let posterKey: string | undefined;
  let size: number;
  try {
    ({ size } = await store.putFile(key, outPath, { contentType: FORMAT_MIME[options.format], move: true }));
    if (posterFile) {
      posterKey = renderPosterKey(renderId);
      await store.putFile(posterKey, posterFile, { contentType: "image/jpeg", move: true });
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
