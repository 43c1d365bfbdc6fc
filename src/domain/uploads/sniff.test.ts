import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SNIFF_BYTES, sniffType } from "./sniff.ts";
import { type Fixtures, makeFixtures } from "./test-fixtures.ts";

let dir: string;
let fx: Fixtures;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-sniff-"));
  fx = await makeFixtures(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const head = async (file: string) => (await readFile(file)).subarray(0, SNIFF_BYTES);
const text = (s: string) => Buffer.from(s, "utf8");

describe("sniffType", () => {
  it.each([
    ["video", "video", "video/mp4"],
    ["rotatedVideo", "video", "video/mp4"],
    ["mp3", "audio", "audio/mpeg"],
    ["png", "image", "image/png"],
    ["jpeg", "image", "image/jpeg"],
    ["srt", "subtitle", "application/x-subrip"],
    ["vtt", "subtitle", "text/vtt"],
    ["ttf", "font", "font/ttf"],
  ] as const)("recognises %s by content", async (name, type, mimeType) => {
    expect(await sniffType(await head(fx[name]))).toMatchObject({ type, mimeType });
  });

  it("refuses an ELF executable named .mp4, random bytes and an empty file", async () => {
    expect(await sniffType(await head(fx.elfAsMp4))).toBeNull();
    expect(await sniffType(await head(fx.random))).toBeNull();
    expect(await sniffType(new Uint8Array())).toBeNull();
  });

  it.each([
    ["HTML", "<!doctype html><html><script>alert(1)</script></html>"],
    ["SVG", '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ["plain text", "hello world\n"],
    ["almost WebVTT", "WEBVTTX\n\n00:00.000 --> 00:01.000\nx\n"],
    ["SRT without timing", "1\nhello\n"],
    ["m3u8 playlist", "#EXTM3U\n#EXTINF:10,\nfile:///etc/passwd\n"],
    ["ffconcat", "ffconcat version 1.0\nfile /etc/passwd\n"],
  ])("refuses %s", async (_name, body) => {
    expect(await sniffType(text(body))).toBeNull();
  });

  it("refuses archives, PDFs and unsupported images", async () => {
    expect(await sniffType(Buffer.from("504b0304140000000800", "hex"))).toBeNull(); // zip
    expect(await sniffType(text("%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n"))).toBeNull();
    const heic = Buffer.from("000000186674797068656963000000006d696631", "hex");
    expect(await sniffType(heic)).toBeNull();
  });

  it("accepts SRT without BOM and with a BOM, LF or CRLF, and WebVTT headers with text", async () => {
    expect(await sniffType(text("\n1\n00:00:01.000 --> 00:00:02.000\nhi\n"))).toMatchObject({
      type: "subtitle",
    });
    expect(await sniffType(text("\ufeff12\r\n01:02:03,456 --> 01:02:04,000\r\nhi"))).toMatchObject({
      ext: "srt",
    });
    expect(await sniffType(text("WEBVTT - Some title\n\n"))).toMatchObject({ ext: "vtt" });
    expect(await sniffType(text("WEBVTT"))).toMatchObject({ ext: "vtt" });
  });
});
