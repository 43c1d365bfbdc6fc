import { z } from "zod";
import { type ErrorDetail, invalidRequest } from "../../errors.ts";

/**
 * Zod schemas of the OpenTimelineIO JSON objects Cutroom imports. Objects are "loose": fields
 * this importer does not read are allowed and ignored, as OTIO readers do. Items of a track
 * are checked one by one by their `OTIO_SCHEMA` name (see {@link parseAt}) so that an error
 * names the exact item path.
 */

const finite = z.number().refine(Number.isFinite, "must be a finite number");

/** `RationalTime.1`: `value / rate` seconds. */
export const RationalTime = z.looseObject({
  OTIO_SCHEMA: z.string().regex(/^RationalTime\.\d+$/, "must be RationalTime.1"),
  rate: finite.refine((r) => r > 0, "must be > 0"),
  value: finite,
});

/** `TimeRange.1`. */
export const TimeRange = z.looseObject({
  OTIO_SCHEMA: z.string().regex(/^TimeRange\.\d+$/, "must be TimeRange.1"),
  start_time: RationalTime,
  duration: RationalTime,
});

const Metadata = z.record(z.string(), z.unknown()).nullish();
const Name = z.string().nullish();

/** `Marker.1` / `Marker.2`. */
export const Marker = z.looseObject({
  OTIO_SCHEMA: z.string().regex(/^Marker\.\d+$/, "must be Marker.2"),
  name: Name,
  marked_range: TimeRange,
  metadata: Metadata,
});

/** A media reference of a clip: external file, image sequence, generator, missing media (others are refused). */
export const MediaReference = z.discriminatedUnion("OTIO_SCHEMA", [
  z.looseObject({
    OTIO_SCHEMA: z.literal("ExternalReference.1"),
    name: Name,
    target_url: z.string().min(1).max(4096),
    available_range: TimeRange.nullish(),
    metadata: Metadata,
  }),
  z.looseObject({
    OTIO_SCHEMA: z.literal("GeneratorReference.1"),
    name: Name,
    generator_kind: z.string(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    available_range: TimeRange.nullish(),
    metadata: Metadata,
  }),
  z.looseObject({
    OTIO_SCHEMA: z.literal("ImageSequenceReference.1"),
    name: Name,
    target_url_base: z.string().max(4096).nullish(),
    name_prefix: z.string().max(1024).nullish(),
    name_suffix: z.string().max(256).nullish(),
    start_frame: finite.nullish(),
    frame_step: finite.nullish(),
    rate: finite.refine((r) => r > 0, "must be > 0").nullish(),
    available_range: TimeRange.nullish(),
    metadata: Metadata,
  }),
  z.looseObject({
    OTIO_SCHEMA: z.literal("MissingReference.1"),
    name: Name,
    available_range: TimeRange.nullish(),
    metadata: Metadata,
  }),
]);

const Effect = z.looseObject({
  OTIO_SCHEMA: z.string(),
  effect_name: z.unknown().optional(),
  name: z.unknown().optional(),
  time_scalar: finite.optional(),
});

const ItemFields = {
  name: Name,
  source_range: TimeRange.nullish(),
  effects: z.array(Effect).nullish(),
  markers: z.array(Marker).nullish(),
  enabled: z.boolean().nullish(),
  metadata: Metadata,
};

/** `Clip.1` (one `media_reference`) or `Clip.2` (`media_references` + active key). */
export const Clip = z.looseObject({
  OTIO_SCHEMA: z.enum(["Clip.1", "Clip.2"]),
  ...ItemFields,
  media_reference: MediaReference.nullish(),
  media_references: z.record(z.string(), MediaReference).nullish(),
  active_media_reference_key: z.string().nullish(),
});

/** `Gap.1`: empty time on a track; its length is `source_range.duration`. */
export const Gap = z.looseObject({
  OTIO_SCHEMA: z.literal("Gap.1"),
  ...ItemFields,
  source_range: TimeRange,
});

/** `Transition.1`: overlaps `in_offset` of the item before and `out_offset` of the item after. */
export const Transition = z.looseObject({
  OTIO_SCHEMA: z.literal("Transition.1"),
  name: Name,
  transition_type: z.string().nullish(),
  in_offset: RationalTime,
  out_offset: RationalTime,
  metadata: Metadata,
});

/** `Track.1`; children are checked item by item. */
export const Track = z.looseObject({
  OTIO_SCHEMA: z.literal("Track.1"),
  name: Name,
  kind: z.enum(["Video", "Audio"], { message: 'must be "Video" or "Audio"' }).default("Video"),
  enabled: z.boolean().nullish(),
  source_range: TimeRange.nullish(),
  effects: z.array(Effect).nullish(),
  markers: z.array(Marker).nullish(),
  metadata: Metadata,
  children: z.array(z.looseObject({ OTIO_SCHEMA: z.string() })).max(10_000),
});

/** `Stack.1` holding the tracks, bottom layer first. */
export const Stack = z.looseObject({
  OTIO_SCHEMA: z.literal("Stack.1"),
  name: Name,
  source_range: TimeRange.nullish(),
  effects: z.array(Effect).nullish(),
  markers: z.array(Marker).nullish(),
  metadata: Metadata,
  children: z.array(z.looseObject({ OTIO_SCHEMA: z.string() })).max(100),
});

/** `Timeline.1`: the document root. */
export const Timeline = z.looseObject({
  OTIO_SCHEMA: z.literal("Timeline.1", { message: "must be a Timeline.1 object" }),
  name: Name,
  global_start_time: RationalTime.nullish(),
  metadata: Metadata,
  tracks: z.looseObject({ OTIO_SCHEMA: z.string() }),
});

/** A parsed `RationalTime.1` (`value / rate` seconds). */
export type OtioRationalTimeIn = z.infer<typeof RationalTime>;
/** A parsed `TimeRange.1`. */
export type OtioTimeRangeIn = z.infer<typeof TimeRange>;
/** A parsed `Marker.1`/`Marker.2`. */
export type OtioMarkerIn = z.infer<typeof Marker>;
/** A parsed media reference (external, generator or missing). */
export type OtioMediaReferenceIn = z.infer<typeof MediaReference>;
/** A parsed `Clip.1`/`Clip.2`. */
export type OtioClipIn = z.infer<typeof Clip>;
/** A parsed `Track.1` (children not yet checked). */
export type OtioTrackIn = z.infer<typeof Track>;

/** JSON Pointer escaping (RFC 6901). */
const escapePointer = (segment: PropertyKey) => String(segment).replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Parses `value` with `schema`, or throws a 400 `invalid_request` whose details name every
 * bad field as a JSON Pointer under `path` (e.g. `/otio/tracks/children/0/kind`).
 */
export function parseAt<S extends z.ZodType>(schema: S, value: unknown, path: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: [path, ...issue.path.map(escapePointer)].join("/"),
    message: issue.message,
  }));
  throw invalidRequest(
    `The OpenTimelineIO document is invalid at ${details[0]?.path ?? path}: ${details[0]?.message ?? "invalid"}`,
    details,
  );
}
