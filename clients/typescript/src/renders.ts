import type { Client } from "openapi-fetch";
import { CutroomError, RenderFailedError } from "./errors.js";
import type { paths } from "./schema.js";
import { sleep } from "./sleep.js";
import type { CompositionInput, Render, RenderOutputOptions } from "./types.js";

/** Options of {@link renderAndWait}. */
export interface RenderAndWaitOptions {
  /** Aborts the wait (the render keeps going on the server; cancel it with DELETE /api/render/{jobId}). */
  signal?: AbortSignal;
  /** Called with the render after each poll while it is not terminal, and once at the end. */
  onProgress?: (render: Render) => void;
  /** Sent as `Idempotency-Key`: repeating the call with the same key and body never renders twice. */
  idempotencyKey?: string;
  /** Poll interval when the server sends no `Retry-After`, milliseconds (default 1000). */
  defaultPollMs?: number;
}

const TERMINAL = new Set<Render["status"]>(["succeeded", "failed", "cancelled"]);

/**
 * The delay a `Retry-After` header asks for (RFC 9110 §10.2.3: delay-seconds or an
 * HTTP-date), in milliseconds; `fallbackMs` when the header is absent or unreadable.
 */
export function retryAfterMs(header: string | null, fallbackMs: number, now = Date.now()): number {
  if (header === null) return fallbackMs;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? fallbackMs : Math.max(0, at - now);
}

/**
 * Starts a render of a stored composition (by id) or of one sent inline (an object: rendered
 * in one call, not stored as a composition) and polls it at the `Retry-After` interval the server gives
 * until it is terminal. A 429 or 503 while polling waits its `Retry-After` and polls again.
 * @returns the succeeded render; `render.output.url` is its signed download URL.
 * @throws {RenderFailedError} when the render fails or is cancelled.
 * @throws {CutroomError} when the API refuses a request.
 * @throws the signal's reason when `signal` aborts.
 */
export async function renderAndWait(
  api: Client<paths>,
  composition: string | CompositionInput,
  output: RenderOutputOptions = { format: "mp4" },
  opts: RenderAndWaitOptions = {},
): Promise<Render> {
  const { signal } = opts;
  const fallback = opts.defaultPollMs ?? 1000;
  // A composition object goes inline: the server validates it as a create would and keeps a
  // frozen copy with the render only (its compositionId is null).
  const body =
    typeof composition === "string" ? { compositionId: composition, output } : { composition, output };
  const started = await api.POST("/api/render", {
    body,
    params: { header: opts.idempotencyKey ? { "idempotency-key": opts.idempotencyKey } : {} },
    ...(signal ? { signal } : {}),
  });
  if (!started.data) throw CutroomError.from(started.response, started.error);
  let render = started.data;
  let wait = retryAfterMs(started.response.headers.get("retry-after"), fallback);
  while (!TERMINAL.has(render.status)) {
    opts.onProgress?.(render);
    await sleep(wait, signal);
    const polled = await api.GET("/api/render/{jobId}", {
      params: { path: { jobId: render.id } },
      ...(signal ? { signal } : {}),
    });
    wait = retryAfterMs(polled.response.headers.get("retry-after"), fallback);
    if (polled.data) render = polled.data;
    else if (polled.response.status !== 429 && polled.response.status !== 503) {
      throw CutroomError.from(polled.response, polled.error);
    }
  }
  opts.onProgress?.(render);
  if (render.status !== "succeeded") throw new RenderFailedError(render);
  return render;
}
