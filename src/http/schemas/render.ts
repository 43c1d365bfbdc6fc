import { type TSchema, Type } from "typebox";
import { RENDER_STATUSES } from "../../db/schema/renders.ts";
import { CompositionWriteSchema } from "../../domain/composition/schema.ts";
import { PLACEHOLDER_NAME } from "../../domain/composition/template.ts";
import { OUTPUT_FORMATS, RENDER_QUALITIES, SMART_RENDER_MODES } from "../../domain/render/types.ts";
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
        {
          default: "standard",
          description:
            "draft (fastest), standard, high (slowest, smallest loss), or lossless (mp4, wav and png only): a master for further editing, every frame and sample as the render made it; mp4 = lossless H.264 (High 4:4:4 Predictive, which editors and ffmpeg decode but browsers do not play) + ALAC, several times the size of high",
        },
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
    reuse: Type.Optional(
      Type.Boolean({
        description:
          "Default true: a split mp4 render copies the parts an earlier render of the account made with identical content (the render cache) instead of rendering them again; `false` renders every part afresh",
      }),
    ),
    smartRender: Type.Optional(
      Type.Union(
        SMART_RENDER_MODES.map((m) => Type.Literal(m)),
        {
          default: "auto",
          description:
            "mp4 only. `auto` (default): where the output's frames are one H.264 source's frames unchanged (same size, frame rate, profile; no effect, text, transition or other clip over them), the source's whole groups of pictures are copied instead of re-encoded, and only the frames from a cut to the next keyframe (and from the last one to an out point) are encoded, near-losslessly. `off`: every frame is encoded. The render reports what it copied and why it encoded the rest in `smartRender`.",
        },
      ),
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
      "Values of the composition's {{placeholders}} (text and caption text, src, colours). Every placeholder needs a value and every name must be used; without merge a composition with placeholders cannot be rendered. A media `src` that is one whole placeholder takes one of your upload ids (`upl_…`: the clip is that upload, as with `uploadId`), a signed URL of your upload on this server (the same), or an https URL; a colour takes `#rrggbb` or `#rrggbbaa`.",
  },
);

/** `Render.smartRender` and `RenderCheck.smartRender`: what smart rendering copies and why it encodes the rest. */
export const SmartRenderBody = Type.Union(
  [
    Type.Null(),
    Type.Object({
      copiedFrames: Type.Integer({
        minimum: 0,
        description: "Output video frames copied from their sources",
      }),
      encodedFrames: Type.Integer({ minimum: 0, description: "Output video frames encoded" }),
      reasons: Type.Array(
        Type.Object({
          clip: Type.Union([Type.Null(), Type.String()], {
            description:
              'The clip as messages name it (file name and start, "take1.mp4 at 0:06"); null where no clip is shown',
          }),
          from: Type.Number({ description: "Output time the encoded stretch starts, seconds" }),
          to: Type.Number({ description: "Output time it ends (exclusive), seconds" }),
          reason: Type.String({
            description:
              "Why it was encoded, e.g. `from the cut to the next keyframe`, `transition`, `variable frame rate`",
          }),
        }),
        { description: "Every encoded stretch of the output with its reason, in output order" },
      ),
    }),
  ],
  {
    description:
      'Smart rendering (`output.smartRender`): how many output frames are copied from their sources and why the others are encoded; null for formats other than mp4, `smartRender: "off"`, or a render not yet planned',
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

/** A problem or warning of a render: a code, a plain-language message and the clip (and upload) it is about. */
const renderIssue = (extra: Record<string, TSchema> = {}) =>
  Type.Object({
    code: Type.String(),
    message: Type.String({
      description:
        "Plain language, starting `clip <clipId>: ` when it is about one clip, with what to change",
    }),
    ...extra,
    clipId: Type.Optional(
      Type.String({ description: "The clip it is about (the composition's clip id)", examples: ["m3"] }),
    ),
    uploadId: Type.Optional(
      Type.String({
        description: "The upload that clip reads, when it is about a source file",
        examples: ["upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"],
      }),
    ),
  });

/** `Render.error`: why a render failed. */
export const RenderErrorBody = Type.Object(
  {
    ...renderIssue({ retryable: Type.Boolean({ description: "Whether the worker retries it" }) }).properties,
    code: Type.String({
      description:
        "`INVALID_COMPOSITION`, `ASSET_NOT_FOUND`, `ASSET_FETCH_FAILED`, `ASSET_UNSUPPORTED` (a source that cannot be decoded or lacks the picture or sound its clip uses), `FONT_NOT_FOUND`, `FFMPEG_FAILED` (with `clipId` when a clip's step failed; without only for a cause of the whole render, which the message names), `TIMEOUT`, `WORKER_LOST`, `OUTPUT_UPLOAD_FAILED`, `INTERNAL`",
      examples: ["ASSET_UNSUPPORTED"],
    }),
  },
  {
    title: "RenderError",
    description:
      "Why the render failed. A failure in one clip names it (`clipId`, and `uploadId` when it reads an upload); the message says what went wrong and what to change.",
    examples: [
      {
        code: "ASSET_UNSUPPORTED",
        message:
          "clip m3: the image could not be decoded: upload upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C is damaged, truncated or not a supported image file; replace it or remove the clip",
        retryable: false,
        clipId: "m3",
        uploadId: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
      },
      {
        code: "FFMPEG_FAILED",
        message:
          "clip m5: the radial transition from clip m4 (0.5 s centred on the cut at 3 s) could not be rendered; try another transition type or a shorter duration",
        retryable: false,
        clipId: "m5",
      },
      {
        code: "FFMPEG_FAILED",
        message:
          "The render failed: the encoder was killed by the system (SIGKILL), which usually means the render machine ran out of memory; render a smaller size or a shorter range, or retry when it is less busy",
        retryable: false,
      },
    ],
  },
);

/** A non-fatal problem recorded on a render (`Render.warnings`, `RenderCheck.warnings`). */
export const RenderWarningBody = Type.Object(
  {
    ...renderIssue().properties,
    code: Type.String({
      description:
        "`TRANSITION_HANDLE_MISSING`, `SOURCE_TOO_SHORT`, `GLYPH_MISSING`, `TEXT_LAYERING_FLATTENED`, `SOURCE_DAMAGED`, …",
      examples: ["SOURCE_DAMAGED"],
    }),
  },
  { title: "RenderWarning" },
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
    compositionName: Type.Union([Type.Null(), Type.String()], {
      description: "The rendered composition's name as of the render; null when it had none",
    }),
    projectId: Type.Union([Type.Null(), Type.String()], {
      description: "The project of the rendered composition as of the render; null when it had none",
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
    error: Type.Union([Type.Null(), RenderErrorBody]),
    warnings: Type.Array(RenderWarningBody),
    segments: Type.Union(
      [
        Type.Null(),
        Type.Object({
          total: Type.Integer({ minimum: 1, description: "Video segments the render was split into" }),
          done: Type.Integer({ minimum: 0, description: "Segments finished so far" }),
        }),
      ],
      {
        description:
          "A split render (an mp4 longer than `RENDER_SEGMENT_SEC`): its video segments, rendered by any workers in parallel and joined without re-encoding; null for a render made in one piece (or not yet started)",
      },
    ),
    reuse: Type.Union(
      [
        Type.Null(),
        Type.Object({
          segments: Type.Integer({
            minimum: 0,
            description: "Parts of the split render: its video segments and its audio",
          }),
          reused: Type.Integer({
            minimum: 0,
            description: "Parts copied from an earlier render of the account instead of rendered",
          }),
          secondsSaved: Type.Number({
            minimum: 0,
            description: "Output seconds of the video segments copied",
          }),
        }),
      ],
      {
        description:
          "What a split render copied from the account's render cache (parts whose content is identical to one an earlier render made); null when nothing was looked up (a render in one piece, `output.reuse: false`, the cache off, or not yet started)",
      },
    ),
    smartRender: SmartRenderBody,
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

/** `POST /api/render/check` and `GET /api/compositions/:id/check`: what would stop a render, without rendering. */
export const RenderCheck = Type.Object(
  {
    ok: Type.Boolean({ description: "True when nothing stops the render before the encoder starts" }),
    problems: Type.Array(RenderErrorBody, {
      description:
        "What would fail the render, each as `Render.error` would say it: every missing or unusable source, or the plan's error (e.g. `FONT_NOT_FOUND`). Empty when `ok`.",
    }),
    warnings: Type.Array(RenderWarningBody, {
      description:
        "What the render would record as warnings before the encoder runs (`TRANSITION_HANDLE_MISSING`, `SOURCE_TOO_SHORT`, `GLYPH_MISSING`, …)",
    }),
    output: Type.Union(
      [
        Type.Null(),
        Type.Object({
          format: Type.String(),
          width: Type.Optional(Type.Integer({ description: "Pixels" })),
          height: Type.Optional(Type.Integer({ description: "Pixels" })),
          fps: Type.Optional(Type.Number({ description: "Frames per second" })),
          duration: Type.Number({ description: "Seconds (frame-snapped)" }),
          audio: Type.Boolean(),
        }),
      ],
      { description: "The output as planned; null when there are problems" },
    ),
    smartRender: SmartRenderBody,
    compositionId: Type.Union([Type.Null(), Type.String()], {
      description: "The stored composition checked; null for an inline one",
    }),
    compositionVersion: Type.Union([Type.Null(), Type.Integer()]),
  },
  {
    title: "RenderCheck",
    examples: [
      {
        ok: false,
        problems: [
          {
            code: "ASSET_NOT_FOUND",
            message:
              "cockatoo.mp4 at 0:06: its upload was deleted; relink the clip to another upload (or upload the file again) or delete it",
            retryable: false,
            clipId: "m3",
            uploadId: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
          },
        ],
        warnings: [],
        output: null,
        smartRender: null,
        compositionId: "cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
        compositionVersion: 4,
      },
    ],
  },
);

/** `GET /api/compositions/:id/check` query: the output options of the render to check. */
export const RenderCheckQuery = Type.Object(
  {
    format: Type.Optional(RenderOutputOptions.properties.format),
    width: RenderOutputOptions.properties.width,
    height: RenderOutputOptions.properties.height,
    fps: RenderOutputOptions.properties.fps,
    quality: RenderOutputOptions.properties.quality,
    frameAt: RenderOutputOptions.properties.frameAt,
    smartRender: RenderOutputOptions.properties.smartRender,
  },
  { additionalProperties: false },
);
