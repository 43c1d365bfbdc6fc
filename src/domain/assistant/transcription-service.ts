/**
 * The assistant's {@link TranscriptionService} on the transcription domain's
 * `transcribeOrReuse`: a failed or cancelled transcription becomes the tool's error.
 */
import { type TranscribeOrReuseDeps, transcribeOrReuse } from "../transcription/reuse.ts";
import { TranscriptionError } from "../transcription/types.ts";
import { ToolError, type TranscriptionService } from "./tool-context.ts";

/** Builds the assistant's transcription service (see the module doc). */
export function createTranscriptionService(deps: TranscribeOrReuseDeps): TranscriptionService {
  return {
    async transcribe(input, onProgress, signal) {
      try {
        return await transcribeOrReuse(deps, input, onProgress, signal);
      } catch (err) {
        if (err instanceof TranscriptionError) throw new ToolError(err.code, err.message);
        throw err;
      }
    },
  };
}
