/** The parts of a composition its length depends on. */
export interface DurationInput {
  canvas: { duration?: number | undefined };
  tracks: ReadonlyArray<{ clips: ReadonlyArray<{ start: number; duration: number }> }>;
}

/**
 * Length of a composition in seconds (docs/composition.md, Timing rules): `canvas.duration` when
 * set, else the end (`start + duration`) of the last clip over all tracks, 0 when empty.
 * Transitions never change it. Not frame-snapped (the renderer snaps).
 */
export function compositionDuration(doc: DurationInput): number {
  if (doc.canvas.duration !== undefined) return doc.canvas.duration;
  let end = 0;
  for (const track of doc.tracks) {
    for (const clip of track.clips) end = Math.max(end, clip.start + clip.duration);
  }
  return end;
}

/**
 * Whether a composition of `durationSec` seconds at `fps` frames per second is shorter than
 * one frame yet not empty (0): such a timeline renders to no frame at all.
 */
export function isShorterThanOneFrame(durationSec: number, fps: number): boolean {
  return durationSec > 0 && durationSec * fps < 1 - 1e-6;
}

/** The error detail message for a timeline of `durationSec` seconds shorter than one frame at `fps`. */
export function shorterThanOneFrameMessage(durationSec: number, fps: number): string {
  return `the timeline is ${durationSec} s long, shorter than one frame (${(1 / fps).toFixed(4)} s at ${fps} fps)`;
}
