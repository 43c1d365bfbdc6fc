/** One entry of an error's `details`: a JSON Pointer (RFC 6901) into the request and what is wrong there. */
export interface ErrorDetail {
  path: string;
  message: string;
  /** The clip the problem is about, when it is about one (messages name it by file name and time). */
  clipId?: string;
  /** The upload the problem is about, when it is about one. */
  uploadId?: string;
}

/** The error codes of the wire contract (docs/conventions.md, Errors) and the HTTP status each maps to. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  version_conflict: 409,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
  insufficient_storage: 507,
} as const;

/** A wire error code, e.g. `"not_found"`. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * An error that reaches the client as `{ error: { code, message, details?, requestId } }`
 * with the status of its code. Domain code throws these through the factories below;
 * the global error handler renders them. Anything else thrown becomes a 500 with no detail.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Extra top-level fields merged into the error object (e.g. `currentVersion`). */
  readonly extra: Record<string, unknown> | undefined;
  /** Response headers to add (e.g. `Retry-After`). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = opts.details;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }
}

/** 400 `invalid_request`; `details` lists JSON Pointer paths of the offending fields. */
export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError("invalid_request", message, details ? { details } : {});
/** 404 `not_found` for `what` (e.g. "Project prj_…"); also used for other owners' resources. */
export const notFound = (what: string) => new AppError("not_found", `${what} was not found`);
/** 409 `conflict`. */
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new AppError("conflict", message, extra ? { extra } : {});
/** 413 `payload_too_large`. */
export const payloadTooLarge = (message: string) => new AppError("payload_too_large", message);
/** 415 `unsupported_media_type`. */
export const unsupportedMediaType = (message: string) => new AppError("unsupported_media_type", message);

/**
 * Runs `work`; a 400 `invalid_request` it throws is thrown again with each detail rewritten by
 * `rewrite.detail` (e.g. pointed into the part of the request the checked document came from) and
 * the message by `rewrite.message` when given. Any other error passes through unchanged.
 *
 * @returns what `work` resolves with.
 * @throws AppError 400 `invalid_request` (rewritten), or whatever else `work` throws.
 */
export async function rewriteInvalidRequest<T>(
  work: () => Promise<T>,
  rewrite: { detail: (detail: ErrorDetail) => ErrorDetail; message?: (message: string) => string },
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "invalid_request") throw err;
    throw invalidRequest(
      rewrite.message?.(err.message) ?? err.message,
      (err.details ?? []).map(rewrite.detail),
    );
  }
}
