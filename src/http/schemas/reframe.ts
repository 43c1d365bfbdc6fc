import { Type } from "typebox";
import { REFRAME_ASPECTS } from "../../domain/reframe/reframe-composition.ts";
import { CompositionResponse } from "./composition.ts";

/** Body of `POST /api/compositions/{id}/reframe`. */
export const ReframeBody = Type.Object(
  {
    aspectRatio: Type.Enum([...REFRAME_ASPECTS], {
      description: "The new canvas aspect ratio (the canvas's shorter side is kept)",
    }),
    clipIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 1000,
        description:
          "The video clips to reframe (default: every video clip from an upload that fills the canvas)",
      }),
    ),
  },
  { additionalProperties: false, title: "ReframeBody", examples: [{ aspectRatio: "9:16" }] },
);

/** One shot of a reframed clip. */
export const ReframeShotSchema = Type.Object(
  {
    clipId: Type.String({ description: "The clip (or the piece of it) that plays the shot" }),
    start: Type.Number({ description: "Source seconds" }),
    end: Type.Number({ description: "Source seconds" }),
    timelineStart: Type.Number({ description: "Timeline seconds" }),
    timelineEnd: Type.Number({ description: "Timeline seconds" }),
    layout: Type.Enum(["single", "split"], { description: "split: two stacked windows (two people)" }),
    subject: Type.Enum(["face", "faces", "activity", "centre"], {
      description:
        "What the window follows: one face, two faces, the most active region (no face), or the centre",
    }),
    faces: Type.Integer({ minimum: 0, maximum: 2 }),
    samples: Type.Integer({ minimum: 0, description: "Frames the face detector looked at" }),
  },
  { additionalProperties: false, title: "ReframeShot" },
);

/** Response of `POST /api/compositions/{id}/reframe`. */
export const ReframeResponse = Type.Object(
  {
    composition: CompositionResponse,
    summary: Type.String({ description: "The new version's summary", examples: ["reframed 9:16, 6 shots"] }),
    shots: Type.Array(ReframeShotSchema),
    reasons: Type.Array(Type.String(), { description: "Why each clip and shot was framed as it was" }),
  },
  { additionalProperties: false, title: "ReframeResult" },
);
