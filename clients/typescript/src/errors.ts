import type { ErrorBody, Render } from "./types.js";

/** An error answer of the API (status ≥ 400), with its stable `code` and request id. */
export class CutroomError extends Error {
  override readonly name = "CutroomError";
  /** HTTP status. */
  readonly status: number;
  /** Stable machine-readable code, e.g. `not_found`, `version_conflict`. */
  readonly code: string;
  /** The request id to quote when reporting a problem. */
  readonly requestId: string;
  /** The whole error object, with extras such as `details`, `currentVersion` or `renderId`. */
  readonly error: ErrorBody["error"] | undefined;

  constructor(status: number, body: unknown, requestId: string | null) {
    const error = isErrorBody(body) ? body.error : undefined;
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? "http_error";
    this.requestId = error?.requestId ?? requestId ?? "";
    this.error = error;
  }

  /** Builds the error from an openapi-fetch result's `response` and `error`. */
  static from(response: Response, body: unknown): CutroomError {
    return new CutroomError(response.status, body, response.headers.get("x-request-id"));
  }
}

/** A render that ended `failed` or `cancelled` while `renderAndWait` waited for it. */
export class RenderFailedError extends Error {
  override readonly name = "RenderFailedError";
  /** The render in its terminal state; `render.error` says why when it failed. */
  readonly render: Render;

  constructor(render: Render) {
    super(`Render ${render.id} ${render.status}${render.error ? `: ${render.error.message}` : ""}`);
    this.render = render;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== "object" || body === null || !("error" in body)) return false;
  const error = body.error;
  return typeof error === "object" && error !== null && "code" in error && "message" in error;
}
