import { Type } from "typebox";
import { TRANSCRIPTION_STATUSES } from "../../db/schema/transcriptions.ts";
import { Timestamp } from "./common.ts";
import { CallbackUrl } from "./webhook.ts";

const ID_EXAMPLE = "trn_01JD3Q5V0M8YB6Y2J4T6Z9KX1C";
const Seconds = (description: string) => Type.Number({ minimum: 0, description });

/** `POST /api/v1/transcriptions` body. */
export const TranscriptionCreate = Type.Object(
  {
    uploadId: Type.String({ minLength: 1, maxLength: 64, description: "An audio or video upload of yours" }),
    language: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z]{2}$",
        description:
          "ISO 639-1 code of the spoken language. Omitted: detected by the engine (the offline engine only does `en`; another language is a 400)",
        examples: ["en"],
      }),
    ),
    projectId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    callbackUrl: Type.Optional(CallbackUrl),
  },
  {
    additionalProperties: false,
    title: "TranscriptionCreate",
    examples: [{ uploadId: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C", language: "en" }],
  },
);

const Word = Type.Object(
  {
    start: Seconds("Start, seconds"),
    end: Seconds("End, seconds"),
    text: Type.String(),
    confidence: Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 1 })], {
      description: "The engine's confidence 0..1; null when it gives none",
    }),
  },
  { title: "TranscriptWord" },
);

const Segment = Type.Object(
  {
    start: Seconds("Start, seconds"),
    end: Seconds("End, seconds"),
    text: Type.String(),
    words: Type.Array(Word, { description: "Word timings; empty when the engine gives none" }),
  },
  { title: "TranscriptSegment" },
);

/** A transcription: a speech-to-text job over an upload and, once succeeded, its transcript. */
export const Transcription = Type.Object(
  {
    id: Type.String({ examples: [ID_EXAMPLE] }),
    status: Type.Union(TRANSCRIPTION_STATUSES.map((s) => Type.Literal(s))),
    uploadId: Type.String(),
    projectId: Type.Union([Type.Null(), Type.String()]),
    engine: Type.Object({
      provider: Type.Union(["offline", "fal", "openai-compatible"].map((p) => Type.Literal(p))),
      model: Type.String({ examples: ["pocketsphinx-en-us", "whisper-1"] }),
      offline: Type.Boolean({ description: "true: recognised on this server, nothing sent to a vendor" }),
    }),
    quality: Type.Union([Type.Literal("draft"), Type.Literal("standard")], {
      description:
        "`draft`: the offline engine (about 35 % of words wrong on read speech) — fine for chapters, silences and search, not for publishing captions unedited; configure TRANSCRIPTION_ENGINE for `standard`",
    }),
    progress: Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 1 })]),
    language: Type.Union([Type.Null(), Type.String()], {
      description: "The language asked for, or once succeeded the one transcribed",
    }),
    duration: Type.Union([Type.Null(), Seconds("Length of the transcribed audio, seconds")]),
    segments: Type.Array(Segment, { description: "Empty until succeeded" }),
    transcript: Type.Array(Type.Object({ start: Type.Number(), end: Type.Number(), text: Type.String() }), {
      description:
        "The segments as `{ start, end, text }`: exactly the `transcript` that `POST /api/v1/chapters/detect`, `/clips/summarize` and `/broll/suggest` accept",
    }),
    error: Type.Union([Type.Null(), Type.Object({ code: Type.String(), message: Type.String() })]),
    createdAt: Timestamp(),
    finishedAt: Type.Union([Type.Null(), Timestamp()]),
  },
  {
    title: "Transcription",
    examples: [
      {
        id: ID_EXAMPLE,
        status: "succeeded",
        uploadId: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1D",
        projectId: null,
        engine: { provider: "offline", model: "pocketsphinx-en-us", offline: true },
        quality: "draft",
        progress: 1,
        language: "en",
        duration: 3.2,
        segments: [
          {
            start: 0.15,
            end: 1.83,
            text: "go forward ten meters",
            words: [
              { start: 0.15, end: 0.42, text: "go", confidence: 0.98 },
              { start: 0.43, end: 0.81, text: "forward", confidence: 0.95 },
              { start: 0.82, end: 1.2, text: "ten", confidence: 0.91 },
              { start: 1.21, end: 1.83, text: "meters", confidence: 0.88 },
            ],
          },
        ],
        transcript: [{ start: 0.15, end: 1.83, text: "go forward ten meters" }],
        error: null,
        createdAt: "2026-11-25T08:00:00.000Z",
        finishedAt: "2026-11-25T08:00:02.000Z",
      },
    ],
  },
);

/** Path parameters of one transcription. */
export const TranscriptionParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** `GET /api/v1/transcriptions/{id}/export` query. */
export const TranscriptionExportQuery = Type.Object(
  {
    format: Type.Union(
      ["srt", "vtt", "txt"].map((f) => Type.Literal(f)),
      {
        description:
          "`srt` SubRip, `vtt` WebVTT (cues of at most 42 characters and 7 s), `txt` one line per segment",
      },
    ),
  },
  { additionalProperties: false },
);
