import { Type } from "typebox";
import type { PreviewSources, PreviewSpans } from "../../domain/preview/preview-run.ts";

/** The `width` query parameter of the preview routes (frame, video): pixels, default 640. */
export const PreviewWidth = Type.Optional(
  Type.Integer({
    minimum: 16,
    maximum: 1920,
    description: "Width in pixels (height follows the canvas aspect); default 640",
    examples: [640],
  }),
);

/** The `proxy` query parameter of the preview routes (frame, video): default true. */
export const PreviewProxy = Type.Optional(
  Type.Boolean({
    description:
      "`false` decodes every video clip from its original upload (the exact pixels of a render, slower to seek); default `true`: from the uploads' preview proxies where they are ready and have pixels enough",
    examples: [true],
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

/** The OpenAPI description of a preview's `X-Preview-Sources` response header. */
export const previewSourcesHeader = {
  type: "string",
  description:
    "What the video clips' pictures were decoded from: `proxy=N, original=M` (each upload's preview proxy, 640 px wide with a keyframe every 0.5 s, where it is ready and has pixels enough for the clip at this width; else the original). Absent when the frame came from the cache.",
} as const;

/** An `X-Preview-Sources` header value (`proxy=N, original=M`), or undefined without sources (a cached frame). */
export function previewSourcesValue(sources: PreviewSources | undefined): string | undefined {
  return sources ? `proxy=${sources.proxy}, original=${sources.original}` : undefined;
}
