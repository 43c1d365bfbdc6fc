import { describe, expect, it } from "vitest";
import { easeInOutSine, kenBurnsWindow } from "./providers/ken-burns-move.ts";
import { wrapCaption } from "./providers/offline.ts";
import { closestAspectRatio, durationSeconds, imagePixels, videoPixels } from "./sizes.ts";

describe("generation sizes", () => {
  it("maps presets and exact sizes to pixels", () => {
    expect(imagePixels("landscape_4_3")).toEqual({ width: 1024, height: 768 });
    expect(imagePixels({ width: 320, height: 200 })).toEqual({ width: 320, height: 200 });
  });

  it("picks the closest of 16:9, 9:16 and 1:1 for auto", () => {
    expect(closestAspectRatio(1920, 1080)).toBe("16:9");
    expect(closestAspectRatio(1000, 1300)).toBe("1:1");
    expect(closestAspectRatio(576, 1024)).toBe("9:16");
    expect(closestAspectRatio(4000, 1000)).toBe("16:9");
  });

  it("sizes videos by resolution and aspect ratio", () => {
    expect(videoPixels("720p", "16:9")).toEqual({ width: 1280, height: 720 });
    expect(videoPixels("1080p", "9:16")).toEqual({ width: 1080, height: 1920 });
    expect(videoPixels("720p", "1:1")).toEqual({ width: 720, height: 720 });
    expect(durationSeconds("6s")).toBe(6);
  });
});

describe("Ken Burns window", () => {
  it("starts on the whole still, ends zoomed 1.15× inside it, and moves monotonically", () => {
    expect(kenBurnsWindow(0, 96, 1472, 828)).toEqual({ left: 0, top: 0, width: 1472, height: 828 });
    const last = kenBurnsWindow(95, 96, 1472, 828);
    expect(last.width).toBeCloseTo(1472 / 1.15, 6);
    expect(last.left).toBeGreaterThan(0);
    expect(last.left + last.width).toBeLessThanOrEqual(1472);
    expect(last.top).toBeGreaterThanOrEqual(0);
    let prev = kenBurnsWindow(0, 96, 1472, 828);
    for (let n = 1; n < 96; n++) {
      const w = kenBurnsWindow(n, 96, 1472, 828);
      expect(w.width).toBeLessThanOrEqual(prev.width);
      expect(w.left).toBeGreaterThanOrEqual(prev.left);
      prev = w;
    }
    expect(easeInOutSine(0)).toBe(0);
    expect(easeInOutSine(1)).toBeCloseTo(1, 12);
  });
});

describe("offline caption", () => {
  it("wraps words, splits over-long ones and ends a cut caption with an ellipsis", () => {
    expect(wrapCaption("a paper boat on a puddle", 10, 5)).toEqual(["a paper", "boat on a", "puddle"]);
    expect(wrapCaption("abcdefghijkl", 5, 5)).toEqual(["abcde", "fghij", "kl"]);
    expect(wrapCaption("one two three four five six", 7, 2)).toEqual(["one two", "three…"]);
  });
});
