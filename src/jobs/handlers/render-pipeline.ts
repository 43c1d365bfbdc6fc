import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import type { Db } from "../../db/client.ts";
import type { RenderRow } from "../../db/repositories/renders.ts";
import { findUploadsByIds, listUploadsPage, type UploadRow } from "../../db/repositories/uploads.ts";
import type { Timeline } from "../../domain/composition/schema.ts";
import { buildRenderPlan, readFontFamilyNames, writePlanFiles } from "../../domain/render/index.ts";
import { FORMAT_MIME } from "../../domain/render/outputs.ts";
import {
  RenderError,
  type RenderOutputOptions,
  type ResolvedAsset,
  type UploadedFont,
} from "../../domain/render/types.ts";
import { FfmpegError, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { makePoster } from "../../media/poster.ts";
import { probeMedia } from "../../media/probe.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { PipelineHooks, RenderOutput, RenderPipeline } from "./render-job.ts";

/** Where uploads are referenced from a composition: `{ uploadId, clipId }` pairs. */
function referencedUploads(doc: Timeline): { uploadId: string; clipId: string }[] {
  const refs: { uploadId: string; clipId: string }[] = [];
  for (const track of doc.tracks) {
    for (const clip of track.clips) {
      const asset = clip.asset as { uploadId?: string; source?: { uploadId?: string } };
      if (asset.uploadId) refs.push({ uploadId: asset.uploadId, clipId: clip.id });
      if (asset.source?.uploadId) refs.push({ uploadId: asset.source.uploadId, clipId: clip.id });
    }
  }
  return refs;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** A local path for a stored object: in place on local disk, else downloaded into `dir`. */
async function localCopy(store: BlobStore, key: string, dir: string, name: string): Promise<string> {
  const inPlace = store.localPath(key);
  if (inPlace) return inPlace;
  const target = path.join(dir, name);
  await store.downloadTo(key, target);
  return target;
}

/**
 * The render pipeline of one attempt: resolve the composition's uploads and the caller's
 * fonts to local files, build the ffmpeg plan, run ffmpeg (one process, one filtergraph)
 * with progress, then probe the output, make a poster, hash it and store it under
 * `renders/<renderId>/`. The working directory and any stored object are removed when the
 * attempt fails or is cancelled.
 *
 * @param opts.workRoot - directory for per-attempt working directories.
 * @param opts.stallTimeoutMs - ffmpeg without progress this long fails with `TIMEOUT`.
 */
export function createRenderPipeline(opts: {
  db: Db;
  store: BlobStore;
  workRoot: string;
  log: Logger;
  stallTimeoutMs: number;
}): RenderPipeline {
  const { db, store } = opts;
  return async (render: RenderRow, hooks: PipelineHooks): Promise<RenderOutput> => {
    await mkdir(opts.workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(opts.workRoot, `${render.id}-a${hooks.attempt}-`));
    const outputPrefix = `renders/${render.id}/`;
    let stored = false;
    try {
      const doc = render.composition as unknown as Timeline;
      const options = render.options as unknown as RenderOutputOptions;

      // Preparing: resolve assets.
      const refs = referencedUploads(doc);
      const rows = await findUploadsByIds(db, render.userId, [...new Set(refs.map((r) => r.uploadId))]);
      const byId = new Map<string, UploadRow>(rows.map((u) => [u.id, u]));
      const assets = new Map<string, ResolvedAsset>();
      for (const ref of refs) {
        if (assets.has(ref.uploadId)) continue;
        const upload = byId.get(ref.uploadId);
        if (!upload) {
          throw new RenderError("ASSET_NOT_FOUND", `Upload ${ref.uploadId} no longer exists`, {
            clipId: ref.clipId,
            uploadId: ref.uploadId,
          });
        }
        const file = await localCopy(store, upload.storageKey, workDir, `asset-${upload.id}`);
        const resolved: ResolvedAsset = { path: file, type: upload.type, media: upload.media };
        if (upload.type === "subtitle") resolved.text = await readFile(file, "utf8");
        assets.set(upload.id, resolved);
      }
      const fontRows = (
        await listUploadsPage(db, { userId: render.userId, type: "font", limit: 100, afterId: undefined })
      ).rows;
      const uploadedFonts: UploadedFont[] = [];
      for (const f of fontRows) {
        const file = await localCopy(store, f.storageKey, workDir, `font-${f.id}`);
        for (const family of readFontFamilyNames(await readFile(file))) {
          uploadedFonts.push({ family, path: file, uploadId: f.id });
        }
      }
      hooks.signal.throwIfAborted();

      const outputFile = `output.${options.format}`;
      const plan = buildRenderPlan({
        composition: doc,
        assets,
        output: options,
        outputPath: outputFile,
        uploadedFonts,
      });
      for (const w of plan.warnings) hooks.warn(w);
      await writePlanFiles(plan, workDir);
      opts.log.debug({ renderId: render.id, args: plan.args.join(" ") }, "ffmpeg plan");

      // Rendering: one ffmpeg process.
      await hooks.phase("rendering");
      try {
        await runFfmpeg({
          args: plan.args,
          cwd: workDir,
          durationSec: plan.durationSec,
          signal: hooks.signal,
          stallTimeoutMs: opts.stallTimeoutMs,
          onProgress: (p) =>
            hooks.progress({
              ratio: p.ratio,
              ...(p.speed !== undefined ? { speed: p.speed } : {}),
              ...(p.etaSeconds !== undefined ? { etaSeconds: p.etaSeconds } : {}),
            }),
        });
      } catch (err) {
        if (err instanceof FfmpegError && err.code !== "ABORTED") {
          const tail = err.stderrTail.trim().split("\n").slice(-3).join(" | ");
          throw new RenderError(
            err.code === "TIMEOUT" ? "TIMEOUT" : "FFMPEG_FAILED",
            `${err.message}${tail ? `: ${tail}` : ""}`,
          );
        }
        throw err;
      }

      // Finalizing: probe, poster, hash, store.
      await hooks.phase("finalizing");
      const outPath = path.join(workDir, outputFile);
      const [info, size, sha256] = await Promise.all([
        probeMedia(outPath).catch(() => null),
        stat(outPath).then((s) => s.size),
        sha256File(outPath),
      ]);
      const mime = FORMAT_MIME[options.format];
      const key = `${outputPrefix}output.${options.format}`;
      stored = true;
      try {
        await store.putFile(key, outPath, { contentType: mime });
      } catch (err) {
        throw new RenderError("OUTPUT_UPLOAD_FAILED", `Storing the output failed: ${(err as Error).message}`);
      }
      let posterKey: string | undefined;
      if (plan.output.width && options.format !== "jpg" && options.format !== "png") {
        const poster = await makePoster(outPath, {
          type: "video",
          duration: info?.duration ?? plan.durationSec,
        }).catch(() => null);
        if (poster) {
          const posterFile = path.join(workDir, "poster.jpg");
          await writeFile(posterFile, poster);
          posterKey = `${outputPrefix}poster.jpg`;
          await store.putFile(posterKey, posterFile, { contentType: "image/jpeg" });
        }
      }
      hooks.progress({ ratio: 1 });
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
    } catch (err) {
      if (stored) await store.deletePrefix(outputPrefix).catch(() => {});
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}
