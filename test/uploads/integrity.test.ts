// Byte-for-byte integrity of uploads over HTTP on the local-disk driver. The request body's
// chunks are handed to the store's writer thread (transferred when a chunk is one file's data
// alone, copied when it also holds multipart framing or another part); random contents make
// the multipart parser hold back boundary look-alikes between chunks. Whatever the path, the
// stored bytes and the reported SHA-256 must be exactly what was sent.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeFixtures } from "../../src/domain/uploads/test-fixtures.ts";
import type { LocalDiskStore } from "../../src/storage/local-disk.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { postMultipart, type UploadJson } from "./helpers.ts";

let t: TestApp;
let base: string;
let dir: string;
let clip: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-integrity-"));
  clip = await readFile((await makeFixtures(dir)).video);
  t = await startTestApp();
  base = await t.listen();
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A valid MP4 of `bytes` bytes: the clip, then one `free` box of random bytes (with CR/LF runs). */
function randomPaddedMp4(bytes: number): Buffer {
  const free = Buffer.alloc(8);
  free.writeUInt32BE(bytes - clip.length, 0);
  free.write("free", 4, "latin1");
  const padding = randomBytes(bytes - clip.length - 8);
  // Sprinkle CRLF and CRLF-- (the start of a multipart delimiter) so the parser keeps holding
  // bytes back across chunk boundaries.
  for (let i = 1000; i + 4 < padding.length; i += 9_973)
    padding.write(i % 2 ? "\r\n--" : "\r\n", i, "latin1");
  return Buffer.concat([clip, free, padding]);
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("upload integrity", () => {
  it("stores two random-content files of one request byte for byte, with their SHA-256", async () => {
    const { key } = await t.createAccount();
    const a = randomPaddedMp4(9 * 1024 * 1024 + 123);
    const b = randomPaddedMp4(3 * 1024 * 1024 + 7);
    const res = await postMultipart(
      base,
      [
        { filename: "a.mp4", data: a },
        { filename: "b.mp4", data: b },
      ],
      { key },
    );
    expect(res.status, res.text).toBe(201);
    const [ua, ub] = res.body.data as UploadJson[];
    expect(ua).toMatchObject({ name: "a.mp4", size: a.length, sha256: sha256(a), type: "video" });
    expect(ub).toMatchObject({ name: "b.mp4", size: b.length, sha256: sha256(b), type: "video" });
    const store = t.runtime.store as LocalDiskStore;
    const stored = async (u: UploadJson) => readFile(path.join(store.dir, "uploads", u.id, "original"));
    expect((await stored(ua as UploadJson)).equals(a)).toBe(true);
    expect((await stored(ub as UploadJson)).equals(b)).toBe(true);
  });
});
