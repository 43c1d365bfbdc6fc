import { type AnalysisRunnerOptions, createAnalysisRunner } from "../../../domain/analysis/runner.ts";
import {
  BrollRequest,
  BrollResponse,
  ChaptersRequest,
  ChaptersResponse,
  SummaryRequest,
  SummaryResponse,
} from "../../schemas/analysis.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import type { KeyApp } from "../../types.ts";

/** Bodies larger than this are a 413 (a 3-hour transcript is about 0.5 MB). */
const ANALYSIS_BODY_LIMIT = 2 * 1024 * 1024;
const ERRORS = [...AUTH_ERRORS, 413, 415, 503];

/**
 * The analysis helpers (docs/conventions.md, Resources): thin routes over the pure, deterministic
 * functions of `src/domain/analysis` — no vendor or network call, read scope is enough.
 * Large inputs run on worker threads with a time budget (see `createAnalysisRunner`).
 */
export function registerAnalysisRoutes(app: KeyApp, runnerOptions: AnalysisRunnerOptions): void {
  const runner = createAnalysisRunner(runnerOptions);
  app.addHook("onClose", () => runner.close());
  app.post(
    "/api/v1/chapters/detect",
    {
      bodyLimit: ANALYSIS_BODY_LIMIT,
      schema: {
        operationId: "detectChapters",
        summary: "Detect chapters in a transcript",
        description:
          "Topic segmentation by lexical cohesion with timing evidence (pauses, speaker changes). Chapters are contiguous, start at 0 and end at `duration`; titles are distinctive key phrases.",
        tags: ["Analysis"],
        body: ChaptersRequest,
        response: responses({ 200: ChaptersResponse }, ERRORS),
      },
    },
    async (request) => runner.run("chapters", request.body),
  );

  app.post(
    "/api/v1/clips/summarize",
    {
      bodyLimit: ANALYSIS_BODY_LIMIT,
      schema: {
        operationId: "summarizeClip",
        summary: "Summarize a clip in one line with keywords",
        tags: ["Analysis"],
        body: SummaryRequest,
        response: responses({ 200: SummaryResponse }, ERRORS),
      },
    },
    async (request) => runner.run("summary", request.body),
  );

  app.post(
    "/api/v1/broll/suggest",
    {
      bodyLimit: ANALYSIS_BODY_LIMIT,
      schema: {
        operationId: "suggestBroll",
        summary: "Suggest where B-roll would help",
        description:
          "Scores stretches of talking for visual concreteness (nouns, named entities, numbers, lists, long runs without a change) and places inserts of `windowSec` at least `minGapSec` apart, never overlapping, within the subtitles' span.",
        tags: ["Analysis"],
        body: BrollRequest,
        response: responses({ 200: BrollResponse }, ERRORS),
      },
    },
    async (request) => runner.run("broll", request.body),
  );
}
