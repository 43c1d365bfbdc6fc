/**
 * Text analysis helpers of the API (docs/conventions.md, Resources): chapter detection, clip summary and B-roll
 * suggestions. Pure, deterministic functions over transcripts; no I/O, no clock.
 */
export {
  type BrollSuggestion,
  type SuggestBrollInput,
  type SuggestBrollOutput,
  suggestBroll,
} from "./broll.ts";
export {
  type Chapter,
  type DetectChaptersInput,
  type DetectChaptersOutput,
  defaultMaxChapters,
  detectChapters,
} from "./chapters.ts";
export { pk, windowDiff } from "./segmentation-metrics.ts";
export {
  MAX_SUMMARY_CHARS,
  type SummarizeClipInput,
  type SummarizeClipOutput,
  summarizeClip,
} from "./summary.ts";
export { MAX_SEGMENTS, type Segment, type Transcript } from "./transcript.ts";
