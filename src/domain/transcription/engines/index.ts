import type { TranscriptionConfig } from "../../../config.ts";
import type { Transcriber } from "../types.ts";
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
  return { active: byProvider[config.engine.split(":")[0] ?? "offline"] ?? offline, byProvider };
}
