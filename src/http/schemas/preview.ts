import { Type } from "typebox";
import type { PreviewSpans } from "../../domain/render-jobs/preview-run.ts";

/** The `width` query parameter of the preview routes (frame, video): pixels, default 640. */
export const PreviewWidth = Type.Optional(
  Type.Integer({
    minimum: 16,
    maximum: 1920,
    description: "Width in pixels (height follows the canvas aspect); default 640",
    examples: [640],
  }),
);

/** The OpenAPI description of a preview's `Server-Timing` response header. */
export const serverTimingHeader = {
  type: "string",
  description:
    'Where the time went, milliseconds: `prepare` (sources, fonts, plan) and `ffmpeg`, e.g. `prepare;dur=8.1, ffmpeg;dur=310.4`; `cache;desc="hit"` when no ffmpeg ran for this request',
} as const;

/**
 * A `Server-Timing` header value (W3C Server Timing) for a preview's spans: `prepare;dur=…,
 * ffmpeg;dur=…` in milliseconds, or `cache;desc="hit"` without spans (nothing rendered).
 */
export function serverTiming(spans: PreviewSpans | undefined): string {
  if (!spans) return 'cache;desc="hit"';
  return `prepare;dur=${spans.prepareMs.toFixed(1)}, ffmpeg;dur=${spans.ffmpegMs.toFixed(1)}`;
}
