import { Type } from "typebox";

/** One timed transcript or subtitle segment (seconds). */
export const TranscriptSegment = Type.Object(
  {
    start: Type.Number({ minimum: 0, description: "Seconds" }),
    end: Type.Number({ minimum: 0, description: "Seconds, ≥ start" }),
    text: Type.String(),
    speaker: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { title: "TranscriptSegment" },
);

/** A transcript: timed segments, or plain text spread over `duration` by character position. */
export const TranscriptInput = Type.Union([Type.Array(TranscriptSegment), Type.String()], {
  description: "Timed segments (up to 50,000; out-of-order ones are sorted) or plain text",
});

const SEGMENTS_EXAMPLE = [
  { start: 0, end: 4.2, text: "Welcome back to the channel, today we are roasting coffee at home." },
  { start: 4.2, end: 9.8, text: "First, the green beans: I use a washed Ethiopian from a small farm." },
  { start: 9.8, end: 15.1, text: "The popcorn machine gets to first crack in about four minutes." },
];
const SUBTITLES_EXAMPLE = [
  ...SEGMENTS_EXAMPLE,
  { start: 15.1, end: 21, text: "Then the beans cool in a metal colander for two minutes." },
  { start: 21, end: 27.4, text: "They go into a glass jar overnight before I grind them." },
];

/** `POST /api/v1/chapters/detect` body. */
export const ChaptersRequest = Type.Object(
  {
    transcript: TranscriptInput,
    duration: Type.Number({ exclusiveMinimum: 0, description: "Length of the media, seconds" }),
    maxChapters: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    minChapterSec: Type.Optional(
      Type.Number({ minimum: 0, description: "Shortest chapter, seconds (default 30)" }),
    ),
  },
  {
    additionalProperties: false,
    title: "ChaptersRequest",
    examples: [{ transcript: SEGMENTS_EXAMPLE, duration: 15.1 }],
  },
);

/** `POST /api/v1/chapters/detect` response. */
export const ChaptersResponse = Type.Object(
  {
    chapters: Type.Array(
      Type.Object({
        start: Type.Number({ description: "Seconds; the first chapter starts at 0" }),
        end: Type.Number({
          description: "Seconds; contiguous with the next start; the last ends at duration",
        }),
        title: Type.String({ description: "2–6 words, unique" }),
      }),
    ),
  },
  {
    title: "ChaptersResponse",
    examples: [{ chapters: [{ start: 0, end: 15.1, title: "Green beans" }] }],
  },
);

/** `POST /api/v1/clips/summarize` body. */
export const SummaryRequest = Type.Object(
  {
    transcript: TranscriptInput,
    maxKeywords: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: "Default 8" })),
  },
  {
    additionalProperties: false,
    title: "SummaryRequest",
    examples: [{ transcript: SEGMENTS_EXAMPLE, maxKeywords: 5 }],
  },
);

/** `POST /api/v1/clips/summarize` response. */
export const SummaryResponse = Type.Object(
  {
    summary: Type.String({ maxLength: 160, description: "One line that reads as a sentence" }),
    keywords: Type.Array(Type.String(), { description: "Key phrases by importance, deduplicated by lemma" }),
  },
  {
    title: "SummaryResponse",
    examples: [
      {
        summary: "Welcome back to the channel, today we are roasting coffee at home.",
        keywords: ["popcorn machine", "green beans", "farm", "coffee", "home"],
      },
    ],
  },
);

/** `POST /api/v1/broll/suggest` body. */
export const BrollRequest = Type.Object(
  {
    subtitles: Type.Array(TranscriptSegment),
    minGapSec: Type.Optional(
      Type.Number({ minimum: 0, description: "Least time between two inserts, seconds (default 10)" }),
    ),
    windowSec: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: "Length of each insert, seconds (default 4)" }),
    ),
  },
  {
    additionalProperties: false,
    title: "BrollRequest",
    examples: [{ subtitles: SUBTITLES_EXAMPLE, windowSec: 3, minGapSec: 5 }],
  },
);

/** `POST /api/v1/broll/suggest` response. */
export const BrollResponse = Type.Object(
  {
    suggestions: Type.Array(
      Type.Object({
        start: Type.Number({ description: "Seconds" }),
        end: Type.Number({ description: "Seconds (start + windowSec)" }),
        text: Type.String({ description: "What is said there" }),
        keywords: Type.Array(Type.String()),
        query: Type.String({ description: "Stock-footage search query" }),
        score: Type.Number({ minimum: 0, maximum: 1 }),
        reason: Type.String({ description: "One sentence: why a cut-away helps here" }),
      }),
    ),
  },
  {
    title: "BrollResponse",
    examples: [
      {
        suggestions: [
          {
            start: 9.8,
            end: 12.8,
            text: "The popcorn machine gets to first crack in about four minutes.",
            keywords: ["popcorn machine", "crack"],
            query: "popcorn machine crack",
            score: 0.522,
            reason: "Mentions popcorn machine and crack, which footage can show.",
          },
        ],
      },
    ],
  },
);
