import { type Static, Type } from "typebox";
import { CANVAS_FPS, CanvasSchema } from "../../domain/composition/schema.ts";
import { CompositionResponse } from "./composition.ts";

/** An OTIO `RationalTime.1` at 25 fps, for the examples. */
const frames = (value: number) => ({ OTIO_SCHEMA: "RationalTime.1", rate: 25, value });

/** An example `Clip.2` showing `duration` frames of `file` from frame `start`. */
const exampleClip = (name: string, file: string, start: number, duration: number) => ({
  OTIO_SCHEMA: "Clip.2",
  name,
  source_range: { OTIO_SCHEMA: "TimeRange.1", start_time: frames(start), duration: frames(duration) },
  media_references: {
    DEFAULT_MEDIA: { OTIO_SCHEMA: "ExternalReference.1", name: file, target_url: `file:///media/${file}` },
  },
  active_media_reference_key: "DEFAULT_MEDIA",
});

/** A tiny OpenTimelineIO timeline: one video track with a clip, a dissolve and a second clip. */
export const OTIO_EXAMPLE = {
  OTIO_SCHEMA: "Timeline.1",
  name: "Launch teaser",
  metadata: {},
  tracks: {
    OTIO_SCHEMA: "Stack.1",
    name: "tracks",
    children: [
      {
        OTIO_SCHEMA: "Track.1",
        name: "V1",
        kind: "Video",
        children: [
          exampleClip("Opening", "opening.mp4", 25, 75),
          {
            OTIO_SCHEMA: "Transition.1",
            name: "Dissolve",
            transition_type: "SMPTE_Dissolve",
            in_offset: frames(6),
            out_offset: frames(6),
          },
          exampleClip("Product", "product.mp4", 50, 50),
        ],
      },
    ],
  },
};

/** Query of `GET /api/compositions/:id/export`. */
export const ExportQuery = Type.Object({
  format: Type.Union([Type.Literal("otio"), Type.Literal("mlt"), Type.Literal("edl")], {
    description:
      "`otio`: OpenTimelineIO JSON; `mlt`: MLT XML (Kdenlive, Shotcut, melt); `edl`: CMX 3600 EDL of one video track, the audio tracks (channels A, A2, A3, A4) and the markers (`* LOC:` lines)",
  }),
  track: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 99,
      description:
        "`format=edl` only: index of the video track to write (needed when several video tracks have clips; an EDL holds one)",
    }),
  ),
  assets: Type.Optional(
    Type.Union([Type.Literal("urls"), Type.Literal("paths")], {
      description:
        "How media are referenced: `urls` (default) signed download URLs valid SIGNED_URL_TTL_SEC; `paths` absolute file paths on the server (local-disk storage only), for tools on the same machine",
    }),
  ),
});

/** An OpenTimelineIO `Timeline.1` document (the .otio file's JSON); checked field by field on import. */
const OtioDocument = Type.Object(
  { OTIO_SCHEMA: Type.String({ description: "Timeline.1" }) },
  {
    additionalProperties: true,
    description: "An OpenTimelineIO Timeline.1 document (the .otio file's JSON)",
  },
);

/** The import options around the document: `{ otio, media?, unmatched?, … }`. */
export const ImportBody = Type.Object(
  {
    otio: Type.Optional(OtioDocument),
    edl: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16 * 1024 * 1024,
        description: "A CMX 3600 EDL's text, instead of `otio` (or send the EDL itself as a text/plain body)",
      }),
    ),
    fps: Type.Optional(
      Type.Number({
        enum: [...CANVAS_FPS],
        description:
          "With `edl`: the frame rate its timecode counts, and the canvas rate (drop-frame EDLs default to 29.97)",
      }),
    ),
    media: Type.Optional(
      Type.Record(Type.String({ maxLength: 4096 }), Type.String({ minLength: 1, maxLength: 64 }), {
        description:
          "Which upload (`upl_…`) each medium is: keyed by the clip's path in the body (`/otio/tracks/children/0/children/2`, for media without a name), the media reference's name, or its target_url. Media not mapped are matched to your uploads by file name",
        maxProperties: 2000,
      }),
    ),
    unmatched: Type.Optional(
      Type.Union([Type.Literal("error"), Type.Literal("drop"), Type.Literal("gap")], {
        description:
          "Clips whose media match none of your uploads: `error` (default) refuses the import listing them; `drop` leaves them out and moves later items on their track up (with the transitions touching them); `gap` leaves their time empty",
      }),
    ),
    // Null first: Ajv type coercion would otherwise turn a null projectId into "".
    projectId: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 64 })])),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Default: the timeline's name" }),
    ),
    canvas: Type.Optional(
      Type.Partial(CanvasSchema, {
        description:
          "Canvas fields to use instead of the file's (a Cutroom export carries its canvas; otherwise 1920x1080, black, fps from the file's rate)",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "CompositionImport",
    examples: [{ otio: OTIO_EXAMPLE, media: { "opening.mp4": "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C" } }],
  },
);

/** Whether an import body is the bare `.otio` document (it has `OTIO_SCHEMA` at its top). */
export function isBareOtio(
  body: Static<typeof ImportBody> | Static<typeof OtioDocument>,
): body is Static<typeof OtioDocument> {
  return "OTIO_SCHEMA" in body;
}

/**
 * Body of `POST /api/compositions/import`: the options object, or a bare `.otio` document
 * (sent as the file is; its media are matched by file name). A body with `OTIO_SCHEMA` at its
 * top is the bare document; anything else is checked as the options object, so its errors name
 * its own fields.
 */
export const ImportRequest = Type.Dependent(
  Type.Object({ OTIO_SCHEMA: Type.String() }),
  OtioDocument,
  ImportBody,
  {
    title: "CompositionImportRequest",
    description:
      "`{ otio, media?, unmatched?, projectId?, name?, canvas? }`, or the bare OpenTimelineIO document (`curl --data-binary @edit.otio`)",
    examples: [
      { otio: OTIO_EXAMPLE, media: { "opening.mp4": "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C" }, unmatched: "gap" },
      OTIO_EXAMPLE,
    ],
  },
);

/** Something of an imported document that the composition does not carry. */
const ImportWarningBody = Type.Object(
  {
    path: Type.String({ description: "JSON Pointer of the item in the request body" }),
    message: Type.String({ description: "What was not carried, and what was done instead" }),
  },
  { title: "ImportWarning", additionalProperties: false },
);

/** Response of `POST /api/compositions/import`: the composition and the import's warnings. */
export const ImportResponse = Type.Object(
  {
    ...CompositionResponse.properties,
    warnings: Type.Array(ImportWarningBody, {
      description:
        "Every effect, item or setting of the document the composition does not carry (effects other than LinearTimeWarp, FreezeFrame, generators other than SolidColor, image sequences that match no upload, metadata beyond 64 KiB per item or 1 MiB in all, transitions shortened to fit, …), each with the path of its item (an EDL's: `event 012`); empty when everything was carried",
    }),
  },
  { title: "CompositionImported", additionalProperties: false },
);

/** Query of `POST /api/compositions/import`: the EDL rate when the body is the EDL's text. */
export const ImportQuery = Type.Object({
  fps: Type.Optional(
    Type.Number({
      enum: [...CANVAS_FPS],
      description:
        "With a text/plain EDL body: the frame rate its timecode counts (drop-frame EDLs default to 29.97)",
    }),
  ),
});
