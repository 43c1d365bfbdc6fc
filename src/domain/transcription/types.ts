/**
 * The transcription result and the one interface every speech-to-text engine implements.
 * Times are seconds from the start of the media.
 */

/** One recognised word. */
export interface TranscriptWord {
  /** Start, seconds. */
  start: number;
  /** End, seconds (≥ `start`). */
  end: number;
  text: string;
  /** The engine's confidence 0..1 (posterior probability); null when the engine gives none. */
  confidence: number | null;
}

/** One timed stretch of speech (an utterance or a sentence). */
export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  /** The segment's words; empty when the engine gives no word times. */
  words: TranscriptWord[];
}

/** Which engine made a transcript. */
export interface TranscriptionEngineInfo {
  /** `offline` (PocketSphinx), `fal` or `openai-compatible`. */
  provider: "offline" | "fal" | "openai-compatible";
  /** The model (e.g. `pocketsphinx-en-us`, `whisper-1`). */
  model: string;
  /** True when nothing leaves this server. */
  offline: boolean;
}

/** A finished transcript. */
export interface TranscriptResult {
  /** ISO 639-1 code of the spoken language. */
  language: string;
  /** Length of the transcribed audio, seconds. */
  duration: number;
  segments: TranscriptSegment[];
}

/** What an engine is given: 16 kHz mono 16-bit WAV on local disk. */
export interface TranscribeInput {
  /** Absolute path of a 16 kHz mono PCM WAV file. */
  audioPath: string;
  /** Its length, seconds. */
  duration: number;
  /** ISO 639-1 language, or undefined to let the engine detect it. */
  language: string | undefined;
  /** Scratch directory of this attempt (removed by the caller). */
  workDir: string;
  /** Aborted when the transcription is cancelled: stop and throw. */
  signal: AbortSignal;
  /** Reports the share of the audio done, 0..1. */
  progress(ratio: number): void;
  /** A vendor request this transcription already submitted (resume it instead of paying twice). */
  vendorRequestId: string | null;
  /** Records the vendor's request id before waiting on it. */
  onVendorRequest(requestId: string): Promise<void>;
}

/**
 * A speech-to-text engine. Implementations: PocketSphinx (offline), fal.ai Whisper, and any
 * OpenAI-compatible `/v1/audio/transcriptions` server.
 */
export interface Transcriber {
  readonly info: TranscriptionEngineInfo;
  /** `draft` for the offline engine (about 35 % word error rate), `standard` otherwise. */
  readonly quality: "draft" | "standard";
  /** Languages it accepts (ISO 639-1), or null for any. */
  readonly languages: readonly string[] | null;
  /** Longest audio one request may carry, seconds; longer audio is cut into overlapping chunks. */
  readonly maxChunkSeconds: number;
  /** Chunks transcribed at once (the offline engine: one per CPU core). */
  readonly concurrency: number;
  /**
   * Transcribes the audio.
   * @throws TranscriptionError on failure (typed: `retryable` says whether another attempt may help).
   */
  transcribe(input: TranscribeInput): Promise<TranscriptResult>;
  /**
   * Cancels a request this engine submitted to its vendor's queue (engines with one: fal);
   * resolves once the vendor has answered.
   * @throws when the vendor cannot be reached or refuses (callers treat it as best effort).
   */
  cancel?(requestId: string): Promise<void>;
}

/** A typed transcription failure, stored on the transcription as `error`. */
export class TranscriptionError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  constructor(code: string, message: string, opts: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = "TranscriptionError";
    this.code = code;
    this.retryable = opts.retryable ?? false;
  }
  toJSON(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }
}
