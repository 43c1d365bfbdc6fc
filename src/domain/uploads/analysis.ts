import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { findUploadAnalysis, saveUploadAnalysis } from "../../db/repositories/upload-analyses.ts";
import { findUpload } from "../../db/repositories/uploads.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { type AnalysisParams, analyzeMedia } from "../../media/analysis/analyze.ts";
import type { MediaAnalysis } from "../../media/analysis/types.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { localCopy } from "../../storage/local-copy.ts";

/** Defaults of the analysis parameters. */
export const ANALYSIS_DEFAULTS: AnalysisParams = {
  sceneThreshold: 0.3,
  silenceThresholdDb: -35,
  silenceMinDuration: 0.5,
};

/** What analysing an upload needs. */
export interface UploadAnalysisDeps {
  db: Db;
  store: BlobStore;
  clock: Clock;
  /** WORK_DIR: scratch space for remote copies and ffmpeg's metadata files. */
  workRoot: string;
}

/**
 * The scene, silence, loudness and peak analysis of an audio or video upload of `userId`,
 * computed on first request (one ffmpeg pass over the file) and cached per set of parameters.
 * @throws AppError 404 for an unknown upload; 400 naming `/id` for an upload that is not audio
 *   or video; MediaProbeError when ffmpeg cannot decode it.
 */
export async function uploadAnalysis(
  deps: UploadAnalysisDeps,
  userId: string,
  uploadId: string,
  params: AnalysisParams,
): Promise<MediaAnalysis> {
  const upload = await findUpload(deps.db, userId, uploadId);
  if (!upload) throw notFound(`Upload ${uploadId}`);
  if ((upload.type !== "video" && upload.type !== "audio") || !upload.media) {
    throw invalidRequest(`Upload ${uploadId} is ${upload.type}; only audio and video can be analysed`, [
      { path: "/id", message: "must be an audio or video upload" },
    ]);
  }
  const key = `scene=${params.sceneThreshold};silence=${params.silenceThresholdDb}dB/${params.silenceMinDuration}s`;
  const cached = await findUploadAnalysis(deps.db, upload.id, key);
  if (cached) return cached;
  await mkdir(deps.workRoot, { recursive: true });
  const workDir = await mkdtemp(path.join(deps.workRoot, `analysis-${upload.id}-`));
  try {
    const input = await localCopy(deps.store, upload.storageKey, workDir, "source");
    const duration = upload.media.duration ?? 0;
    const result = await analyzeMedia(
      input,
      {
        duration,
        hasVideo: upload.type === "video" && upload.media.videoCodec !== null,
        hasAudio: upload.media.hasAudio,
      },
      params,
      { workDir, timeoutMs: 60_000 + duration * 2_000 },
    );
    await saveUploadAnalysis(deps.db, {
      uploadId: upload.id,
      paramsKey: key,
      result,
      createdAt: deps.clock.now(),
    });
    return result;
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}
