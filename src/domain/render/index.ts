export { type AssDocument, assColor, assTime, buildAss } from "./ass.ts";
export { atempoChain, buildAudioMix, duckingRatio, SAMPLE_RATE } from "./audio-branch.ts";
export { type EncoderVariant, encoderArgs, FORMAT_MIME, FORMAT_TRAITS } from "./outputs.ts";
export {
  type BuildRenderPlanInput,
  buildRenderPlan,
  outputSize,
  type PlanFile,
  type PlanFont,
  type PlanInput,
  type RenderPlan,
} from "./plan.ts";
export { type ResolvedFont, resolveFont } from "./resolve-font.ts";
export {
  AUDIO_PART,
  type BuildSplitRenderPlanInput,
  buildSplitRenderPlan,
  CONCAT_LIST,
  type FrameRange,
  planSegments,
  planSplitSegments,
  type SegmentPlan,
  type SplitRenderPlan,
} from "./segments.ts";
export { parseSubtitles } from "./subtitle-parse.ts";
export * from "./timeline.ts";
export { XFADE_NAMES } from "./transitions.ts";
export * from "./types.ts";
