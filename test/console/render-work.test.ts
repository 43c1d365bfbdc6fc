// The render card's savings lines (console/src/render-work.ts): the copied share of a smart
// render, the parts reused from the render cache, and why the other frames were encoded.
import { describe, expect, it } from "vitest";
import { encodedReasons, renderSavings } from "../../console/src/render-work.ts";

const reason = (i: number) => ({
  clip: `take.mp4 at 0:0${i}`,
  from: i,
  to: i + 0.5,
  reason: "from the cut to the next keyframe",
});

describe("render savings", () => {
  it("says the copied share (rounded down) and the reused parts, and nothing when nothing was saved", () => {
    expect(
      renderSavings({
        smartRender: { copiedFrames: 1799, encodedFrames: 1, reasons: [reason(0)] },
        reuse: { segments: 5, reused: 3, secondsSaved: 12 },
      }),
    ).toEqual([
      "99 % of frames copied from the sources (1,799 of 1,800)",
      "3 of 5 parts reused from earlier renders (12.0 s not rendered)",
    ]);
    expect(
      renderSavings({ smartRender: { copiedFrames: 0, encodedFrames: 50, reasons: [] }, reuse: null }),
    ).toEqual([]);
    expect(renderSavings({ smartRender: null, reuse: { segments: 4, reused: 0, secondsSaved: 0 } })).toEqual(
      [],
    );
  });

  it("lists the encoded stretches by clip and time, at most six and then how many more", () => {
    const r = {
      smartRender: { copiedFrames: 10, encodedFrames: 80, reasons: [0, 1, 2, 3, 4, 5, 6, 7].map(reason) },
      reuse: null,
    };
    const lines = encodedReasons(r);
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe("take.mp4 at 0:00, 0.00–0.50 s: from the cut to the next keyframe");
    expect(lines.at(-1)).toBe("and 2 more");
  });
});
