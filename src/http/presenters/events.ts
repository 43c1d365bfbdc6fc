import type { EventPresenters } from "../../domain/webhooks/events.ts";
import { presentAutoedit } from "./autoedits.ts";
import { presentGeneration } from "./generations.ts";
import { presentRender } from "./renders.ts";
import type { SigningDeps } from "./signing.ts";
import { presentTranscription } from "./transcriptions.ts";
import { presentUpload } from "./uploads.ts";

/** The presenters of webhook event payloads: each resource exactly as the API returns it. */
export function eventPresenters(deps: SigningDeps): EventPresenters {
  return {
    render: (row) => presentRender(deps, row),
    generation: (row, outputs) => presentGeneration(deps, row, outputs),
    transcription: presentTranscription,
    upload: (row) => presentUpload(deps, row),
    autoedit: presentAutoedit,
  };
}
