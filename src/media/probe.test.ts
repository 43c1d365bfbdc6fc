import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inputArgs, interpretProbe, MediaProbeError, probeMedia } from "./probe.ts";

let dir: string;
const ff = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args]);
const f = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-probe-"));
  const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
  ff(["-f", "lavfi", "-i", "testsrc=size=1920x1080:rate=30:duration=0.5", ...h264, f("landscape.mp4")]);
  // A phone-style portrait recording: 1920x1080 coded, displayed rotated by 90°.
  ff(["-i", f("landscape.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", f("portrait.mp4")]);
  ff([
    ...["-f", "lavfi", "-i", "testsrc=size=640x360:rate=30000/1001:duration=1"],
    ...["-f", "lavfi", "-i", "sine=duration=1"],
    ...h264,
    ...["-c:a", "libopus", "-shortest", f("av.mkv")],
  ]);
  ff(["-f", "lavfi", "-i", "sine=duration=2", "-c:a", "libmp3lame", f("audio.mp3")]);
  ff(["-f", "lavfi", "-i", "testsrc=size=64x64", "-frames:v", "1", f("cover.png")]);
  ff([
    ...["-i", f("audio.mp3"), "-i", f("cover.png"), "-map", "0", "-map", "1", "-c", "copy"],
    ...["-disposition:v", "attached_pic", "-id3v2_version", "3", f("with-cover.mp3")],
  ]);
  // PAL 4:3 DVD-style anamorphic picture: 720x576 stored, pixels 16:15 wide (768x576 displayed).
  ff(["-f", "lavfi", "-i", "testsrc2=s=720x576:d=0.2", "-vf", "setsar=16/15", ...h264, f("pal.mp4")]);
  await writeFile(f("garbage.mp4"), Buffer.from("0000001c6674797069736f6d00000200", "hex"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("probeMedia", () => {
  it("reports a 90°-rotated 1920x1080 video as 1080x1920", async () => {
    const landscape = await probeMedia(f("landscape.mp4"));
    expect(landscape).toMatchObject({ width: 1920, height: 1080, rotation: 0 });
    const p = await probeMedia(f("portrait.mp4"));
    expect(p).toMatchObject({
      width: 1080,
      height: 1920,
      videoCodec: "h264",
      fps: 30,
      hasAudio: false,
      hasVideo: true,
    });
    expect([90, 270]).toContain(p.rotation);
    expect(p.duration).toBeCloseTo(0.5, 1);
  });

  it("reports the sample aspect ratio and the display size of an anamorphic video", async () => {
    expect(await probeMedia(f("pal.mp4"))).toMatchObject({
      width: 768,
      height: 576,
      sampleAspectRatio: "16:15",
    });
    expect(await probeMedia(f("landscape.mp4"))).toMatchObject({ width: 1920, sampleAspectRatio: "1:1" });
    expect((await probeMedia(f("audio.mp3"))).sampleAspectRatio).toBeNull();
  });

  it("reports codecs, NTSC frame rate and audio of a Matroska file", async () => {
    expect(await probeMedia(f("av.mkv"))).toMatchObject({
      width: 640,
      height: 360,
      fps: 29.97,
      videoCodec: "h264",
      audioCodec: "opus",
      hasAudio: true,
      hasVideo: true,
    });
  });

  it("ignores cover art: an MP3 with a picture is audio only", async () => {
    const p = await probeMedia(f("with-cover.mp3"));
    expect(p).toMatchObject({
      hasVideo: false,
      hasAudio: true,
      audioCodec: "mp3",
      width: null,
      height: null,
      fps: null,
    });
    expect(p.duration).toBeCloseTo(2, 1);
  });

  it("throws MediaProbeError for unreadable input, timeouts and aborts", async () => {
    await expect(probeMedia(f("garbage.mp4"))).rejects.toBeInstanceOf(MediaProbeError);
    await expect(probeMedia(f("missing.mp4"))).rejects.toBeInstanceOf(MediaProbeError);
    await expect(probeMedia(f("av.mkv"), { timeoutMs: 1 })).rejects.toThrow(/timed out/);
    await expect(probeMedia(f("av.mkv"), { signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
  });
});

describe("interpretProbe", () => {
  it("swaps dimensions for a legacy rotate tag and parses rates", () => {
    const r = interpretProbe({
      streams: [
        {
          codec_type: "video",
          codec_name: "hevc",
          width: 3840,
          height: 2160,
          avg_frame_rate: "0/0",
          r_frame_rate: "60/1",
          tags: { rotate: "270" },
        },
      ],
      format: { format_name: "mov", duration: "12.3456" },
    });
    expect(r).toMatchObject({
      width: 2160,
      height: 3840,
      fps: 60,
      duration: 12.346,
      hasAudio: false,
      audioCodec: null,
    });
  });

  it("applies the sample aspect ratio before rotation and treats an unknown one as square", () => {
    const video = { codec_type: "video", width: 720, height: 480, sample_aspect_ratio: "32:27" };
    expect(interpretProbe({ streams: [{ ...video, tags: { rotate: "90" } }] })).toMatchObject({
      width: 480,
      height: 853,
      sampleAspectRatio: "32:27",
    });
    expect(interpretProbe({ streams: [{ ...video, sample_aspect_ratio: "0:1" }] })).toMatchObject({
      width: 720,
      sampleAspectRatio: "1:1",
    });
  });

  it("throws without audio or video", () => {
    expect(() => interpretProbe({ streams: [{ codec_type: "subtitle" }] })).toThrow(MediaProbeError);
    expect(() => interpretProbe({})).toThrow(MediaProbeError);
  });
});

describe("inputArgs", () => {
  it("whitelists only the protocols the input needs", () => {
    expect(inputArgs("/data/a:b.mp4")).toEqual(["-protocol_whitelist", "file", "-i", "file:/data/a:b.mp4"]);
    expect(inputArgs("https://s3.example.com/b/k?X-Amz-Signature=1")).toContain("http,https,tcp,tls");
    expect(() => inputArgs("relative.mp4")).toThrow();
    expect(() => inputArgs("concat:/etc/passwd")).toThrow();
  });
});
