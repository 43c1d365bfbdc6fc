/**
 * Failure codes of a generation (`Generation.error.code`): the vendor failed or answered with an
 * error (`vendor_error`), did not answer or finish in time (`vendor_timeout`), refused the
 * content (`content_rejected`), or the input image could not be read (`input_unavailable`).
 */
export type GenerationErrorCode =
  | "vendor_error"
  | "vendor_timeout"
  | "content_rejected"
  | "input_unavailable";

/** A failed generation step. `retryable`: a later attempt may succeed (network, 5xx, timeouts). */
export class GenerationError extends Error {
  readonly code: GenerationErrorCode;
  readonly retryable: boolean;
  constructor(
    code: GenerationErrorCode,
    message: string,
    opts: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "GenerationError";
    this.code = code;
    this.retryable = opts.retryable ?? false;
  }

  /** The wire form `{ code, message }`. */
  toJSON(): { code: GenerationErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}
