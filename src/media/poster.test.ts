import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePoster } from "./poster.ts";
import { MediaProbeError } from "./probe.ts";

let dir: string;
const ff = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args]);
const f = (name: string) => path.join(dir, name);

/** Writes the JPEG and returns its size and average colour. */
async function inspect(jpeg: Buffer): Promise<{ size: string; rgb: number[] }> {
  const file = f(`poster-${Math.random().toString(36).slice(2)}.jpg`);
  await writeFile(file, jpeg);
  const size = execFileSync("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "stream=width,height",
    "-of",
    "csv=s=x:p=0",
    file,
  ])
    .toString()
    .trim();
  const pixel = execFileSync("ffmpeg", [
    "-v",
    "error",
    "-i",
    file,
    "-vf",
    "scale=1:1:flags=area",
    "-f",
    "rawvideo",
    "-pix_fmt",
    "rgb24",
    "-",
  ]);
  return { size, rgb: [...pixel] };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-poster-"));
  // Red for the first 0.5 s, then blue: the poster (at 10% of 10 s = 1 s) must be blue.
  ff([
    ...["-f", "lavfi", "-i", "color=c=red:s=1280x720:r=10:d=0.5"],
    ...["-f", "lavfi", "-i", "color=c=blue:s=1280x720:r=10:d=9.5"],
    ...["-filter_complex", "[0][1]concat=n=2:v=1:a=0", "-c:v", "libx264", "-preset", "ultrafast", "-g", "10"],
    ...["-pix_fmt", "yuv420p", f("red-then-blue.mp4")],
  ]);
  ff(["-i", f("red-then-blue.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", f("portrait.mp4")]);
  ff(["-f", "lavfi", "-i", "color=c=green:s=2000x1000", "-frames:v", "1", f("wide.png")]);
  ff(["-f", "lavfi", "-i", "color=c=green:s=100x50", "-frames:v", "1", f("small.jpg")]);
  // Anamorphic: 320x180 stored, pixels twice as wide as tall (displayed 640x180).
  ff([
    ...["-f", "lavfi", "-i", "color=c=blue:s=320x180:d=0.2", "-vf", "setsar=2/1"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", f("anamorphic.mp4")],
  ]);
  await writeFile(f("garbage.mp4"), Buffer.from("0000001c6674797069736f6d00000200", "hex"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("makePoster", () => {
  it("takes a frame at ~10% of a video, scaled to fit 640 px", async () => {
    const { size, rgb } = await inspect(
      await makePoster(f("red-then-blue.mp4"), { type: "video", duration: 10 }),
    );
    expect(size).toBe("640x360");
    const [r = 0, , b = 0] = rgb;
    expect(b).toBeGreaterThan(200);
    expect(r).toBeLessThan(50);
  });

  it("takes the first frame without a duration", async () => {
    const { rgb } = await inspect(
      await makePoster(f("red-then-blue.mp4"), { type: "video", duration: null }),
    );
    expect(rgb[0]).toBeGreaterThan(200);
  });

  it("falls back to the first frame when the 10% seek finds none", async () => {
    const jpeg = await makePoster(f("red-then-blue.mp4"), { type: "video", duration: 1000 });
    expect(jpeg.subarray(0, 2).toString("hex")).toBe("ffd8");
  });

  it("stands a rotated video upright", async () => {
    const { size } = await inspect(await makePoster(f("portrait.mp4"), { type: "video", duration: 10 }));
    expect(size).toBe("360x640");
  });

  it("shows an anamorphic video at its display proportions", async () => {
    const { size } = await inspect(await makePoster(f("anamorphic.mp4"), { type: "video", duration: 0.2 }));
    expect(size).toBe("640x180");
  });

  it("downscales images to 640 px and never enlarges", async () => {
    expect((await inspect(await makePoster(f("wide.png"), { type: "image", duration: null }))).size).toBe(
      "640x320",
    );
    expect((await inspect(await makePoster(f("small.jpg"), { type: "image", duration: null }))).size).toBe(
      "100x50",
    );
    expect(
      (await inspect(await makePoster(f("wide.png"), { type: "image", duration: null, maxSize: 200 }))).size,
    ).toBe("200x100");
  });

  it("throws MediaProbeError for undecodable input", async () => {
    await expect(makePoster(f("garbage.mp4"), { type: "video", duration: 5 })).rejects.toBeInstanceOf(
      MediaProbeError,
    );
  });
});
