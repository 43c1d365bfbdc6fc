import { type Static, type TSchema, Type } from "typebox";
import { WHOLE_PLACEHOLDER_PATTERN } from "./template.ts";
import { CANVAS_FPS, TRANSITION_TYPES } from "./value-lists.ts";

/**
 * TypeBox schemas of the Composition format (docs/composition.md, `schemaVersion: 1`).
 *
 * Two families share one definition: the writable body (`CompositionWriteSchema`, what a
 * client POSTs/PUTs; track/clip/marker ids optional, assigned by `normalizeComposition`)
 * and the stored document (`CompositionSchema`, every id present plus server fields).
 * Structure and simple bounds live here; rules JSON Schema cannot express (overlaps,
 * transition lengths, references) live in `validateComposition`.
 */

export { CANVAS_FPS, TRANSITION_TYPES };

/** Clip picture filters. */
export const CLIP_FILTERS = ["greyscale", "blur", "contrast", "darken", "lighten", "negative"] as const;

/** Ken Burns style motions. */
export const MOTION_TYPES = ["zoomIn", "zoomOut", "panLeft", "panRight", "panUp", "panDown"] as const;

/** How a visual clip fills its box. */
export const FIT_MODES = ["cover", "contain", "fill", "none"] as const;

const literals = <const T extends string[]>(values: readonly [...T], description?: string) =>
  Type.Enum<T>(values, description ? { description } : {});

/**
 * `#rrggbb` or `#rrggbbaa` (alpha last, `ff` opaque); in a template, one whole placeholder
 * (`{{brand}}`) filled when rendering.
 */
export const HexColor = Type.String({
  pattern: `^(#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?|${WHOLE_PLACEHOLDER_PATTERN})$`,
  description: "#rrggbb or #rrggbbaa (or, in a template, one whole {{placeholder}})",
  examples: ["#000000"],
});

/** The longest timeline, and so the largest time value a composition holds: one day, seconds. */
export const MAX_TIMELINE_SECONDS = 86_400;
/** A time in seconds: finite and at most {@link MAX_TIMELINE_SECONDS} (2^64 or 1e308 are refused). */
const Seconds = (description: string, min = 0) =>
  Type.Number({ minimum: min, maximum: MAX_TIMELINE_SECONDS, description });
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: "Free-form, kept as is" });

/** Text appearance shared by text and caption assets. Sizes are pixels at the canvas height. */
export const TextStyleSchema = Type.Object(
  {
    family: Type.String({
      minLength: 1,
      description: "Bundled family (e.g. 'DejaVu Sans') or an uploaded font's",
    }),
    size: Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: "Font size, px at canvas height" }),
    weight: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 900, description: "CSS weight, default 400" }),
    ),
    italic: Type.Optional(Type.Boolean()),
    color: Type.Optional(HexColor),
    align: Type.Optional(literals(["left", "center", "right"])),
    valign: Type.Optional(literals(["top", "center", "bottom"])),
    stroke: Type.Optional(
      Type.Object(
        { color: HexColor, width: Type.Number({ minimum: 0, maximum: 100 }) },
        { additionalProperties: false },
      ),
    ),
    background: Type.Optional(
      Type.Object(
        { color: HexColor, padding: Type.Optional(Type.Number({ minimum: 0, maximum: 500 })) },
        { additionalProperties: false },
      ),
    ),
    highlightColor: Type.Optional(HexColor),
  },
  { additionalProperties: false, title: "TextStyle" },
);

/** A caption cue; times are seconds of the caption source (like SRT times), shifted by the clip. */
export const CueSchema = Type.Object(
  {
    start: Seconds("Cue start, seconds"),
    end: Seconds("Cue end, seconds"),
    text: Type.String(),
  },
  { additionalProperties: false },
);

/** Video, image or audio from an upload (`uploadId`) or an https URL (`src`): exactly one of them. */
export const MediaAssetSchema = Type.Object(
  {
    type: literals(["video", "image", "audio"]),
    uploadId: Type.Optional(Type.String({ minLength: 1 })),
    src: Type.Optional(
      Type.String({
        pattern: `^(https://|${WHOLE_PLACEHOLDER_PATTERN}$)`,
        maxLength: 4096,
        description:
          "An https URL (it may contain {{placeholders}}), or, in a template, one whole {{placeholder}}",
      }),
    ),
  },
  { additionalProperties: false },
);

/** A solid colour filling the clip's box. */
export const ColorAssetSchema = Type.Object(
  { type: Type.Literal("color"), color: HexColor },
  { additionalProperties: false },
);

/** Static text rendered through libass. */
export const TextAssetSchema = Type.Object(
  { type: Type.Literal("text"), text: Type.String({ maxLength: 10_000 }), style: TextStyleSchema },
  { additionalProperties: false },
);

/**
 * Captions from a subtitle upload (SRT/WebVTT), inline cues, or a succeeded transcription of the
 * caller (its words grouped into cues; karaoke follows the spoken words' own times).
 */
export const CaptionAssetSchema = Type.Object(
  {
    type: Type.Literal("caption"),
    style: TextStyleSchema,
    mode: Type.Optional(
      literals(
        ["static", "karaoke"],
        "karaoke highlights one word at a time: at the word times of a transcription, else spread over each cue by word length",
      ),
    ),
    source: Type.Union([
      Type.Object({ uploadId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      Type.Object({ cues: Type.Array(CueSchema, { maxItems: 10_000 }) }, { additionalProperties: false }),
      Type.Object(
        {
          transcriptionId: Type.String({
            minLength: 1,
            maxLength: 100,
            description:
              "A succeeded transcription (trn_…) of the caller; cue times are seconds of the transcribed upload",
          }),
        },
        { additionalProperties: false },
      ),
    ]),
  },
  { additionalProperties: false },
);

/** What a clip shows or plays. */
export const AssetSchema = Type.Union(
  [MediaAssetSchema, ColorAssetSchema, TextAssetSchema, CaptionAssetSchema],
  {
    title: "Asset",
  },
);

/** Transition into a clip, centred on the cut. */
export const TransitionSchema = Type.Object(
  {
    type: literals(TRANSITION_TYPES),
    duration: Type.Number({ exclusiveMinimum: 0, maximum: 10, description: "Seconds" }),
  },
  { additionalProperties: false },
);

/**
 * One keyframe of a reframe: where the centre of the crop window lies at a source time. Between
 * keyframes the centre moves linearly; before the first and after the last it holds.
 */
export const ReframeKeyframeSchema = Type.Object(
  {
    time: Seconds(
      "Source time, seconds into the clip's media (like trim; unaffected by start, speed and later trims)",
    ),
    x: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Window centre, fraction of the source picture width",
    }),
    y: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Window centre, fraction of the source picture height",
    }),
  },
  { additionalProperties: false, title: "ReframeKeyframe" },
);

const ReframeKeyframes = (description: string) =>
  Type.Array(ReframeKeyframeSchema, { minItems: 1, maxItems: 1000, description });

/**
 * A moving crop of a video clip (reframing, e.g. a 16:9 recording for a 9:16 canvas): a window of
 * the clip box's aspect ratio, as large as the source picture allows, whose centre follows the
 * keyframes and is kept inside the picture. With `split` the box is two stacked halves, each
 * filled by its own window: `keyframes` the upper half, `split.keyframes` the lower.
 */
export const ReframeSchema = Type.Object(
  {
    keyframes: ReframeKeyframes("Centre of the window over source time, times strictly increasing"),
    split: Type.Optional(
      Type.Object(
        { keyframes: ReframeKeyframes("Centre of the lower half's window, times strictly increasing") },
        {
          additionalProperties: false,
          description: "Two stacked crops (two people): the lower half's window",
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    title: "Reframe",
    description:
      "Keyframed crop of a video clip: a window of the box's aspect ratio moving over the source picture (replaces crop and fit)",
  },
);

const ClipFields = {
  name: Type.Optional(Type.String({ maxLength: 200 })),
  start: Seconds("Absolute start on the timeline, seconds"),
  duration: Type.Number({
    exclusiveMinimum: 0,
    maximum: MAX_TIMELINE_SECONDS,
    description: "Seconds on the timeline",
  }),
  asset: AssetSchema,
  trim: Type.Optional(Seconds("Source in-point, seconds")),
  speed: Type.Optional(Type.Number({ minimum: 0.25, maximum: 4, description: "Playback rate, default 1" })),
  freeze: Type.Optional(
    Type.Boolean({
      description:
        "Video clips only: hold the source frame at the in-point (trim) for the whole duration, without sound (speed must be 1)",
    }),
  ),
  transition: Type.Optional(TransitionSchema),
  fadeIn: Type.Optional(Seconds("Fade in, seconds (picture and sound)")),
  fadeOut: Type.Optional(Seconds("Fade out, seconds (picture and sound)")),
  fit: Type.Optional(literals(FIT_MODES, "Default cover")),
  transform: Type.Optional(
    Type.Object(
      {
        x: Type.Optional(Type.Number({ description: "Box centre, fraction of canvas width (default 0.5)" })),
        y: Type.Optional(Type.Number({ description: "Box centre, fraction of canvas height (default 0.5)" })),
        width: Type.Optional(
          Type.Number({ exclusiveMinimum: 0, maximum: 10, description: "Fraction of canvas" }),
        ),
        height: Type.Optional(
          Type.Number({ exclusiveMinimum: 0, maximum: 10, description: "Fraction of canvas" }),
        ),
        rotate: Type.Optional(Type.Number({ minimum: -360, maximum: 360, description: "Degrees clockwise" })),
        opacity: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      },
      { additionalProperties: false },
    ),
  ),
  crop: Type.Optional(
    Type.Object(
      {
        top: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        bottom: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        left: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        right: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      },
      { additionalProperties: false, description: "Fractions of the source cut from each side" },
    ),
  ),
  reframe: Type.Optional(ReframeSchema),
  motion: Type.Optional(
    Type.Object(
      {
        type: literals(MOTION_TYPES),
        amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "Default 0.2" })),
      },
      { additionalProperties: false },
    ),
  ),
  filter: Type.Optional(literals(CLIP_FILTERS)),
  volume: Type.Optional(Type.Number({ minimum: 0, maximum: 4, description: "Linear gain, default 1" })),
  muted: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Metadata),
};

const makeClip = <I extends TSchema>(id: I) =>
  Type.Object({ id, ...ClipFields }, { additionalProperties: false, title: "Clip" });

const makeTrack = <I extends TSchema>(id: I) =>
  Type.Object(
    {
      id,
      name: Type.Optional(Type.String({ maxLength: 200 })),
      kind: literals(["video", "audio"]),
      enabled: Type.Optional(Type.Boolean()),
      muted: Type.Optional(Type.Boolean()),
      volume: Type.Optional(Type.Number({ minimum: 0, maximum: 4, description: "Linear gain, default 1" })),
      ducking: Type.Optional(
        Type.Object(
          {
            under: Type.Array(Type.String(), {
              minItems: 1,
              description: "Track ids this track ducks under",
            }),
            amountDb: Type.Optional(Type.Number({ minimum: 0, maximum: 40, description: "Default 12" })),
          },
          { additionalProperties: false },
        ),
      ),
      clips: Type.Array(makeClip(id), { maxItems: 2000 }),
      metadata: Type.Optional(Metadata),
    },
    { additionalProperties: false, title: "Track" },
  );

const makeMarker = <I extends TSchema>(id: I) =>
  Type.Object(
    {
      id,
      time: Seconds("Seconds"),
      duration: Type.Optional(Seconds("Seconds")),
      label: Type.String({ maxLength: 500 }),
      metadata: Type.Optional(Metadata),
    },
    { additionalProperties: false, title: "Marker" },
  );

/** The canvas: output size (even pixels, 16..4096), frame rate, background and optional fixed length. */
export const CanvasSchema = Type.Object(
  {
    width: Type.Integer({ minimum: 16, maximum: 4096, multipleOf: 2, description: "Pixels, even" }),
    height: Type.Integer({ minimum: 16, maximum: 4096, multipleOf: 2, description: "Pixels, even" }),
    fps: Type.Number({ enum: [...CANVAS_FPS], description: CANVAS_FPS.join(" | ") }),
    background: HexColor,
    duration: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMELINE_SECONDS, description: "Seconds" }),
    ),
  },
  { additionalProperties: false, title: "Canvas" },
);

/** Integrated loudness targets a render may ask for, LUFS: from quiet film mixes to loud social clips. */
export const LOUDNESS_INTEGRATED_RANGE = { min: -36, max: -5 } as const;
/** True-peak ceilings a render may ask for, dBTP. */
export const LOUDNESS_TRUE_PEAK_RANGE = { min: -9, max: 0 } as const;

/**
 * The composition's sound as a whole. `loudness`: every render of the composition that has
 * sound is measured (EBU R128 / ITU-R BS.1770-4) and brought to `integrated` LUFS with its true
 * peak at or below `truePeak` dBTP (docs/composition.md, Loudness).
 */
export const CompositionAudioSchema = Type.Object(
  {
    loudness: Type.Optional(
      Type.Object(
        {
          integrated: Type.Number({
            minimum: LOUDNESS_INTEGRATED_RANGE.min,
            maximum: LOUDNESS_INTEGRATED_RANGE.max,
            description:
              "Integrated loudness of the output, LUFS (EBU R128 / ITU-R BS.1770). -14 suits most streaming and social platforms, -16 podcasts, -23 broadcast (EBU R128), -24 US broadcast (ATSC A/85)",
            examples: [-14],
          }),
          truePeak: Type.Optional(
            Type.Number({
              minimum: LOUDNESS_TRUE_PEAK_RANGE.min,
              maximum: LOUDNESS_TRUE_PEAK_RANGE.max,
              description: "Highest true peak of the output, dBTP (default -1)",
              examples: [-1],
            }),
          ),
        },
        { additionalProperties: false, title: "LoudnessTarget" },
      ),
    ),
  },
  { additionalProperties: false, title: "CompositionAudio" },
);

const OptionalId = Type.Optional(
  Type.String({ minLength: 1, maxLength: 100, description: "Assigned when missing" }),
);
const RequiredId = Type.String({ minLength: 1, maxLength: 100 });

/** A clip as written by a client (`id` optional). */
export const ClipWriteSchema = makeClip(OptionalId);
/** A track as written by a client (ids optional). */
export const TrackWriteSchema = makeTrack(OptionalId);
/** A marker as written by a client (`id` optional). */
export const MarkerWriteSchema = makeMarker(OptionalId);
/** A stored clip (`id` present). */
export const ClipSchema = makeClip(RequiredId);
/** A stored track. */
export const TrackSchema = makeTrack(RequiredId);
/** A stored marker. */
export const MarkerSchema = makeMarker(RequiredId);

/**
 * The writable body of `POST /api/compositions` and `PUT /api/compositions/:id`.
 * Read-only fields of a fetched composition (`id`, `schemaVersion`, `createdAt`, `updatedAt`)
 * are tolerated so that GET → edit → PUT works; the server ignores them. `version` is the
 * version a PUT was based on (optimistic concurrency).
 */
export const CompositionWriteSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    // Null first: Ajv type coercion would otherwise turn a null projectId into "".
    projectId: Type.Optional(Type.Union([Type.Null(), Type.String()])),
    canvas: CanvasSchema,
    tracks: Type.Array(TrackWriteSchema, { maxItems: 100 }),
    markers: Type.Optional(Type.Array(MarkerWriteSchema, { maxItems: 1000 })),
    audio: Type.Optional(CompositionAudioSchema),
    metadata: Type.Optional(Metadata),
    schemaVersion: Type.Optional(Type.Literal(1)),
    version: Type.Optional(Type.Integer({ minimum: 1, description: "Version this write is based on (PUT)" })),
    id: Type.Optional(Type.String({ description: "Read-only; ignored" })),
    createdAt: Type.Optional(Type.String({ description: "Read-only; ignored" })),
    updatedAt: Type.Optional(Type.String({ description: "Read-only; ignored" })),
    warnings: Type.Optional(Type.Array(Type.Unknown(), { description: "Read-only; ignored" })),
  },
  { additionalProperties: false, title: "CompositionWrite" },
);

/** A clip the composition still holds but cannot render as it is (see `Composition.warnings`). */
export const CompositionWarningSchema = Type.Object(
  {
    code: Type.Literal("upload_missing"),
    message: Type.String({
      examples: ["cockatoo.mp4 at 0:06: its upload was deleted; relink the clip or delete it"],
    }),
    path: Type.String({ description: "JSON Pointer of the clip", examples: ["/tracks/0/clips/3"] }),
    clipId: Type.String(),
    uploadId: Type.String(),
  },
  { additionalProperties: false, title: "CompositionWarning" },
);

/** A degraded clip of a composition. */
export type CompositionWarning = Static<typeof CompositionWarningSchema>;

/** A stored composition (response body of the composition routes and the frozen copy of a render). */
export const CompositionSchema = Type.Object(
  {
    id: Type.String(),
    projectId: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    schemaVersion: Type.Literal(1),
    version: Type.Integer({ minimum: 1 }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    canvas: CanvasSchema,
    tracks: Type.Array(TrackSchema),
    markers: Type.Optional(Type.Array(MarkerSchema)),
    audio: Type.Optional(CompositionAudioSchema),
    metadata: Type.Optional(Metadata),
    warnings: Type.Optional(
      Type.Array(CompositionWarningSchema, {
        description:
          "What is degraded but still editable (read-only; absent when nothing is): `upload_missing` for each clip whose upload was deleted. Writes that leave such a clip as it is are accepted; relink it (`POST /api/compositions/{id}/relink`) or delete it.",
      }),
    ),
  },
  { additionalProperties: false, title: "Composition" },
);

/** Text style (sizes in px at canvas height). */
export type TextStyle = Static<typeof TextStyleSchema>;
/** Any asset. */
export type Asset = Static<typeof AssetSchema>;
/** Video/image/audio asset. */
export type MediaAsset = Static<typeof MediaAssetSchema>;

/** Whether an asset is a media file (`video`, `image` or `audio`: an upload or an https `src`). */
export function isMediaAsset(asset: Asset): asset is MediaAsset {
  return asset.type === "video" || asset.type === "image" || asset.type === "audio";
}
/**
 * Source seconds a clip plays per second of the timeline: 0 for a frozen clip (`freeze`: the
 * frame at `trim` held), else its `speed` (default 1).
 */
export function sourceRate(clip: Pick<ClipWrite, "speed" | "freeze">): number {
  return clip.freeze ? 0 : (clip.speed ?? 1);
}
/** A reframe: keyframed crop window of a video clip. */
export type Reframe = Static<typeof ReframeSchema>;
/** One reframe keyframe (source seconds; centre as fractions of the source picture). */
export type ReframeKeyframe = Static<typeof ReframeKeyframeSchema>;
/** Caption asset. */
export type CaptionAsset = Static<typeof CaptionAssetSchema>;
/** Caption cue (seconds). */
export type Cue = Static<typeof CueSchema>;
/** xfade transition name. */
export type TransitionType = (typeof TRANSITION_TYPES)[number];
/** Canvas. */
export type Canvas = Static<typeof CanvasSchema>;
/** Clip as written (id optional). */
export type ClipWrite = Static<typeof ClipWriteSchema>;
/** Track as written (ids optional). */
export type TrackWrite = Static<typeof TrackWriteSchema>;
/** Writable composition body. */
export type CompositionWrite = Static<typeof CompositionWriteSchema>;
/** Stored clip. */
export type Clip = Static<typeof ClipSchema>;
/** Stored track. */
export type Track = Static<typeof TrackSchema>;
/** Stored marker. */
export type Marker = Static<typeof MarkerSchema>;
/** The composition's sound settings (loudness target). */
export type CompositionAudio = Static<typeof CompositionAudioSchema>;
/** A loudness target: integrated LUFS and a true-peak ceiling in dBTP. */
export type LoudnessTarget = NonNullable<CompositionAudio["loudness"]>;
/** Stored composition. */
export type Composition = Static<typeof CompositionSchema>;
/**
 * The timeline part of a composition after `normalizeComposition` (ids present, clips sorted):
 * what validation, duration and the renderer need.
 */
export type Timeline = Pick<Composition, "canvas" | "tracks"> &
  Partial<Pick<Composition, "markers" | "metadata" | "audio">>;
/**
 * The copy of a composition a render keeps and renders: the stored resource as of the render, or
 * an inline composition normalised (its name and projectId, no id or version); placeholders filled.
 */
export type FrozenComposition = Timeline & Partial<Omit<Composition, keyof Timeline>>;
