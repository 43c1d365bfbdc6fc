export { compositionDuration, type DurationInput } from "./duration.ts";
export { type NormalizedComposition, normalizeComposition } from "./normalize.ts";
export type { SourceRange } from "./recut.ts";
export {
  pauseCuts,
  REMOVE_PAUSES_DEFAULTS,
  type RemovedAmount,
  type RemovePausesOptions,
  type RemovePausesResult,
  removePauses,
  type TimedWord,
} from "./remove-pauses.ts";
export * from "./schema.ts";
export {
  type LookupTranscription,
  type LookupUpload,
  type TranscriptionInfo,
  type UploadInfo,
  type ValidateOptions,
  validateComposition,
} from "./validate.ts";
