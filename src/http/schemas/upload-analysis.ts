import { Type } from "typebox";

/** `GET /api/v1/uploads/{id}/analysis` query. */
export const UploadAnalysisQuery = Type.Object(
  {
    sceneThreshold: Type.Optional(
      Type.Number({
        minimum: 0.05,
        maximum: 0.95,
        default: 0.3,
        description:
          "ffmpeg scene-change score (0..1) above which a frame starts a new shot. 0.3 finds hard cuts; lower finds soft ones too, with more false cuts on motion",
      }),
    ),
    silenceThreshold: Type.Optional(
      Type.Number({
        minimum: -90,
        maximum: 0,
        default: -35,
        description: "Level below which audio is silent, dBFS",
      }),
    ),
    silenceMinDuration: Type.Optional(
      Type.Number({
        minimum: 0.05,
        maximum: 60,
        default: 0.5,
        description: "Shortest silence reported, seconds",
      }),
    ),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.Object>>(t: T) => Type.Union([Type.Null(), t]);

/** The analysis of an upload. */
export const UploadAnalysis = Type.Object(
  {
    uploadId: Type.String(),
    duration: Type.Number({ description: "Seconds" }),
    scenes: Nullable(
      Type.Object({
        threshold: Type.Number(),
        cuts: Type.Array(
          Type.Object({
            time: Type.Number({ description: "First frame of the new shot, seconds" }),
            score: Type.Number({ description: "Scene-change score of that frame, 0..1" }),
          }),
        ),
      }),
    ),
    silences: Nullable(
      Type.Object({
        thresholdDb: Type.Number(),
        minDuration: Type.Number(),
        ranges: Type.Array(Type.Object({ start: Type.Number(), end: Type.Number() })),
      }),
    ),
    loudness: Nullable(
      Type.Object({
        integrated: Type.Union([Type.Null(), Type.Number()], {
          description: "Integrated loudness, LUFS (EBU R128)",
        }),
        truePeak: Type.Union([Type.Null(), Type.Number()], { description: "True peak, dBTP" }),
        range: Type.Union([Type.Null(), Type.Number()], { description: "Loudness range, LU" }),
        shortTerm: Type.Array(Type.Union([Type.Null(), Type.Number()]), {
          description: "Short-term loudness (3 s window) at the end of each second, LUFS; null below −70",
        }),
      }),
    ),
    peaks: Nullable(
      Type.Object({
        rate: Type.Number({ description: "Values per second of media" }),
        values: Type.Array(Type.Number({ minimum: 0, maximum: 1 }), {
          description: "Peak absolute amplitude of each 1/rate s bucket, linear 0..1 (draw a waveform)",
        }),
      }),
    ),
  },
  {
    title: "UploadAnalysis",
    examples: [
      {
        uploadId: "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1D",
        duration: 6,
        scenes: {
          threshold: 0.3,
          cuts: [
            { time: 2, score: 0.751 },
            { time: 4, score: 0.704 },
          ],
        },
        silences: { thresholdDb: -35, minDuration: 0.5, ranges: [{ start: 1.5, end: 2.5 }] },
        loudness: {
          integrated: -21.9,
          truePeak: -17.7,
          range: 1.9,
          shortTerm: [null, -23.4, -24.9, -21.6, -21.6, -21.6],
        },
        peaks: { rate: 20, values: [0.129, 0.127, 0.13] },
      },
    ],
  },
);
