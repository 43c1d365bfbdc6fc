// The timeline's windowing (console/src/timeline-window.ts): whatever the scroll position, the
// clips in view are drawn, with a margin, and the window changes only once per viewport scrolled.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clipsInWindow, drawWindow, markerLabelRoom } from "../../console/src/timeline-window.ts";

describe("timeline window", () => {
  it("covers the view with at least a viewport either side, and stays put within a viewport of scrolling", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 500_000, noNaN: true }),
        fc.integer({ min: 100, max: 4000 }),
        fc.constantFrom(5, 20, 80, 320),
        (scroll, viewport, pps) => {
          const w = drawWindow(scroll, viewport, pps);
          const chunk = Math.max(200, viewport);
          expect(w.from * pps).toBeLessThanOrEqual(Math.max(0, scroll - chunk) + 1e-6);
          expect(w.to * pps).toBeGreaterThanOrEqual(scroll + viewport + chunk - 1e-6);
          expect((w.to - w.from) * pps).toBeLessThanOrEqual(3 * chunk + viewport + 1e-6);
          const snapped = Math.floor(scroll / chunk) * chunk;
          expect(drawWindow(snapped, viewport, pps)).toEqual(w);
          expect(drawWindow(snapped + chunk - 1, viewport, pps)).toEqual(w);
        },
      ),
      { seed: 20261125, numRuns: 300 },
    );
  });

  it("keeps the clips that reach into the window (a transition's lead-in counts) and the ones asked for", () => {
    const clips = [
      { id: "a", start: 0, duration: 2 },
      { id: "b", start: 9, duration: 2 },
      { id: "c", start: 21, duration: 1, transition: { duration: 2 } },
      { id: "d", start: 22.5, duration: 1 },
      { id: "e", start: 100, duration: 1 },
    ];
    const w = { from: 10, to: 20 };
    expect(clipsInWindow(clips, w, new Set()).map((c) => c.id)).toEqual(["b", "c"]);
    expect(clipsInWindow(clips, w, new Set(["e"])).map((c) => c.id)).toEqual(["b", "c", "e"]);
  });

  it("gives each marker's label the room up to the next marker, whatever the markers' order", () => {
    const room = markerLabelRoom(
      [
        { id: "c", time: 5 },
        { id: "a", time: 1 },
        { id: "b", time: 2 },
        { id: "d", time: 5 },
      ],
      20,
    );
    expect(room.get("a")).toBe(18);
    expect(room.get("b")).toBe(58);
    expect(room.get("c")).toBe(0);
    expect(room.get("d")).toBe(Number.POSITIVE_INFINITY);
  });
});
