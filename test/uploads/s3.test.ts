// Upload routes on the S3 driver, against a real S3-compatible server (s3rver in a child
// process): streamed multipart writes, probing through presigned URLs, presigned GETs that need
// no key, all or nothing, refusals and aborts leaving no object, delete.
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fixtures, makeFixtures, paddedMp4Stream } from "../../src/domain/uploads/test-fixtures.ts";
import { S3BlobStore } from "../../src/storage/s3.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.ts";
import {
  adaptAppStore,
  eventually,
  type FormPart,
  postMultipart,
  s3Env,
  storedFiles,
  type UploadJson,
  uploadRowCount,
} from "./helpers.ts";

const MiB = 1024 * 1024;
const LIMIT = 12 * MiB; // above the 8 MiB part size: accepted files may be multipart uploads
let s3: S3TestServer;
let t: TestApp;
let base: string;
let dir: string;
let fx: Fixtures;
let clip: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-upl-s3-"));
  fx = await makeFixtures(dir);
  clip = await readFile(fx.video);
  s3 = await startS3Server();
  t = await startTestApp({ env: { ...s3Env(s3), UPLOAD_MAX_BYTES: String(LIMIT) } });
  adaptAppStore(t, s3);
  base = await t.listen();
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
  if (t?.runtime.store instanceof S3BlobStore) t.runtime.store.close();
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const filePart = async (file: string, filename = path.basename(file)): Promise<FormPart> => ({
  filename,
  data: await readFile(file),
});

async function snapshot(): Promise<{ rows: number; objects: string[] }> {
  return { rows: await uploadRowCount(t), objects: await storedFiles(t) };
}
async function expectNothingLeft(before: { rows: number; objects: string[] }): Promise<void> {
  await eventually(async () => JSON.stringify(await snapshot()) === JSON.stringify(before));
  expect(await snapshot()).toEqual(before);
}

/** GETs a presigned URL without any key; returns status, headers and body. */
async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe("uploads on S3 storage", () => {
  it("streams several files to the bucket (multipart for the large one), probed through presigned URLs", async () => {
    const a = await t.createAccount();
    const longHash = createHash("sha256");
    for await (const c of paddedMp4Stream(clip, 10 * MiB)) longHash.update(c as Buffer);
    const longDigest = longHash.digest("hex");

    const res = await postMultipart(
      base,
      [
        await filePart(fx.video),
        await filePart(fx.png),
        await filePart(fx.srt),
        { filename: "long.mp4", data: paddedMp4Stream(clip, 10 * MiB) },
      ],
      { key: a.key },
    );
    expect(res.status, res.text).toBe(201);
    const [video, image, srt, long] = res.body.data as [UploadJson, UploadJson, UploadJson, UploadJson];
    expect(video).toMatchObject({
      type: "video",
      mimeType: "video/mp4",
      size: clip.length,
      sha256: sha256(clip),
    });
    expect(video.media).toMatchObject({
      width: 320,
      height: 240,
      fps: 25,
      videoCodec: "h264",
      hasAudio: true,
    });
    expect(image).toMatchObject({ type: "image", media: { width: 1200, height: 800 } });
    expect(srt).toMatchObject({ type: "subtitle", media: null, posterUrl: null });
    expect(long).toMatchObject({ type: "video", size: 10 * MiB, sha256: longDigest, media: { width: 320 } });

    expect(await storedFiles(t)).toEqual(
      [
        ...[video, image, long].map((u) => `uploads/${u.id}/poster.jpg`),
        ...[video, image, srt, long].map((u) => `uploads/${u.id}/original`),
      ].sort(),
    );

    // Presigned GETs: no key, the sniffed type, the client's name, byte ranges.
    const url = new URL(video.url);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.searchParams.get("X-Amz-Expires")).toBe(String(24 * 3600));
    const whole = await get(video.url);
    expect(whole.status).toBe(200);
    expect(whole.body).toEqual(clip);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("content-disposition")).toBe('inline; filename="video.mp4"');
    const part = await get(long.url, { range: "bytes=9000000-9000099" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 9000000-9000099/${10 * MiB}`);
    expect(part.body.length).toBe(100);
    const poster = await get(video.posterUrl as string);
    expect(poster.status).toBe(200);
    expect(poster.body.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const tampered = new URL(video.url);
    const sig = tampered.searchParams.get("X-Amz-Signature") as string;
    tampered.searchParams.set("X-Amz-Signature", `${sig[0] === "a" ? "b" : "a"}${sig.slice(1)}`);
    expect((await get(tampered.toString())).status).toBe(403);

    // Fetch signs again; delete removes every object of the upload.
    const got = await fetch(`${base}/api/v1/uploads/${long.id}`, { headers: bearer(a.key) });
    expect(((await got.json()) as UploadJson).url).toMatch(new RegExp(`^${s3.endpoint}/`));
    const del = await fetch(`${base}/api/v1/uploads/${long.id}`, {
      method: "DELETE",
      headers: bearer(a.key),
    });
    expect(del.status).toBe(204);
    expect((await storedFiles(t)).filter((k) => k.includes(long.id))).toEqual([]);
    expect((await get(long.url)).status).toBe(404);
    const again = await fetch(`${base}/api/v1/uploads/${long.id}`, {
      method: "DELETE",
      headers: bearer(a.key),
    });
    expect(again.status).toBe(204);
  });

  it("is all or nothing: a disguised executable after good files leaves no object", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    const res = await postMultipart(
      base,
      [await filePart(fx.video), await filePart(fx.png), await filePart(fx.elfAsMp4, "evil.mp4")],
      { key: a.key },
    );
    expect(res.status).toBe(415);
    expect(res.body.error?.message).toContain('"evil.mp4"');
    await expectNothingLeft(before);
  });

  it("answers 413 naming the file while the client is still sending, leaving no object", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    const res = await postMultipart(
      base,
      [await filePart(fx.srt), { filename: "big.mp4", data: paddedMp4Stream(clip, 1024 * MiB) }],
      { key: a.key },
    );
    expect(res.status, res.text).toBe(413);
    expect(res.body.error).toMatchObject({
      code: "payload_too_large",
      message: 'File "big.mp4" is larger than the 12 MB limit',
    });
    expect(res.finished).toBe(false);
    expect(res.sentAtResponse).toBeLessThan(LIMIT + 128 * MiB);
    await expectNothingLeft(before);
  });

  it("keeps nothing when the client aborts mid-upload", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    async function* second(): AsyncGenerator<Buffer> {
      // Only once the first file is in the bucket.
      await eventually(async () => (await storedFiles(t)).length > before.objects.length);
      yield* paddedMp4Stream(clip, 11 * MiB);
    }
    const res = await postMultipart(
      base,
      [
        { filename: "first.mp4", data: clip },
        { filename: "second.mp4", data: Readable.from(second()) },
      ],
      { key: a.key, abortAfterBytes: clip.length + 9 * MiB },
    );
    expect(res.status).toBe(0);
    await expectNothingLeft(before);
  });
});
