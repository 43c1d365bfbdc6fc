/**
 * The shapes of an auto-edit: what a request asks for, the candidates it finds and what it made.
 * Times are seconds of the source upload; durations seconds.
 */

/** Target aspect ratios of an auto-edit's clips. */
export const AUTOEDIT_ASPECT_RATIOS = ["9:16", "1:1", "16:9"] as const;
/** One target aspect ratio (width:height). */
export type AutoeditAspectRatio = (typeof AUTOEDIT_ASPECT_RATIOS)[number];

/** An auto-edit request with its defaults filled in (as stored on the job). */
export interface AutoeditRequest {
  /** Video uploads of the caller with sound; candidates are found in each. */
  uploadIds: string[];
  /** What the clips should be about: words of it found in a candidate raise its score. */
  prompt: string | null;
  target: {
    aspectRatio: AutoeditAspectRatio;
    /** Longest candidate, seconds of source. */
    maxDuration: number;
    /** Compositions to build: the top `count` candidates. */
    count: number;
  };
  captions: boolean;
  removeSilences: boolean;
  /** Silences longer than this are cut, seconds. */
  silenceMinDuration: number;
  removeFillers: boolean;
  /** Integrated loudness asked for, LUFS. */
  loudness: number | null;
  /** An audio upload laid under the speech as a music bed, ducked under it. */
  musicUploadId: string | null;
  /** Render each composition once it is built. */
  render: boolean;
}

/** A stretch of one upload that could stand alone as a short clip. */
export interface AutoeditCandidate {
  uploadId: string;
  /** Source in and out points, seconds (on sentence boundaries). */
  start: number;
  end: number;
  /** 0..1, higher is better; candidates are ranked by it. */
  score: number;
  /** A few words naming what the stretch is about. */
  title: string;
  /** Why it scored as it did, one plain sentence each. */
  reasons: string[];
}

/** One automated step as it was written: the composition version it made and its summary. */
export interface AutoeditStepRecord {
  /** The step's name (`cut`, `canvas`, `captions`, `silences`, `music`). */
  step: string;
  /** The composition version the step wrote; null when it changed nothing. */
  version: number | null;
  summary: string;
  reasons: string[];
}

/** A composition an auto-edit built from a candidate. */
export interface AutoeditComposition {
  id: string;
  /** Index of its candidate in `candidates`. */
  candidate: number;
  steps: AutoeditStepRecord[];
  estimate: { renderSeconds: number };
}

/** What an auto-edit has found and made so far (written as it goes). */
export interface AutoeditResult {
  /** The transcription of each upload used for candidates and captions. */
  transcriptionIds: string[];
  candidates: AutoeditCandidate[];
  compositions: AutoeditComposition[];
  renders: { id: string; compositionId: string }[];
  /** Options of the request this server does not carry out yet, with why. */
  skipped: { option: string; reason: string }[];
}

/** The stage of a running auto-edit, shown with its progress. */
export type AutoeditStage = "transcribing" | "analysing" | "candidates" | "compositions" | "renders";
