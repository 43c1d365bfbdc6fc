import { Type } from "typebox";
import { GENERATION_STATUSES } from "../../db/schema/generations.ts";
import { IMAGE_SIZE_PRESETS } from "../../domain/generation/sizes.ts";
import { Timestamp } from "./common.ts";
import { Upload } from "./upload.ts";
import { CallbackUrl } from "./webhook.ts";

/** One model of `GET /api/v1/generate/models`. */
export const ModelEntry = Type.Object(
  {
    id: Type.String({ examples: ["fal-ai/flux-pro/v1.1"] }),
    name: Type.String(),
    tier: Type.Union(
      ["high", "fast", "offline"].map((t) => Type.Literal(t)),
      {
        description: "`high` quality, `fast` and cheaper, or `offline` placeholder (not AI)",
      },
    ),
    provider: Type.Union(["fal", "offline"].map((p) => Type.Literal(p))),
    available: Type.Boolean({ description: "Whether this server runs it now (fal needs FAL_KEY)" }),
    default: Type.Boolean({
      description:
        "The model the caller's generations of this kind run on on this server: their selected fal model when fal is configured, else the offline placeholder. Only an available model is default.",
    }),
  },
  { title: "GenerationModel" },
);

/** `GET /api/v1/generate/models` response. */
export const ModelCatalog = Type.Object(
  { image: Type.Array(ModelEntry), video: Type.Array(ModelEntry) },
  {
    title: "GenerationModelCatalog",
    examples: [
      {
        image: [
          {
            id: "fal-ai/flux-pro/v1.1",
            name: "FLUX1.1 [pro]",
            tier: "high",
            provider: "fal",
            available: true,
            default: true,
          },
          {
            id: "fal-ai/flux/schnell",
            name: "FLUX.1 [schnell]",
            tier: "fast",
            provider: "fal",
            available: true,
            default: false,
          },
          {
            id: "offline/placeholder-image",
            name: "Offline placeholder image (not AI)",
            tier: "offline",
            provider: "offline",
            available: false,
            default: false,
          },
        ],
        video: [
          {
            id: "fal-ai/veo3/fast/image-to-video",
            name: "Veo 3 Fast (image to video)",
            tier: "high",
            provider: "fal",
            available: true,
            default: true,
          },
          {
            id: "offline/ken-burns-video",
            name: "Offline Ken Burns move over the still (not AI)",
            tier: "offline",
            provider: "offline",
            available: false,
            default: false,
          },
        ],
      },
    ],
  },
);

const ID_EXAMPLE = "gen_01JD3Q5V0M8YB6Y2J4T6Z9KX1C";

/** `imageSize`: one of fal's presets or an exact size. */
export const ImageSizeSchema = Type.Union(
  [
    Type.Enum([...Object.keys(IMAGE_SIZE_PRESETS)], {
      description: Object.entries(IMAGE_SIZE_PRESETS)
        .map(([k, v]) => `${k} = ${v.width}×${v.height}`)
        .join(", "),
    }),
    Type.Object(
      {
        width: Type.Integer({
          minimum: 64,
          maximum: 2048,
          multipleOf: 8,
          description: "Pixels, multiple of 8",
        }),
        height: Type.Integer({
          minimum: 64,
          maximum: 2048,
          multipleOf: 8,
          description: "Pixels, multiple of 8",
        }),
      },
      { additionalProperties: false },
    ),
  ],
  { default: "landscape_4_3" },
);

const Prompt = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: "What to make, 1..2000 characters",
});
const ProjectId = Type.Optional(
  Type.String({ maxLength: 64, description: "A project of the caller; the outputs are filed under it" }),
);

/** `POST /api/v1/generate/image` body. */
export const ImageGenerationCreate = Type.Object(
  {
    prompt: Prompt,
    imageSize: Type.Optional(ImageSizeSchema),
    numImages: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, default: 1 })),
    seed: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 4294967295, description: "Same seed + prompt → same image" }),
    ),
    projectId: ProjectId,
    callbackUrl: CallbackUrl,
  },
  {
    additionalProperties: false,
    title: "ImageGenerationCreate",
    examples: [
      {
        prompt: "A lighthouse on a cliff at dusk, volumetric light",
        imageSize: "landscape_16_9",
        numImages: 1,
      },
    ],
  },
);

/** `POST /api/v1/generate/video` body. */
export const VideoGenerationCreate = Type.Object(
  {
    prompt: Prompt,
    imageUrl: Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        "The still: an `upl_…` id of one of your image uploads, the `url` this API returned for one, or a public https URL",
    }),
    resolution: Type.Optional(Type.Enum(["720p", "1080p"], { default: "720p" })),
    duration: Type.Optional(Type.Enum(["4s", "6s", "8s"], { default: "8s" })),
    aspectRatio: Type.Optional(
      Type.Enum(["auto", "16:9", "9:16", "1:1"], {
        default: "auto",
        description: "`auto` = the closest of 16:9, 9:16 and 1:1 to the still (Veo has no 1:1)",
      }),
    ),
    generateAudio: Type.Optional(
      Type.Boolean({ default: false, description: "Ask the model for sound (doubles the vendor cost)" }),
    ),
    projectId: ProjectId,
    callbackUrl: CallbackUrl,
  },
  {
    additionalProperties: false,
    title: "VideoGenerationCreate",
    examples: [
      {
        prompt: "Slow push-in, waves rolling",
        imageUrl: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
        resolution: "720p",
        duration: "8s",
        aspectRatio: "auto",
      },
    ],
  },
);

/** The Generation resource. */
export const Generation = Type.Object(
  {
    id: Type.String({ examples: [ID_EXAMPLE] }),
    kind: Type.Union([Type.Literal("image"), Type.Literal("video")]),
    status: Type.Union(GENERATION_STATUSES.map((s) => Type.Literal(s))),
    projectId: Type.Union([Type.Null(), Type.String()]),
    prompt: Type.String(),
    params: Type.Record(Type.String(), Type.Unknown(), {
      description: "The options as applied (defaults filled in)",
    }),
    model: Type.Object({
      id: Type.String({ examples: ["fal-ai/flux-pro/v1.1", "offline/placeholder-image"] }),
      provider: Type.Union([Type.Literal("fal"), Type.Literal("offline")]),
      offline: Type.Boolean({
        description: "true: a labelled placeholder made on this server, not AI output",
      }),
    }),
    outputs: Type.Array(Upload, {
      description: "Uploads of the caller (origin `generated`), once succeeded",
    }),
    error: Type.Union([
      Type.Null(),
      Type.Object({
        code: Type.Union(
          ["vendor_error", "vendor_timeout", "content_rejected", "input_unavailable", "worker_lost"].map(
            (c) => Type.Literal(c),
          ),
        ),
        message: Type.String(),
      }),
    ]),
    warnings: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
    progress: Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 1 })]),
    createdAt: Timestamp(),
    finishedAt: Type.Union([Type.Null(), Timestamp()]),
  },
  {
    title: "Generation",
    examples: [
      {
        id: ID_EXAMPLE,
        kind: "image",
        status: "succeeded",
        projectId: null,
        prompt: "A lighthouse on a cliff at dusk, volumetric light",
        params: { imageSize: "landscape_16_9", numImages: 1, seed: 7 },
        model: { id: "fal-ai/flux-pro/v1.1", provider: "fal", offline: false },
        outputs: [
          {
            id: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1D",
            projectId: null,
            url: "https://cutroom.example.com/files/uploads/upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1D/original?exp=1795600000&ct=image%2Fpng&sig=…",
            urlExpiresAt: "2026-11-25T08:00:00.000Z",
            type: "image",
            mimeType: "image/png",
            name: "A lighthouse at dusk.png",
            size: 1843211,
            sha256: "9f2c…",
            createdAt: "2026-11-24T08:00:03.000Z",
            media: {
              duration: null,
              width: 1024,
              height: 576,
              sampleAspectRatio: "1:1",
              fps: null,
              videoCodec: null,
              audioCodec: null,
              hasAudio: false,
            },
            fontFamilies: null,
            origin: "generated",
            generationId: ID_EXAMPLE,
            posterUrl:
              "https://cutroom.example.com/files/uploads/upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1D/poster.jpg?exp=1795600000&ct=image%2Fjpeg&sig=…",
            previewProxy: "none",
          },
        ],
        error: null,
        warnings: [],
        progress: 1,
        createdAt: "2026-11-24T08:00:00.000Z",
        finishedAt: "2026-11-24T08:00:03.000Z",
      },
    ],
  },
);

/** `:id` path parameter. */
export const GenerationParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
