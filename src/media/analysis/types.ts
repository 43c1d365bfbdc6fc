/** What `GET /uploads/{id}/analysis` measures of a media file. Times in seconds. */

/** A detected cut between two shots. */
export interface SceneCut {
  /** Time of the first frame of the new shot, seconds. */
  time: number;
  /** ffmpeg's scene-change score of that frame, 0..1. */
  score: number;
}

/** A stretch of audio below the silence threshold. */
export interface Silence {
  start: number;
  end: number;
}

/** EBU R128 loudness. */
export interface Loudness {
  /** Integrated loudness, LUFS (null for silent or too short audio). */
  integrated: number | null;
  /** True peak, dBTP (null when silent). */
  truePeak: number | null;
  /** Loudness range, LU. */
  range: number | null;
  /** Short-term loudness (3 s window), LUFS, one value per second of media (null: below −70). */
  shortTerm: (number | null)[];
}

/** Audio peaks for drawing a waveform. */
export interface Peaks {
  /** Values per second of media. */
  rate: number;
  /** Peak absolute amplitude of each 1/rate-second bucket, 0..1 (linear). */
  values: number[];
}

/** One analysis of an upload. `null` parts: the media has no such stream. */
export interface MediaAnalysis {
  duration: number;
  scenes: { threshold: number; cuts: SceneCut[] } | null;
  silences: { thresholdDb: number; minDuration: number; ranges: Silence[] } | null;
  loudness: Loudness | null;
  peaks: Peaks | null;
}
