import { Type } from "typebox";

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
    default: Type.Boolean({ description: "The caller's selected model of this kind" }),
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
