import { describe, expect, it } from "vitest";
import { clipLabel, formatTimecode } from "./clip-label.ts";

describe("clip labels", () => {
  it("formats timeline positions as m:ss, and h:mm:ss from an hour", () => {
    expect(formatTimecode(0)).toBe("0:00");
    expect(formatTimecode(6.4)).toBe("0:06");
    // A frame-snapped time a hair under the second counts as that second.
    expect(formatTimecode(5.9999999)).toBe("0:06");
    expect(formatTimecode(62)).toBe("1:02");
    expect(formatTimecode(3723)).toBe("1:02:03");
    expect(formatTimecode(-1)).toBe("0:00");
  });

  it("names a clip by its name, else its file name, else its text, else its asset type", () => {
    expect(clipLabel({ start: 6, name: "Take 2", asset: { type: "video" } }, "cockatoo.mp4")).toBe(
      "Take 2 at 0:06",
    );
    expect(clipLabel({ start: 6, asset: { type: "video" } }, "cockatoo.mp4")).toBe("cockatoo.mp4 at 0:06");
    expect(clipLabel({ start: 1, asset: { type: "text", text: "  Hello  " } })).toBe('text "Hello" at 0:01');
    expect(clipLabel({ start: 1, asset: { type: "text", text: "x".repeat(40) } })).toBe(
      `text "${"x".repeat(29)}…" at 0:01`,
    );
    expect(clipLabel({ start: 0, asset: { type: "color" } })).toBe("color clip at 0:00");
  });
});
