import { Type } from "typebox";
import { AUTOEDIT_STATUSES } from "../../db/schema/autoedits.ts";
import { AUTOEDIT_ASPECT_RATIOS } from "../../domain/autoedit/types.ts";
import { Timestamp } from "./common.ts";
import { CallbackUrl } from "./webhook.ts";

const ID_EXAMPLE = "aed_01JD3Q5V0M8YB6Y2J4T6Z9KX1C";
const Seconds = (description: string) => Type.Number({ minimum: 0, description });
const Id = Type.String({ minLength: 1, maxLength: 64 });

/** `POST /api/v1/autoedit` body. */
export const AutoeditCreate = Type.Object(
  {
    uploadIds: Type.Array(Id, {
      minItems: 1,
      maxItems: 10,
      description:
        "Video uploads of yours with sound (a talking-head recording); candidates are found in each",
    }),
    prompt: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: "What the clips should be about: candidates that say its words score higher",
      }),
    ),
    target: Type.Optional(
      Type.Object(
        {
          aspectRatio: Type.Optional(Type.Enum([...AUTOEDIT_ASPECT_RATIOS], { description: "Default 9:16" })),
          maxDuration: Type.Optional(
            Type.Number({ minimum: 5, maximum: 600, description: "Longest clip, seconds (default 60)" }),
          ),
          count: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 10, description: "Compositions to build (default 3)" }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    captions: Type.Optional(Type.Boolean({ description: "Karaoke captions from speech (default true)" })),
    removeSilences: Type.Optional(Type.Boolean({ description: "Cut silences out (default true)" })),
    silenceMinDuration: Type.Optional(
      Type.Number({
        minimum: 0.3,
        maximum: 10,
        description: "Silences longer than this go, seconds (default 0.75)",
      }),
    ),
    removeFillers: Type.Optional(
      Type.Boolean({
        description: "Cut the filler words of the transcript's language (um, uh, …; default true)",
      }),
    ),
    loudness: Type.Optional(
      Type.Number({
        minimum: -40,
        maximum: -5,
        description:
          "Integrated loudness target of the compositions, LUFS (default -14; true peak -1 dBTP): set as their `audio.loudness`, met by every render",
      }),
    ),
    musicUploadId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "An audio upload laid under the speech, ducked",
      }),
    ),
    projectId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Default: the first upload's project" }),
    ),
    render: Type.Optional(
      Type.Boolean({ description: "Render each composition once built (default false)" }),
    ),
    callbackUrl: CallbackUrl,
  },
  {
    additionalProperties: false,
    title: "AutoeditCreate",
    examples: [
      {
        uploadIds: ["upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"],
        target: { aspectRatio: "9:16", maxDuration: 60, count: 3 },
        captions: true,
        removeSilences: true,
        silenceMinDuration: 0.75,
      },
    ],
  },
);

const Candidate = Type.Object(
  {
    uploadId: Type.String(),
    start: Seconds("Source in-point, seconds (a sentence start)"),
    end: Seconds("Source out-point, seconds (a sentence end)"),
    score: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Higher is better; candidates are ranked by it",
    }),
    title: Type.String(),
    reasons: Type.Array(Type.String(), { description: "Why it scored as it did" }),
  },
  { title: "AutoeditCandidate" },
);

const Step = Type.Object(
  {
    step: Type.String({ description: "`cut`, `canvas`, `captions`, `silences` or `music`" }),
    version: Type.Union([Type.Null(), Type.Integer({ minimum: 1 })], {
      description:
        "The composition version the step wrote (revert to the one before to undo it); null: no change",
    }),
    summary: Type.String({ examples: ["removed 14 silences, 3.2 s"] }),
    reasons: Type.Array(Type.String()),
  },
  { title: "AutoeditStep" },
);

/** An auto-edit job: candidates, then the compositions built from the best ones. */
export const Autoedit = Type.Object(
  {
    id: Type.String({ examples: [ID_EXAMPLE] }),
    status: Type.Union(AUTOEDIT_STATUSES.map((s) => Type.Literal(s))),
    projectId: Type.Union([Type.Null(), Type.String()]),
    progress: Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 1 })]),
    stage: Type.Union(
      [
        Type.Null(),
        ...["transcribing", "analysing", "candidates", "compositions", "renders"].map((s) => Type.Literal(s)),
      ],
      { description: "What a running auto-edit is doing" },
    ),
    request: Type.Object(
      {
        uploadIds: Type.Array(Type.String()),
        prompt: Type.Union([Type.Null(), Type.String()]),
        target: Type.Object({
          aspectRatio: Type.Enum([...AUTOEDIT_ASPECT_RATIOS]),
          maxDuration: Type.Number(),
          count: Type.Integer(),
        }),
        captions: Type.Boolean(),
        removeSilences: Type.Boolean(),
        silenceMinDuration: Type.Number(),
        removeFillers: Type.Boolean(),
        loudness: Type.Union([Type.Null(), Type.Number()]),
        musicUploadId: Type.Union([Type.Null(), Type.String()]),
        render: Type.Boolean(),
      },
      { description: "The request with its defaults filled in" },
    ),
    transcriptionIds: Type.Array(Type.String(), { description: "The transcription of each upload" }),
    candidates: Type.Array(Candidate, {
      description: "Ranked best first; written before any composition is built",
    }),
    compositions: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          candidate: Type.Integer({ minimum: 0, description: "Index into `candidates`" }),
          steps: Type.Array(Step, { description: "The automated steps in order, one version each" }),
          estimate: Type.Object({
            renderSeconds: Type.Number({
              minimum: 0,
              description:
                "Expected wall time of an mp4 render at `standard` quality on the reference two-core machine",
            }),
          }),
        },
        { title: "AutoeditComposition" },
      ),
    ),
    renders: Type.Array(Type.Object({ id: Type.String(), compositionId: Type.String() }), {
      description: "Renders started (with `render: true`)",
    }),
    skipped: Type.Array(Type.Object({ option: Type.String(), reason: Type.String() }), {
      description: "What the job could not carry out, with why (e.g. a render that could not start)",
    }),
    error: Type.Union([Type.Null(), Type.Object({ code: Type.String(), message: Type.String() })]),
    createdAt: Timestamp(),
    finishedAt: Type.Union([Type.Null(), Timestamp()]),
  },
  { title: "Autoedit" },
);

/** Path parameters of one auto-edit. */
export const AutoeditParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
