/**
 * A generation's failures are vendor failures ({@link VendorError}, thrown by the fal queue client
 * and by the providers), under the names the generation code uses.
 */
export {
  VendorError as GenerationError,
  type VendorErrorCode as GenerationErrorCode,
} from "../vendors/fal/errors.ts";
