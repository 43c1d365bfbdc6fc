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
