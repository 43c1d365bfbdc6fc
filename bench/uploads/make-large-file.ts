// Writes a valid MP4 of an exact size for upload benchmarks, in about a second:
//   node bench/uploads/make-large-file.ts <out.mp4> [bytes]
// Default size 536,870,912 bytes (the 512 MB limit); pass 536870913 for the over-limit case.
// The file is a 1 s 320x240 H.264/AAC clip followed by one MP4 `free` box of zeros, so it probes
// and posters like a normal video.
import { execFileSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { paddedMp4Stream } from "../../src/domain/uploads/test-fixtures.ts";

/**
 * Writes an MP4 of exactly `bytes` bytes to `out` (see the file comment).
 * @returns milliseconds taken.
 */
export async function makeLargeMp4(out: string, bytes: number): Promise<number> {
  const started = performance.now();
  const dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-bench-"));
  try {
    const clip = path.join(dir, "clip.mp4");
    execFileSync("ffmpeg", [
      ...["-hide_banner", "-v", "error", "-y"],
      ...["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:duration=1"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"],
      ...["-movflags", "+faststart", clip],
    ]);
    await pipeline(paddedMp4Stream(await readFile(clip), bytes), createWriteStream(out));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return performance.now() - started;
}

if (import.meta.main) {
  const [out, size] = process.argv.slice(2);
  if (!out) {
    console.error("usage: node bench/uploads/make-large-file.ts <out.mp4> [bytes]");
    process.exit(2);
  }
  const bytes = size ? Number(size) : 536_870_912;
  const ms = await makeLargeMp4(out, bytes);
  console.log(`${out}: ${bytes} bytes in ${Math.round(ms)} ms`);
}
