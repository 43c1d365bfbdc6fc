import {
  ANALYSIS_DEFAULTS,
  type UploadAnalysisDeps,
  uploadAnalysis,
} from "../../../domain/uploads/analysis.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import { UploadParams } from "../../schemas/upload.ts";
import { UploadAnalysis, UploadAnalysisQuery } from "../../schemas/upload-analysis.ts";
import type { KeyApp } from "../../types.ts";

/** `GET /api/v1/uploads/{id}/analysis`: scene cuts, silences, loudness and waveform peaks. */
export function registerUploadAnalysisRoute(app: KeyApp, deps: UploadAnalysisDeps): void {
  app.get(
    "/api/v1/uploads/:id/analysis",
    {
      schema: {
        operationId: "getUploadAnalysis",
        summary: "Scene cuts, silences, loudness and waveform peaks of an upload",
        description:
          "Measured with ffmpeg on the first request for a set of parameters (one pass over the file), then cached. Scene cuts: frames whose `select` scene score exceeds `sceneThreshold`. Silences: `silencedetect` below `silenceThreshold` dBFS for at least `silenceMinDuration` s. Loudness: EBU R128 (`ebur128`). Peaks: `{ rate, values }`, `rate` values per second, each the peak amplitude 0..1 of its bucket. Audio-only uploads have `scenes: null`; video without sound has null audio parts.",
        tags: ["Uploads"],
        params: UploadParams,
        querystring: UploadAnalysisQuery,
        response: responses({ 200: UploadAnalysis }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request) => {
      const auth = request.auth;
      const q = request.query;
      const result = await uploadAnalysis(deps, auth.userId, request.params.id, {
        sceneThreshold: q.sceneThreshold ?? ANALYSIS_DEFAULTS.sceneThreshold,
        silenceThresholdDb: q.silenceThreshold ?? ANALYSIS_DEFAULTS.silenceThresholdDb,
        silenceMinDuration: q.silenceMinDuration ?? ANALYSIS_DEFAULTS.silenceMinDuration,
      });
      return { uploadId: request.params.id, ...result };
    },
  );
}
