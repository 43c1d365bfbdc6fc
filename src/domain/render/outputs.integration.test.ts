import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, probe, tempDir } from "../../../test/fixtures/render/media.ts";
import { frameMd5, videoProfile } from "../../../test/fixtures/render/seams.ts";
import { encoderArgs } from "./outputs.ts";

let dir = "";
let cleanup: () => Promise<void> = async () => {};

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-outputs-"));
});

afterAll(async () => {
  await cleanup();
});

describe("quality lossless", () => {
  it("mp4: every decoded frame equals the frame encoded, the sound is 24-bit ALAC", async () => {
    // A moving picture with fine detail (the hardest case for an encoder) and a tone.
    const source = ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1", "-f", "lavfi", "-i", "sine=d=1"];
    const yuv = join(dir, "source.nut");
    await ffmpeg([...source.slice(0, 4), "-c:v", "rawvideo", "-pix_fmt", "yuv420p", yuv]);
    const out = join(dir, "lossless.mp4");
    await ffmpeg([...source, "-map", "0:v", "-map", "1:a", ...encoderArgs("mp4", "lossless"), out]);
    const [got, want] = await Promise.all([frameMd5(out), frameMd5(yuv)]);
    expect(got).toHaveLength(25);
    expect(got.map(([, md5]) => md5)).toEqual(want.map(([, md5]) => md5));
    expect(await videoProfile(out)).toBe("High 4:4:4 Predictive");
    expect((await probe(out)).audio).toMatchObject({ codec: "alac", sampleRate: 48_000 });
  }, 60_000);

  it("wav is 24-bit PCM; a split part's video and audio are lossless too", () => {
    expect(encoderArgs("wav", "lossless")).toContain("pcm_s24le");
    expect(encoderArgs("mp4", "lossless", { streams: "video" })).toEqual(
      expect.arrayContaining(["-qp", "0", "-an"]),
    );
    expect(encoderArgs("mp4", "lossless", { streams: "audio" })).toEqual(
      expect.arrayContaining(["alac", "-vn"]),
    );
  });
});
