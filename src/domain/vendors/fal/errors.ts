/**
 * Failure codes of a vendor call (and of a generation, `Generation.error.code`): the vendor failed
 * or answered with an error (`vendor_error`), did not answer or finish in time (`vendor_timeout`),
 * refused the content (`content_rejected`), or the input sent to it could not be read
 * (`input_unavailable`).
 */
export type VendorErrorCode = "vendor_error" | "vendor_timeout" | "content_rejected" | "input_unavailable";

/**
 * A failed vendor call, as the fal queue client (`queue.ts`) and generation's providers
 * throw it. `retryable`: a later attempt may succeed (network, 5xx, timeouts).
 */
export class VendorError extends Error {
  readonly code: VendorErrorCode;
  readonly retryable: boolean;
  constructor(code: VendorErrorCode, message: string, opts: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "VendorError";
    this.code = code;
    this.retryable = opts.retryable ?? false;
  }

  /** The wire form `{ code, message }`. */
  toJSON(): { code: VendorErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}
