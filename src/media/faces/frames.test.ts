import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../../../test/fixtures/render/media.ts";
import { containerSeekOf, seekToRead } from "../container-seek.ts";
import { probeKeyframes } from "../keyframes.ts";
import { probeMedia } from "../probe.ts";
import { sampleFrames } from "./frames.ts";

let dir = "";
let cleanup: () => Promise<void> = async () => {};
let ts = "";
let mp4 = "";
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-frames-"));
  ts = join(dir, "long-gop.ts");
  mp4 = join(dir, "long-gop.mp4");
  // 4 s at 25 fps, keyframes at 0 and 2.4 s only.
  await ffmpeg([
    ...["-f", "lavfi", "-i", "testsrc2=s=64x36:r=25:d=4"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-sc_threshold", "0", "-f", "mpegts", ts],
  ]);
  await ffmpeg(["-i", ts, "-c", "copy", mp4]);
});
afterAll(() => cleanup());

describe("seekToRead", () => {
  it("seeks an indexed container to the time itself", () => {
    expect(seekToRead(2.5, "index", [0, 2])).toEqual({ seekSec: 2.5, skipSec: 0 });
  });
  it("seeks a searched container a margin before the keyframe at or before the time", () => {
    expect(seekToRead(3.5, "search", [0, 2.4])).toEqual({ seekSec: 1.4, skipSec: 2.1 });
    expect(seekToRead(0.5, "search", [0, 2.4])).toEqual({ seekSec: 0, skipSec: 0.5 });
    expect(seekToRead(3.5, "search")).toEqual({ seekSec: 0, skipSec: 3.5 });
  });
  it("reads a raw stream from its start", () => {
    expect(seekToRead(1, "none")).toEqual({ seekSec: null, skipSec: 1 });
  });
  it("knows containers by their demuxer names", () => {
    expect(containerSeekOf("mov,mp4,m4a,3gp,3g2,mj2")).toBe("index");
    expect(containerSeekOf("matroska,webm")).toBe("index");
    expect(containerSeekOf("mpegts")).toBe("search");
    expect(containerSeekOf("mpeg")).toBe("search");
    expect(containerSeekOf("h264")).toBe("none");
    expect(containerSeekOf(undefined)).toBe("index");
  });
});

describe("sampleFrames of an MPEG-TS", () => {
  it("samples the frames of the last GOP, as from the same stream in mp4", async () => {
    const opts = { start: 3.3, duration: 0.5, fps: 5, width: 64, height: 36, timeoutMs: 30_000 };
    const reference = await sampleFrames(mp4, opts);
    const seek = {
      container: containerSeekOf((await probeMedia(ts)).formatName),
      keyframeTimes: (await probeKeyframes(ts)).times,
    };
    expect(seek.container).toBe("search");
    const got = await sampleFrames(ts, { ...opts, seek });
    // The same frames after the first (an input seek on an index drops the frames before the
    // start, so the first sample there is the frame after it, not the one at or before it) and
    // before the last (flushed at the end of the read, it may be missing).
    const frame = 64 * 36 * 3;
    const same = (a: typeof reference, b: typeof reference) => {
      const count = Math.min(a.count, b.count);
      const middle = (s: typeof reference) => Buffer.from(s.rgb.subarray(frame, count * frame));
      return count >= 3 && middle(a).equals(middle(b));
    };
    expect(same(reference, got)).toBe(true);
    // Without the kept keyframes it reads from the start, and still gets them.
    expect(same(reference, await sampleFrames(ts, { ...opts, seek: { container: "search" } }))).toBe(true);
  });
});
