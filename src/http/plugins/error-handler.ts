import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { quotaState } from "../../domain/quota/daily-quota.ts";
import { AppError, type ErrorCode, type ErrorDetail } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { setQuotaHeaders } from "./auth.ts";
import { ClientGoneError } from "./request-signal.ts";

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "insufficient_scope",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  503: "unavailable",
};

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The error message of a request part that failed validation, by Fastify's part name. */
export const CONTEXT_LABEL: Record<string, string> = {
  body: "The request body is invalid",
  querystring: "The query string is invalid",
  params: "The path parameters are invalid",
  headers: "The request headers are invalid",
};

/** Ajv issues → JSON-Pointer details (missing and unknown properties point at the property). */
function validationDetails(issues: ValidationIssue[]): ErrorDetail[] {
  return issues.map((v) => {
    let path = v.instancePath || "";
    if (v.keyword === "required" && typeof v.params.missingProperty === "string") {
      path += `/${v.params.missingProperty}`;
    } else if (v.keyword === "additionalProperties" && typeof v.params.additionalProperty === "string") {
      path += `/${v.params.additionalProperty}`;
    }
    let message = v.message ?? "is invalid";
    if (v.keyword === "enum" && Array.isArray(v.params.allowedValues)) {
      message = `must be one of ${v.params.allowedValues.map((a) => JSON.stringify(a)).join(", ")}`;
    }
    return { path: path || "/", message };
  });
}

/**
 * What the log may say about an unexpected error. A failed SQL statement (Drizzle's
 * `DrizzleQueryError`, which carries `query` and `params`) is reduced to its statement text,
 * SQLSTATE and class: its message, its stack's first line and the database's own message can
 * hold the request's data, which must never reach the log.
 */
export function loggableError(error: Error): Error | Record<string, unknown> {
  if (!("params" in error) || !("query" in error)) return error;
  const cause = error.cause as { code?: unknown; name?: unknown } | undefined;
  return {
    type: error.name,
    message: "A database statement failed",
    query: String(error.query),
    sqlState: typeof cause?.code === "string" ? cause.code : undefined,
    cause: typeof cause?.name === "string" ? cause.name : undefined,
  };
}

/**
 * Fastify's `frameworkErrors`: errors raised while routing, before any hook runs (a path
 * that is not valid percent-encoded UTF-8, a path parameter over the router's 100-character
 * limit), answered with the one error body, a request id and the quota headers. The path is
 * never echoed.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header("X-Request-Id", request.id);
  // Refused before any hook: not counted, so the headers of a call no quota applies to.
  setQuotaHeaders(reply, quotaState(null, null, new Date()));
  if (error.code === "FST_ERR_BAD_URL") {
    return sendError(request, reply, {
      status: 400,
      code: "invalid_request",
      message: "The URL path is not valid percent-encoded UTF-8",
    });
  }
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return sendError(request, reply, {
      status: 400,
      code: "invalid_request",
      message: "A path parameter is longer than the 100 characters any id has",
    });
  }
  return handleError(error, request, reply);
}

/** Sends the standard error body (docs/conventions.md, Errors) for `status`/`code`. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: {
    status: number;
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
    extra?: Record<string, unknown>;
  },
): FastifyReply {
  const body = {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details && err.details.length > 0 ? { details: err.details } : {}),
      ...(err.extra ?? {}),
      requestId: request.id,
    },
  };
  return reply.code(err.status).type("application/json; charset=utf-8").send(body);
}

/**
 * The one global error renderer: AppErrors keep their code; Fastify's own errors
 * (validation, content type, body size, JSON syntax) are mapped to wire codes; anything
 * else becomes a 500 `internal_error` whose body carries no internals (logged instead). Work
 * stopped because the client went away (`ClientGoneError`, see `request.signal`) is logged at
 * info level only (its 500 reaches nobody).
 */
export function handleError(
  error: FastifyError | AppError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof AppError) {
    if (error.headers) reply.headers(error.headers);
    return sendError(request, reply, {
      status: error.status,
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(error.extra ? { extra: error.extra } : {}),
    });
  }
  const fe = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fe.validation) {
    return sendError(request, reply, {
      status: 400,
      code: "invalid_request",
      message: CONTEXT_LABEL[fe.validationContext ?? "body"] ?? "The request is invalid",
      details: validationDetails(fe.validation),
    });
  }
  const status = typeof fe.statusCode === "number" ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? "invalid_request";
    let message = fe.message;
    if (fe.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error instanceof SyntaxError) {
      message = `The request body is not valid JSON: ${fe.message}`;
    } else if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      message = "The request body is larger than this endpoint accepts";
    } else if (fe.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      message = `Unsupported Content-Type ${JSON.stringify(request.headers["content-type"] ?? "")}; send application/json`;
    }
    return sendError(request, reply, { status, code, message });
  }
  if (error instanceof ClientGoneError) {
    // Work stopped on `request.signal`: nobody reads this answer, and the server did no wrong.
    request.log.info("the client went away before the response was complete");
    return sendError(request, reply, {
      status: 500,
      code: "internal_error",
      message: "Internal server error",
    });
  }
  request.log.error({ err: loggableError(error) }, "unhandled error");
  if (isDiskFull(error)) {
    return sendError(request, reply, {
      status: 507,
      code: "insufficient_storage",
      message: "The server is out of disk space, so nothing of this request was saved; try again later",
    });
  }
  if (status === 503) {
    return sendError(request, reply, {
      status: 503,
      code: "unavailable",
      message: "The service is unavailable; retry shortly",
    });
  }
  return sendError(request, reply, { status: 500, code: "internal_error", message: "Internal server error" });
}

/** SQLSTATE `disk_full` (PostgreSQL class 53, insufficient resources). */
const PG_DISK_FULL = "53100";

/**
 * Whether `error` or one of its causes says a disk is full: the file system's `ENOSPC` or
 * `EDQUOT` (the blob store, scratch files) or the database's `disk_full` SQLSTATE (53100).
 */
export function isDiskFull(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === PG_DISK_FULL) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Status, code and message for a request Node's HTTP parser refused, by the parser's error code. */
function clientErrorAnswer(code: string | undefined): { status: number; code: ErrorCode; message: string } {
  if (code === "HPE_HEADER_OVERFLOW")
    return {
      status: 431,
      code: "headers_too_large",
      message: "The request headers are larger than the server accepts (16 KiB in all)",
    };
  return { status: 400, code: "invalid_request", message: "The request is not valid HTTP/1.1" };
}

const REASON: Record<number, string> = { 400: "Bad Request", 431: "Request Header Fields Too Large" };

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it
 * (headers over `--max-http-header-size`, malformed HTTP) gets the one error body and a fresh
 * `X-Request-Id`, and the connection is closed. Resets and timed-out sockets are only closed.
 */
export function handleClientError(err: Error & { code?: string }, socket: Socket): void {
  if (socket.destroyed) return;
  if (err.code === "ECONNRESET" || err.code === "ERR_HTTP_REQUEST_TIMEOUT" || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer = clientErrorAnswer(err.code);
  const requestId = newId("req");
  const body = JSON.stringify({ error: { code: answer.code, message: answer.message, requestId } });
  socket.end(
    `HTTP/1.1 ${answer.status} ${REASON[answer.status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
