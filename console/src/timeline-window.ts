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
