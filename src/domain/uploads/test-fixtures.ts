import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";

/** Paths of small real files of every kind, generated with ffmpeg (see {@link makeFixtures}). */
export interface Fixtures {
  /** 320x240, 1 s, H.264 + AAC, MP4. */
  video: string;
  /** 1920x1080 H.264 with a 90° rotation flag (displays as 1080x1920), 0.5 s, MP4. */
  rotatedVideo: string;
  /** 1 s MP3 (sine). */
  mp3: string;
  /** 1 s AAC in an MP4 container with a video brand (sniffs as video/mp4, is audio). */
  audioInMp4: string;
  /** 1200x800 PNG. */
  png: string;
  /** 320x240 JPEG. */
  jpeg: string;
  srt: string;
  /** WebVTT with a UTF-8 BOM. */
  vtt: string;
  /** A TrueType font (DejaVu when installed, else a minimal sfnt header). */
  ttf: string;
  /** The head of the Node.js binary (an ELF executable) named `.mp4`. */
  elfAsMp4: string;
  /** 64 KiB of random bytes. */
  random: string;
  /** `ftyp` MP4 header followed by garbage: claims to be video, does not probe. */
  brokenMp4: string;
}

const ff = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args]);

/** Generates {@link Fixtures} into `dir` (about 1 s of ffmpeg work). */
export async function makeFixtures(dir: string): Promise<Fixtures> {
  const p = (name: string) => path.join(dir, name);
  const fx: Fixtures = {
    video: p("video.mp4"),
    rotatedVideo: p("rotated.mp4"),
    mp3: p("audio.mp3"),
    audioInMp4: p("audio-in.mp4"),
    png: p("image.png"),
    jpeg: p("image.jpg"),
    srt: p("subs.srt"),
    vtt: p("subs.vtt"),
    ttf: p("font.ttf"),
    elfAsMp4: p("program.mp4"),
    random: p("random.bin"),
    brokenMp4: p("broken.mp4"),
  };
  const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
  ff([
    ...["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=1"],
    ...h264,
    ...["-c:a", "aac", "-shortest", "-movflags", "+faststart", fx.video],
  ]);
  const unrotated = p("unrotated.mp4");
  ff(["-f", "lavfi", "-i", "testsrc=size=1920x1080:rate=25:duration=0.5", ...h264, unrotated]);
  // ffmpeg 5.1 writes the display matrix from the legacy `rotate` tag when stream-copying.
  ff(["-i", unrotated, "-c", "copy", "-metadata:s:v:0", "rotate=90", fx.rotatedVideo]);
  ff(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "libmp3lame", fx.mp3]);
  ff(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", "-f", "mp4", fx.audioInMp4]);
  ff(["-f", "lavfi", "-i", "testsrc=size=1200x800", "-frames:v", "1", fx.png]);
  ff(["-f", "lavfi", "-i", "testsrc=size=320x240", "-frames:v", "1", fx.jpeg]);
  await writeFile(
    fx.srt,
    "1\r\n00:00:00,000 --> 00:00:01,500\r\nHello\r\n\r\n2\r\n00:00:01,500 --> 00:00:03,000\r\nWorld\r\n",
  );
  await writeFile(fx.vtt, "\ufeffWEBVTT\n\n00:00.000 --> 00:01.500\nHello\n");
  const dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  await writeFile(fx.ttf, existsSync(dejavu) ? await readFile(dejavu) : minimalSfnt());
  const node = await readFile(process.execPath);
  await writeFile(fx.elfAsMp4, node.subarray(0, 64 * 1024));
  await writeFile(fx.random, randomBytes(64 * 1024));
  const ftyp = Buffer.from("0000001c667479706973366d0000020069736f6d69736f32617663316d703431", "hex");
  await writeFile(fx.brokenMp4, Buffer.concat([ftyp, randomBytes(32 * 1024)]));
  return fx;
}

/** A TrueType table directory with no tables: enough for magic-number sniffing. */
function minimalSfnt(): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(0x00010000, 0);
  return b;
}

/**
 * A stream of exactly `totalBytes` that is a valid MP4 at any size: the small `mp4` (moov first),
 * then one `free` box of zeros filling the rest. Generated from a reused 1 MiB zero buffer, so it
 * costs no memory and runs at memory speed (≈ 2–4 GB/s). `totalBytes` − `mp4.length` must be
 * 8 bytes to 4 GiB.
 *
 * @param onRead - called with the running count of bytes handed out (to check promptness).
 */
export function paddedMp4Stream(mp4: Buffer, totalBytes: number, onRead?: (bytes: number) => void): Readable {
  const freeSize = totalBytes - mp4.length;
  if (freeSize < 8 || freeSize > 0xffffffff) throw new Error("totalBytes out of range for one free box");
  const zeros = Buffer.alloc(1024 * 1024);
  async function* generate(): AsyncGenerator<Buffer> {
    const boxHeader = Buffer.alloc(8);
    boxHeader.writeUInt32BE(freeSize, 0);
    boxHeader.write("free", 4, "latin1");
    let sent = mp4.length + 8;
    onRead?.(sent);
    yield Buffer.concat([mp4, boxHeader]);
    while (sent < totalBytes) {
      const n = Math.min(zeros.length, totalBytes - sent);
      sent += n;
      onRead?.(sent);
      yield n === zeros.length ? zeros : zeros.subarray(0, n);
    }
  }
  return Readable.from(generate(), { objectMode: false });
}
