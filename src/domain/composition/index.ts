export { compositionDuration, type DurationInput } from "./duration.ts";
export { type NormalizedComposition, normalizeComposition } from "./normalize.ts";
export * from "./schema.ts";
export {
  type LookupTranscription,
  type LookupUpload,
  type TranscriptionInfo,
  type UploadInfo,
  type ValidateOptions,
  validateComposition,
} from "./validate.ts";
