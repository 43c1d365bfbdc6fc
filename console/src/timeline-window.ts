/** A stretch of timeline, seconds. */
export interface TimeWindow {
  from: number;
  to: number;
}

/**
 * The stretch of timeline to draw for a scroll position: what is in view plus at least one
 * viewport width either side, snapped to whole viewport widths so that it changes only once per
 * viewport of scrolling (scrolling in between redraws nothing).
 *
 * @param scrollLeft the lanes' horizontal scroll offset, pixels (0: time 0 at the left edge)
 * @param viewportPx the width of the lanes in view, pixels
 * @param pxPerSecond zoom
 * @returns timeline seconds, `from` ≥ 0
 */
export function drawWindow(scrollLeft: number, viewportPx: number, pxPerSecond: number): TimeWindow {
  const chunk = Math.max(200, viewportPx);
  const snapped = Math.floor(Math.max(0, scrollLeft) / chunk) * chunk;
  return {
    from: Math.max(0, snapped - chunk) / pxPerSecond,
    to: (snapped + 2 * chunk + viewportPx) / pxPerSecond,
  };
}

/** The fields of a clip the window reads: where it sits and the transition that leads into it. */
interface Placed {
  id: string;
  start: number;
  duration: number;
  transition?: { duration: number };
}

/**
 * The clips of a track that reach into `w` (a transition into a clip counts: it starts half its
 * duration before the clip), plus those in `keep` wherever they are (a selected or dragged clip
 * keeps its element, and so its keyboard focus). Order is kept.
 */
export function clipsInWindow<C extends Placed>(
  clips: readonly C[],
  w: TimeWindow,
  keep: ReadonlySet<string>,
) {
  return clips.filter(
    (c) =>
      keep.has(c.id) ||
      (c.start - (c.transition ? c.transition.duration / 2 : 0) <= w.to && c.start + c.duration >= w.from),
  );
}

/** Narrowest room, pixels, in which a marker's label is still shown (an ellipsis and a letter). */
export const MIN_LABEL_PX = 22;

/**
 * How wide each marker's label may be drawn so that it does not run into the next marker's
 * flag: the distance to the next marker on the ruler less a 2-px gap (markers at one time: the
 * later in the list wins), pixels; `Infinity` for the last marker. A room under
 * {@link MIN_LABEL_PX} means the label is not drawn at all (the flag and its tick stay).
 *
 * @param markers the composition's markers, any order
 * @param pxPerSecond zoom
 * @returns marker id → room in pixels
 */
export function markerLabelRoom(
  markers: readonly { id: string; time: number }[],
  pxPerSecond: number,
): Map<string, number> {
  const sorted = [...markers].sort((a, b) => a.time - b.time);
  return new Map(
    sorted.map((m, i) => {
      const next = sorted[i + 1];
      return [m.id, next ? Math.max(0, (next.time - m.time) * pxPerSecond - 2) : Number.POSITIVE_INFINITY];
    }),
  );
}
