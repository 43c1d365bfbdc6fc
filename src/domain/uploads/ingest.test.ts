import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { filesUnder } from "../../../test/helpers/files.ts";
import { createTestS3Store, type S3TestServer, startS3Server } from "../../../test/helpers/s3-server.ts";
import { AppError } from "../../errors.ts";
import { LocalDiskStore } from "../../storage/local-disk.ts";
import type { S3BlobStore } from "../../storage/s3.ts";
import { type IngestedFile, ingestFile, sanitizeFilename } from "./ingest.ts";
import { ingestParts, type UploadPart } from "./ingest-parts.ts";
import { type Fixtures, makeFixtures, paddedMp4Stream } from "./test-fixtures.ts";

let dir: string;
let fx: Fixtures;
let store: LocalDiskStore;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-ingest-"));
  fx = await makeFixtures(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  store = new LocalDiskStore({
    dir: path.join(dir, `blobs-${randomBytes(4).toString("hex")}`),
    publicBaseUrl: "http://localhost:3000",
    secret: "x".repeat(43),
  });
});

const storedFiles = (): Promise<string[]> => filesUnder(store.dir);

const sha256 = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

/** Width x height of an image file, via ffprobe. */
function dimensions(file: string): string {
  return execFileSync("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=width,height",
    "-of",
    "csv=s=x:p=0",
    file,
  ])
    .toString()
    .trim();
}

const ingest = (file: string, name = path.basename(file), extra: { maxBytes?: number } = {}) =>
  ingestFile({ store, file: createReadStream(file, { highWaterMark: 16 * 1024 }), filename: name, ...extra });

async function expectAppError(promise: Promise<unknown>, status: number, message: RegExp): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).status).toBe(status);
  expect((err as AppError).message).toMatch(message);
}

describe("ingestFile (local disk)", () => {
  it("stores a video with size, SHA-256, media facts and a poster", async () => {
    const r = await ingest(fx.video, "holiday.mp4");
    expect(r.id).toMatch(/^upl_[0-9A-Z]{26}$/);
    expect(r.key).toBe(`uploads/${r.id}/original`);
    expect(r).toMatchObject({
      type: "video",
      mimeType: "video/mp4",
      name: "holiday.mp4",
      posterKey: `uploads/${r.id}/poster.jpg`,
    });
    expect(r.size).toBe((await readFile(fx.video)).length);
    expect(r.sha256).toBe(await sha256(fx.video));
    expect(await sha256(store.localPath(r.key))).toBe(r.sha256);
    expect(r.media).toEqual({
      duration: 1,
      width: 320,
      height: 240,
      sampleAspectRatio: "1:1",
      fps: 25,
      videoCodec: "h264",
      audioCodec: "aac",
      hasAudio: true,
      formatName: "mov,mp4,m4a,3gp,3g2,mj2",
    });
    const poster = store.localPath(r.posterKey as string);
    expect((await readFile(poster)).subarray(0, 2).toString("hex")).toBe("ffd8");
    expect(dimensions(poster)).toBe("320x240");
    expect((await storedFiles()).sort()).toEqual([r.key, r.posterKey].sort());
  });

  it("honours rotation: a 90° 1920x1080 video is 1080x1920, its poster upright", async () => {
    const r = await ingest(fx.rotatedVideo);
    expect(r.media).toMatchObject({
      width: 1080,
      height: 1920,
      videoCodec: "h264",
      hasAudio: false,
      audioCodec: null,
    });
    expect(dimensions(store.localPath(r.posterKey as string))).toBe("360x640");
  });

  it("types an audio-only MP4 as audio, without poster", async () => {
    const r = await ingest(fx.audioInMp4, "voice.mp4");
    expect(r).toMatchObject({ type: "audio", mimeType: "audio/mp4", posterKey: null });
    expect(r.media).toMatchObject({
      width: null,
      height: null,
      fps: null,
      videoCodec: null,
      audioCodec: "aac",
      hasAudio: true,
    });
    expect(r.media?.duration).toBeCloseTo(1, 1);
    const mp3 = await ingest(fx.mp3);
    expect(mp3).toMatchObject({ type: "audio", mimeType: "audio/mpeg", posterKey: null });
    expect(mp3.media?.audioCodec).toBe("mp3");
  });

  it("stores an image with its dimensions and a poster downscaled to 640 px", async () => {
    const r = await ingest(fx.png);
    expect(r).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(r.media).toEqual({
      duration: null,
      width: 1200,
      height: 800,
      sampleAspectRatio: "1:1",
      fps: null,
      videoCodec: null,
      audioCodec: null,
      hasAudio: false,
    });
    // Common still formats are decoded in-process (libvips): the poster keeps the exact aspect.
    expect(dimensions(store.localPath(r.posterKey as string))).toBe("640x427");
  });

  it("reads stills that libvips does not decode (BMP) with ffprobe and ffmpeg", async () => {
    const bmp = path.join(dir, "still.bmp");
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=300x200",
      "-frames:v",
      "1",
      bmp,
    ]);
    const r = await ingest(bmp, "still.bmp");
    expect(r).toMatchObject({ type: "image", mimeType: "image/bmp" });
    expect(r.media).toMatchObject({ width: 300, height: 200 });
    expect(dimensions(store.localPath(r.posterKey as string))).toBe("300x200");
  });

  it("refuses a PNG whose picture data is damaged with 400, keeping nothing", async () => {
    const png = await readFile(fx.png);
    // The header (and so the size) is intact; the compressed picture data is cut short.
    const damaged = path.join(dir, "damaged.png");
    await writeFile(damaged, png.subarray(0, Math.floor(png.length / 2)));
    await expectAppError(
      ingest(damaged, "damaged.png"),
      400,
      /^File "damaged\.png" could not be read as image/,
    );
    expect(await storedFiles()).toEqual([]);
  });

  it.each([
    ["srt", "subtitle", "application/x-subrip"],
    ["vtt", "subtitle", "text/vtt"],
    ["ttf", "font", "font/ttf"],
  ] as const)("stores %s without media or poster", async (name, type, mimeType) => {
    const r = await ingest(fx[name]);
    expect(r).toMatchObject({ type, mimeType, media: null, posterKey: null });
    expect(await storedFiles()).toEqual([r.key]);
  });

  it("refuses an ELF executable named .mp4 with 415 before storing, without reading the rest", async () => {
    let pulled = 0;
    const elfHead = (await readFile(fx.elfAsMp4)).subarray(0, 8192);
    const endless = new Readable({
      read() {
        pulled++;
        this.push(pulled === 1 ? elfHead : Buffer.alloc(65_536));
      },
    });
    await expectAppError(
      ingestFile({ store, file: endless, filename: "movie.mp4" }),
      415,
      /^File "movie\.mp4" is not a supported type/,
    );
    expect(pulled).toBeLessThan(10);
    expect(endless.destroyed).toBe(true);
    expect(await storedFiles()).toEqual([]);
  });

  it("refuses random bytes and empty files with 415", async () => {
    await expectAppError(ingest(fx.random, "data.bin"), 415, /"data\.bin" is not a supported type/);
    await expectAppError(
      ingestFile({ store, file: Readable.from([]), filename: "empty.mp4" }),
      415,
      /"empty\.mp4" is empty/,
    );
    expect(await storedFiles()).toEqual([]);
  });

  it("refuses a file that claims to be video but does not probe with 400, keeping nothing", async () => {
    await expectAppError(
      ingest(fx.brokenMp4, "broken.mp4"),
      400,
      /^File "broken\.mp4" could not be read as video/,
    );
    expect(await storedFiles()).toEqual([]);
  });

  it("enforces maxBytes while streaming: limit accepted, limit + 1 → 413 naming the file", async () => {
    const mp4 = await readFile(fx.video);
    const limit = mp4.length + 100_000;
    const ok = await ingestFile({
      store,
      file: paddedMp4Stream(mp4, limit),
      filename: "at-limit.mp4",
      maxBytes: limit,
    });
    expect(ok.size).toBe(limit);
    expect(ok.media?.width).toBe(320);

    let read = 0;
    await expectAppError(
      ingestFile({
        store,
        file: paddedMp4Stream(mp4, limit + 1, (n) => {
          read = n;
        }),
        filename: "too-big.mp4",
        maxBytes: limit,
      }),
      413,
      /^File "too-big\.mp4" is larger than the/,
    );
    expect(await storedFiles()).toEqual([ok.key, ok.posterKey]);
    expect(read).toBe(limit + 1);
  });

  it("treats a file busboy truncated at its own limit as too large", async () => {
    const file = Object.assign(createReadStream(fx.video), { truncated: false });
    file.on("end", () => {
      file.truncated = true;
    });
    await expectAppError(ingestFile({ store, file, filename: "cut.mp4" }), 413, /"cut\.mp4" is larger/);
    expect(await storedFiles()).toEqual([]);
  });

  it("keeps nothing (no object, no temp file) when the client aborts mid-upload", async () => {
    const mp4 = await readFile(fx.video);
    async function* aborted() {
      yield mp4;
      yield randomBytes(200_000);
      throw Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    }
    await expect(ingestFile({ store, file: Readable.from(aborted()), filename: "x.mp4" })).rejects.toThrow(
      "aborted",
    );
    expect(await storedFiles()).toEqual([]);
  });

  it("keeps file names as sanitised metadata only", async () => {
    const r = await ingest(fx.srt, "../../etc/pass\u202ewd\u0000.srt");
    expect(r.name).toBe("passwd.srt");
    expect(r.key).toBe(`uploads/${r.id}/original`);
    expect(sanitizeFilename(undefined)).toBe("file");
    expect(sanitizeFilename("C:\\Users\\me\\clip.mp4")).toBe("clip.mp4");
    expect(sanitizeFilename("..")).toBe("file");
  });
});

describe("ingestParts (all or nothing)", () => {
  function filePart(file: string, filename = path.basename(file)): UploadPart {
    return { type: "file", fieldname: "file", filename, file: createReadStream(file) };
  }
  async function* partsOf(...parts: UploadPart[]): AsyncGenerator<UploadPart> {
    yield* parts;
  }

  it("returns every file and the fields", async () => {
    const { files, fields } = await ingestParts(
      partsOf(
        { type: "field", fieldname: "projectId", value: "prj_1" },
        filePart(fx.video),
        filePart(fx.srt),
      ),
      { store },
    );
    expect(fields).toEqual({ projectId: "prj_1" });
    expect(files.map((f: IngestedFile) => f.type)).toEqual(["video", "subtitle"]);
    expect(await storedFiles()).toHaveLength(3);
  });

  it("deletes every stored file when a later file fails", async () => {
    await expectAppError(
      ingestParts(partsOf(filePart(fx.video), filePart(fx.png), filePart(fx.elfAsMp4, "third.mp4")), {
        store,
      }),
      415,
      /"third\.mp4"/,
    );
    expect(await storedFiles()).toEqual([]);
  });

  it("deletes every stored file when the part stream itself fails (client abort)", async () => {
    async function* failing(): AsyncGenerator<UploadPart> {
      yield filePart(fx.video);
      throw Object.assign(new Error("premature close"), { code: "FST_PREMATURE_CLOSE" });
    }
    await expect(ingestParts(failing(), { store })).rejects.toThrow("premature close");
    expect(await storedFiles()).toEqual([]);
  });

  it("enforces the file count, requires a file and lets onField veto", async () => {
    await expectAppError(
      ingestParts(partsOf(filePart(fx.srt), filePart(fx.vtt)), { store, maxFiles: 1 }),
      400,
      /at most 1 per request/,
    );
    await expectAppError(
      ingestParts(partsOf({ type: "field", fieldname: "a", value: "b" }), { store }),
      400,
      /no file/,
    );
    await expect(
      ingestParts(partsOf(filePart(fx.srt), { type: "field", fieldname: "projectId", value: "prj_x" }), {
        store,
        onField: () => {
          throw new AppError("not_found", "Project prj_x was not found");
        },
      }),
    ).rejects.toMatchObject({ status: 404 });
    expect(await storedFiles()).toEqual([]);
  });
});

describe("ingestFile (S3, probing through a presigned URL)", () => {
  let s3: S3TestServer;
  let s3store: S3BlobStore;
  beforeAll(async () => {
    s3 = await startS3Server();
    s3store = createTestS3Store(s3);
  });
  afterAll(async () => {
    s3store?.close();
    await s3?.stop();
  });

  it("stores, probes and posters a video without any local copy", async () => {
    const r = await ingestFile({
      store: s3store,
      file: createReadStream(fx.rotatedVideo),
      filename: "portrait.mp4",
    });
    expect(r.media).toMatchObject({ width: 1080, height: 1920 });
    expect(r.sha256).toBe(await sha256(fx.rotatedVideo));
    expect(await s3store.stat(r.key)).toMatchObject({ size: r.size, contentType: "video/mp4" });
    expect(await s3store.stat(r.posterKey as string)).toMatchObject({ contentType: "image/jpeg" });
    await s3store.deletePrefix(`uploads/${r.id}/`);
  });

  it("reads a still's size and poster from the object's bytes", async () => {
    const r = await ingestFile({ store: s3store, file: createReadStream(fx.png), filename: "still.png" });
    expect(r.media).toMatchObject({ width: 1200, height: 800 });
    expect(await s3store.stat(r.posterKey as string)).toMatchObject({ contentType: "image/jpeg" });
    await s3store.deletePrefix(`uploads/${r.id}/`);
  });

  it("deletes the stored original when probing fails", async () => {
    await expectAppError(
      ingestFile({
        store: s3store,
        file: createReadStream(fx.brokenMp4),
        filename: "broken.mp4",
        id: "upl_broken",
      }),
      400,
      /"broken\.mp4" could not be read as video/,
    );
    expect(await s3store.stat("uploads/upl_broken/original")).toBeNull();
  });
});
