import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../../test/fixtures/render/media.ts";
import { parseKeyframePackets, probeKeyframes } from "./keyframes.ts";
import { MediaProbeError } from "./probe.ts";

let dir: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir("cutroom-keyframes-");
});
afterAll(() => dir.cleanup());

describe("probeKeyframes", () => {
  it("reads the keyframe times and frame rate from the demuxer", async () => {
    const file = `${dir.dir}/gop.mp4`;
    // 4 s at 25 fps, a keyframe every 25 frames (no scene-cut keyframes).
    await ffmpeg([
      ...["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=4"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0"],
      file,
    ]);
    const index = await probeKeyframes(file);
    expect(index.times.map((t) => Number(t.toFixed(3)))).toEqual([0, 1, 2, 3]);
    expect(index.fps).toBeCloseTo(25, 1);
  });

  it("parses packet lines, skipping those without a time, and refuses none", () => {
    const index = parseKeyframePackets("1.000000,K__\n1.500000,___\nN/A,___\n3.000000,K_\n\n");
    expect(index).toEqual({ times: [0, 2], fps: 1 });
    expect(() => parseKeyframePackets("N/A,K__\n")).toThrow(MediaProbeError);
  });
});
