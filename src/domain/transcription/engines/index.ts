import type { TranscriptionConfig } from "../../../config.ts";
import type { Transcriber } from "../types.ts";
import { createFalTranscriber } from "./fal.ts";
import { createOpenAiCompatibleTranscriber } from "./openai-compatible.ts";
import { createPocketsphinxTranscriber } from "./pocketsphinx.ts";

/** The configured engine (TRANSCRIPTION_ENGINE) and every engine a worker can run, by provider. */
export interface TranscriberSet {
  /** The engine new transcriptions use. */
  active: Transcriber;
  /** Engines by provider name (the offline one is always there). */
  byProvider: Partial<Record<string, Transcriber>>;
}

/** Builds the engines the configuration names. */
export function createTranscribers(config: TranscriptionConfig): TranscriberSet {
  const offline = createPocketsphinxTranscriber();
  const byProvider: Partial<Record<string, Transcriber>> = { offline };
  const [name, model] = splitEngine(config.engine);
  if (name === "openai-compatible" && model && config.baseUrl) {
    byProvider["openai-compatible"] = createOpenAiCompatibleTranscriber({
      model,
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
    });
  }
  if (name === "fal" && config.apiKey) {
    byProvider.fal = createFalTranscriber({ apiKey: config.apiKey, queueUrl: config.baseUrl });
  }
  return { active: byProvider[name] ?? offline, byProvider };
}

/** `openai-compatible:whisper-1` → [`openai-compatible`, `whisper-1`]; `offline` → [`offline`, undefined]. */
function splitEngine(engine: string): [string, string | undefined] {
  const colon = engine.indexOf(":");
  return colon < 0 ? [engine, undefined] : [engine.slice(0, colon), engine.slice(colon + 1)];
}
