import { describe, expect, it } from "vitest";
import { inputIndexOf, isDamageLine } from "./damage.ts";

describe("ffmpeg damage lines", () => {
  it("recognises demuxer, parser and decoder damage and nothing else", () => {
    for (const line of [
      "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5625c51798c0] stream 1, offset 0x3b29f: partial file",
      "[h264 @ 0x5625c51bf380] Invalid NAL unit size (3083 > 1115).",
      "Error while decoding stream #1:0: Invalid data found when processing input",
      "[h264 @ 0x556037846200] error while decoding MB 8 7",
      "[mp3float @ 0x1] Header missing",
      "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] moov atom not found",
    ]) {
      expect(isDamageLine(line), line).toBe(true);
    }
    for (const line of [
      "[Parsed_overlay_0 @ 0x1] Invalid argument",
      "Error initializing output stream 0:0 -- Error while opening encoder",
      "[libx264 @ 0x1] using cpu capabilities: MMX2 SSE2Fast",
    ]) {
      expect(isDamageLine(line), line).toBe(false);
    }
  });

  it("reads the input index a line names, if any", () => {
    expect(inputIndexOf("Error while decoding stream #2:1: Invalid data found")).toBe(2);
    expect(inputIndexOf("[vist#3:0/h264 @ 0x1] Decoding error")).toBe(3);
    expect(inputIndexOf("[mov @ 0x1] stream 1, offset 0x3b29f: partial file")).toBeNull();
  });
});
