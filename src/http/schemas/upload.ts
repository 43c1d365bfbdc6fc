import { Type } from "typebox";
import { UPLOAD_TYPES } from "../../domain/uploads/upload-type.ts";
import { Timestamp } from "./common.ts";

/** The Upload resource (docs/conventions.md, Resources). */
export const Upload = Type.Object(
  {
    id: Type.String({ examples: ["upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    projectId: Type.Union([Type.Null(), Type.String()]),
    url: Type.String({
      description: "Signed, expiring GET URL; works without a key. Re-fetch the upload for a fresh one.",
    }),
    urlExpiresAt: Timestamp(),
    type: Type.Union(UPLOAD_TYPES.map((t) => Type.Literal(t))),
    mimeType: Type.String({ examples: ["video/mp4"] }),
    name: Type.String({ description: "The client's filename (metadata only)" }),
    size: Type.Integer({ description: "Bytes" }),
    sha256: Type.String(),
    createdAt: Timestamp(),
    media: Type.Union([
      Type.Null(),
      Type.Object({
        duration: Type.Union([Type.Null(), Type.Number({ description: "Seconds" })]),
        width: Type.Union([
          Type.Null(),
          Type.Integer({
            description:
              "Display pixels: sample aspect ratio and rotation applied (720x576 stored at SAR 16:15 is 768 wide)",
          }),
        ]),
        height: Type.Union([Type.Null(), Type.Integer({ description: "Display pixels (rotation applied)" })]),
        sampleAspectRatio: Type.Optional(
          Type.Union([
            Type.Null(),
            Type.String({
              description:
                "Pixel aspect ratio of the stored picture, N:M (1:1 = square pixels; 16:15 = PAL 4:3 DVD); null without a picture",
              examples: ["1:1"],
            }),
          ]),
        ),
        fps: Type.Union([Type.Null(), Type.Number()]),
        videoCodec: Type.Union([Type.Null(), Type.String()]),
        audioCodec: Type.Union([Type.Null(), Type.String()]),
        hasAudio: Type.Boolean(),
      }),
    ]),
    fontFamilies: Type.Union([Type.Null(), Type.Array(Type.String())], {
      description:
        "A font's family names, as text styles name them (`style.family`); empty when the file's names cannot be read (WOFF2: upload TTF or OTF); null for other types",
      examples: [["Inter"]],
    }),
    origin: Type.Union([Type.Literal("upload"), Type.Literal("generated")], {
      description: "`generated`: an output of the generation `generationId`",
    }),
    generationId: Type.Union([Type.Null(), Type.String()]),
    posterUrl: Type.Union([
      Type.Null(),
      Type.String({ description: "Signed JPEG poster URL (video and image)" }),
    ]),
    previewProxy: Type.Union(
      [Type.Literal("ready"), Type.Literal("pending"), Type.Literal("failed"), Type.Literal("none")],
      {
        description:
          "The video's preview proxy (a copy 640 px wide with a keyframe every 0.5 s, made by a queued job after the upload): previews (`/frame`, `/preview.mp4`) up to its size decode it instead of the original once `ready`, and the original until then. `failed`: it could not be made (previews use the original); `none`: not a video, or one that may carry alpha. Renders always read the original.",
      },
    ),
  },
  { title: "Upload" },
);

/** A composition that uses an upload (`Upload.usedBy`, and the 409 of a delete). */
export const UploadUser = Type.Object(
  {
    id: Type.String({ examples: ["cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    name: Type.String(),
    clips: Type.Integer({ minimum: 1, description: "How many of its clips use the upload" }),
  },
  { title: "UploadUser" },
);

/** An upload as `GET /api/v1/uploads/:id` returns it: with the compositions that use it. */
export const UploadWithUsers = Type.Object(
  {
    ...Upload.properties,
    usedBy: Type.Array(UploadUser, {
      description: "The caller's compositions with a clip that uses this upload (empty when none)",
    }),
  },
  { title: "UploadWithUsers" },
);

/** `:id` path parameter. */
export const UploadParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
