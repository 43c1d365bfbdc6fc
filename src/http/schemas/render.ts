import { Type } from "typebox";
import { RENDER_STATUSES } from "../../db/schema/renders.ts";
import { CompositionWriteSchema } from "../../domain/composition/schema.ts";
import { PLACEHOLDER_NAME } from "../../domain/composition/template.ts";
import { OUTPUT_FORMATS, RENDER_QUALITIES } from "../../domain/render/types.ts";
import { Timestamp } from "./common.ts";
import { COMPOSITION_EXAMPLE } from "./composition.ts";
import { CallbackUrl } from "./webhook.ts";

/** Output options of `POST /api/render` (docs/composition.md, Renders). */
export const RenderOutputOptions = Type.Object(
  {
    format: Type.Union(
      OUTPUT_FORMATS.map((f) => Type.Literal(f)),
      {
        default: "mp4",
        description:
          "mp4 = H.264/AAC; webm = VP9/Opus; gif palette-based; mp3/wav audio only; jpg/png one frame at frameAt",
      },
    ),
    width: Type.Optional(
      Type.Integer({
        minimum: 16,
        maximum: 4096,
        multipleOf: 2,
        description: "Pixels; default canvas width (gif: longer side at most 480 px)",
      }),
    ),
    height: Type.Optional(
      Type.Integer({
        minimum: 16,
        maximum: 4096,
        multipleOf: 2,
        description: "Pixels; default canvas height (gif: longer side at most 480 px)",
      }),
    ),
    fps: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 60, description: "Default canvas fps (gif: at most 15)" }),
    ),
    quality: Type.Optional(
      Type.Union(
        RENDER_QUALITIES.map((q) => Type.Literal(q)),
        { default: "standard" },
      ),
    ),
    range: Type.Optional(
      Type.Object(
        {
          start: Type.Number({ minimum: 0, description: "Seconds into the timeline" }),
          duration: Type.Number({ exclusiveMinimum: 0, description: "Seconds" }),
        },
        { additionalProperties: false },
      ),
    ),
    frameAt: Type.Optional(
      Type.Number({ minimum: 0, description: "Seconds; the frame of a jpg/png output" }),
    ),
  },
  { additionalProperties: false, title: "RenderOutputOptions" },
);

/** Template values of a render: placeholder name → text (numbers are written as JSON writes them). */
export const MergeValuesSchema = Type.Record(
  Type.String({ pattern: `^${PLACEHOLDER_NAME}$` }),
  Type.Union([Type.String({ maxLength: 10_000 }), Type.Number()]),
  {
    maxProperties: 200,
    description:
      "Values of the composition's {{placeholders}} (text and caption text, src, colours). Every placeholder needs a value and every name must be used; without merge a composition with placeholders cannot be rendered.",
  },
);

/** `POST /api/render` body: exactly one of `compositionId` and `composition`. */
export const RenderCreate = Type.Object(
  {
    compositionId: Type.Optional(
      Type.String({ maxLength: 64, description: "A stored composition (or send `composition`)" }),
    ),
    compositionVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Render only if the stored composition is still at this version (else 409)",
      }),
    ),
    composition: Type.Optional(
      Type.Object(CompositionWriteSchema.properties, {
        additionalProperties: false,
        description:
          "An inline composition (or send `compositionId`), validated as `POST /api/compositions` validates; it is not stored as a composition (the render's `compositionId` is null)",
      }),
    ),
    merge: Type.Optional(MergeValuesSchema),
    output: Type.Optional(RenderOutputOptions),
    callbackUrl: CallbackUrl,
  },
  {
    additionalProperties: false,
    title: "RenderCreate",
    examples: [
      { compositionId: "cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C", output: { format: "mp4", quality: "standard" } },
      {
        composition: COMPOSITION_EXAMPLE,
        output: { format: "mp4", quality: "draft" },
      },
      {
        compositionId: "cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
        merge: { firstName: "Ada", brand: "#e63946", video: "https://cdn.example.com/ada.mp4" },
        output: { format: "mp4" },
      },
    ],
  },
);

/** The Render resource. */
export const Render = Type.Object(
  {
    id: Type.String({ examples: ["rnd_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    compositionId: Type.Union([Type.Null(), Type.String()], {
      description: "The stored composition rendered; null for an inline composition",
    }),
    compositionVersion: Type.Union([Type.Null(), Type.Integer()], {
      description: "Its version when the render started; null for an inline composition",
    }),
    status: Type.Union(RENDER_STATUSES.map((s) => Type.Literal(s))),
    progress: Type.Object({
      ratio: Type.Number({ minimum: 0, maximum: 1, description: "0..1; never goes backwards" }),
      phase: Type.Union(
        ["queued", "preparing", "rendering", "finalizing", "done"].map((p) => Type.Literal(p)),
      ),
      speed: Type.Optional(Type.Number({ description: "Encoding speed, multiple of real time" })),
      etaSeconds: Type.Optional(Type.Number()),
      updatedAt: Timestamp(),
    }),
    attempt: Type.Integer({ description: "Worker attempt number (a retried render shows its new attempt)" }),
    output: Type.Union([
      Type.Null(),
      Type.Object({
        url: Type.String({ description: "Signed, expiring download URL (no key needed)" }),
        expiresAt: Timestamp(),
        format: Type.String(),
        width: Type.Optional(Type.Integer()),
        height: Type.Optional(Type.Integer()),
        fps: Type.Optional(Type.Number()),
        duration: Type.Number({ description: "Seconds" }),
        size: Type.Integer({ description: "Bytes" }),
        sha256: Type.String(),
        posterUrl: Type.Optional(Type.String()),
      }),
    ]),
    error: Type.Union([
      Type.Null(),
      Type.Object({
        code: Type.String(),
        message: Type.String(),
        retryable: Type.Boolean(),
        clipId: Type.Optional(Type.String()),
        uploadId: Type.Optional(Type.String()),
      }),
    ]),
    warnings: Type.Array(
      Type.Object({
        code: Type.String({ examples: ["SOURCE_DAMAGED"] }),
        message: Type.String(),
        clipId: Type.Optional(Type.String()),
        uploadId: Type.Optional(Type.String()),
      }),
    ),
    createdAt: Timestamp(),
    startedAt: Type.Union([Type.Null(), Timestamp()]),
    finishedAt: Type.Union([Type.Null(), Timestamp()]),
  },
  { title: "Render" },
);

/** `:jobId` path parameter. */
export const RenderParams = Type.Object({
  jobId: Type.String({ maxLength: 64, examples: ["rnd_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
});
