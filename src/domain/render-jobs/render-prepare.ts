import type { Db } from "../../db/client.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { Timeline } from "../composition/schema.ts";
import {
  type BuildRenderPlanInput,
  buildRenderPlan,
  type EncoderVariant,
  type RenderPlan,
} from "../render/index.ts";
import type { RenderOutputOptions, RenderWarning, ResolvedAsset, UploadedFont } from "../render/types.ts";
import { type AssetRef, type RemoteAssetLimits, resolveRenderAssets } from "./render-assets.ts";
import { writePlanFiles } from "./write-plan-files.ts";

/** A render ready for ffmpeg: its plan, its files written into the work directory. */
export interface PreparedRender {
  plan: RenderPlan;
  /** What `plan` was built from (to build it again, e.g. with a measured loudness gain). */
  planInput: BuildRenderPlanInput;
  /** The composition's resolved sources by asset key (`uploadId`, else `src`). */
  assets: ReadonlyMap<string, ResolvedAsset>;
  /** Which clip (and upload) each local source file is, to name the clip when ffmpeg fails. */
  refsByPath: Map<string, AssetRef>;
  /** The plan's warnings and the written files' (`GLYPH_MISSING`), in that order. */
  warnings: RenderWarning[];
  /** The output file, relative to the work directory (or the `output` asked for). */
  outputFile: string;
  /** The caller's fonts the plan may use (for the plans of a smart render's pieces). */
  fonts: UploadedFont[];
}

/**
 * Everything a render does before ffmpeg starts, shared by the render job and the preflight
 * (`POST /api/render` with `dryRun`): resolve the composition's uploads, remote (`src`) assets
 * and the caller's fonts to local files (`resolveRenderAssets`: missing uploads, refused or
 * failed downloads, remote files that are not media), build the ffmpeg plan (`buildRenderPlan`:
 * fonts, range; warnings such as `TRANSITION_HANDLE_MISSING`, `SOURCE_TOO_SHORT`) and write its
 * files into `workDir` (`writePlanFiles`: `GLYPH_MISSING` warnings).
 *
 * @param input.workDir - the attempt's (or preflight's) working directory; the caller removes it.
 * @param input.decoderThreads - `-threads` of each video input's decoder.
 * @param input.filterThreads - `-filter_complex_threads` of the filter graph.
 * @param input.posterPath - where the run also writes the output's poster (relative to
 *   `workDir`; video formats that move only, see `BuildRenderPlanInput.posterPath`).
 * @param input.output - where ffmpeg writes (default `output.<format>` in `workDir`; `pipe:3`
 *   to stream it, see `runFfmpeg`'s `onOutputPipe`).
 * @param input.variant - the encoder variant (`buildRenderPlan`'s), e.g. a fragmented mp4.
 * @param input.proxies - let video clips read their uploads' preview proxies where these have
 *   pixels enough (previews only: a render never sets it).
 * @throws RenderError the first problem, with the other source problems in its `more`
 *   (`ASSET_NOT_FOUND`, `ASSET_FETCH_FAILED`, `ASSET_UNSUPPORTED`, `FONT_NOT_FOUND`,
 *   `INVALID_COMPOSITION`); aborts with `signal`.
 */
export async function prepareRender(input: {
  db: Db;
  store: BlobStore;
  userId: string;
  composition: Timeline;
  options: RenderOutputOptions;
  workDir: string;
  remote: RemoteAssetLimits;
  signal: AbortSignal;
  decoderThreads?: number;
  filterThreads?: number;
  posterPath?: string;
  output?: string;
  variant?: EncoderVariant;
  proxies?: boolean;
}): Promise<PreparedRender> {
  const { assets, fonts, refsByPath } = await resolveRenderAssets({
    db: input.db,
    store: input.store,
    userId: input.userId,
    doc: input.composition,
    workDir: input.workDir,
    remote: input.remote,
    signal: input.signal,
    ...(input.proxies ? { proxies: true } : {}),
  });
  input.signal.throwIfAborted();
  const outputFile = input.output ?? `output.${input.options.format}`;
  const planInput: BuildRenderPlanInput = {
    composition: input.composition,
    assets,
    output: input.options,
    outputPath: outputFile,
    uploadedFonts: fonts,
    ...(input.decoderThreads ? { decoderThreads: input.decoderThreads } : {}),
    ...(input.filterThreads ? { filterThreads: input.filterThreads } : {}),
    ...(input.posterPath ? { posterPath: input.posterPath } : {}),
    ...(input.variant ? { variant: input.variant } : {}),
  };
  const plan = buildRenderPlan(planInput);
  const written = await writePlanFiles(plan, input.workDir);
  return {
    plan,
    planInput,
    assets,
    refsByPath,
    warnings: [...plan.warnings, ...written],
    outputFile,
    fonts,
  };
}
