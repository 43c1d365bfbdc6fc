export { compositionDuration, type DurationInput } from "./duration.ts";
export { type NormalizedComposition, normalizeComposition } from "./normalize.ts";
export * from "./schema.ts";
export {
  type LookupUpload,
  type UploadInfo,
  type ValidateOptions,
  validateComposition,
} from "./validate.ts";
