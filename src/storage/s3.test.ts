import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestS3Store, type S3TestServer, startS3Server } from "../../test/helpers/s3-server.ts";
import { createBlobStore } from "./create-blob-store.ts";
import type { S3BlobStore } from "./s3.ts";

let s3: S3TestServer;
let store: S3BlobStore;
let tmp: string;
const sentCommands: string[] = [];

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function listKeys(prefix = ""): Promise<string[]> {
  const res = await store.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (res.Contents ?? []).map((o) => o.Key ?? "").sort();
}

beforeAll(async () => {
  s3 = await startS3Server();
  store = createTestS3Store(s3, { partSizeBytes: 5 * 1024 * 1024 });
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      sentCommands.push(String(context.commandName));
      return next(args);
    },
    { step: "initialize", name: "recordCommands" },
  );
  tmp = await mkdtemp(path.join(os.tmpdir(), "cutroom-s3-test-"));
});

afterAll(async () => {
  store?.close();
  await s3?.stop();
  await rm(tmp, { recursive: true, force: true });
});

describe("S3BlobStore against a real S3 server (s3rver)", () => {
  it("createBlobStore picks the S3 driver", async () => {
    const created = await createBlobStore({ driver: "s3", ...s3.storeOptions });
    expect(created.driver).toBe("s3");
    expect(created.localPath("uploads/x/original")).toBeNull();
    if (created.driver === "s3") created.close();
  });

  it("signs client URLs for publicEndpoint and internal ones for endpoint", async () => {
    const split = createTestS3Store(s3, { publicEndpoint: "https://media.example.com" });
    const pub = await split.signedUrl("uploads/x/original", { expiresInSec: 60 });
    const own = await split.signedUrl("uploads/x/original", { expiresInSec: 60, internal: true });
    expect(new URL(pub.url).origin).toBe("https://media.example.com");
    expect(new URL(own.url).origin).toBe(s3.endpoint);
    split.close();
  });

  it("keyOfUrl names the key of its own presigned URLs, and null for any other URL", async () => {
    const split = createTestS3Store(s3, { publicEndpoint: "https://media.example.com" });
    const pub = await split.signedUrl("uploads/upl_1/original", { expiresInSec: 60 });
    expect(await split.keyOfUrl(pub.url)).toBe("uploads/upl_1/original");
    const own = await split.signedUrl("uploads/upl_1/original", { expiresInSec: 60, internal: true });
    expect(await split.keyOfUrl(own.url)).toBeNull();
    expect(await split.keyOfUrl("https://cdn.example.com/uploads/upl_1/original")).toBeNull();
    expect(await split.keyOfUrl("not a url")).toBeNull();
    split.close();
  });

  it("puts a small object, stats, reads, ranges, deletes idempotently", async () => {
    const data = randomBytes(50_000);
    expect(
      await store.put("uploads/s1/original", Readable.from([data]), { contentType: "video/mp4" }),
    ).toEqual({
      size: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
    });
    const info = await store.stat("uploads/s1/original");
    expect(info).toMatchObject({ size: data.length, contentType: "video/mp4" });
    expect(await readAll(await store.openRead("uploads/s1/original"))).toEqual(data);
    expect(await readAll(await store.openRead("uploads/s1/original", { start: 5, end: 14 }))).toEqual(
      data.subarray(5, 15),
    );
    await store.delete("uploads/s1/original");
    await store.delete("uploads/s1/original");
    expect(await store.stat("uploads/s1/original")).toBeNull();
    await expect(store.openRead("uploads/s1/original")).rejects.toMatchObject({ status: 404 });
  });

  it("streams a multi-part object (3 parts of 5 MiB) intact", async () => {
    const data = randomBytes(12 * 1024 * 1024);
    const chunks = Array.from({ length: 48 }, (_, i) => data.subarray(i * 262_144, (i + 1) * 262_144));
    sentCommands.length = 0;
    expect(
      await store.put("uploads/s2/original", Readable.from(chunks), { contentType: "video/mp4" }),
    ).toEqual({
      size: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
    });
    expect(sentCommands.filter((c) => c === "UploadPartCommand")).toHaveLength(3);
    expect(await readAll(await store.openRead("uploads/s2/original"))).toEqual(data);
    await store.delete("uploads/s2/original");
  });

  it("keeps no object when the body fails mid multipart upload, and aborts the upload", async () => {
    async function* failing() {
      yield randomBytes(6 * 1024 * 1024);
      yield randomBytes(6 * 1024 * 1024);
      throw new Error("client went away");
    }
    sentCommands.length = 0;
    await expect(
      store.put("uploads/s3/original", Readable.from(failing()), { contentType: "video/mp4" }),
    ).rejects.toThrow("client went away");
    expect(sentCommands).toContain("CreateMultipartUploadCommand");
    // s3rver does not implement AbortMultipartUpload (real S3 / MinIO do); the attempt is what we check.
    expect(sentCommands).toContain("AbortMultipartUploadCommand");
    expect(sentCommands).not.toContain("CompleteMultipartUploadCommand");
    expect(await listKeys("uploads/s3/")).toEqual([]);
  });

  it("keeps no object when the signal aborts", async () => {
    const ac = new AbortController();
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += 1024 * 1024;
        if (sent > 7 * 1024 * 1024) ac.abort(new Error("aborted by test"));
        this.push(Buffer.alloc(1024 * 1024));
      },
    });
    await expect(
      store.put("uploads/s4/original", endless, { contentType: "video/mp4", signal: ac.signal }),
    ).rejects.toThrow("aborted by test");
    expect(endless.destroyed).toBe(true);
    expect(await listKeys("uploads/s4/")).toEqual([]);
  });

  it("deletePrefix removes one upload folder and nothing else", async () => {
    for (const k of ["uploads/p1/original", "uploads/p1/poster.jpg", "uploads/p10/original"]) {
      await store.put(k, Readable.from([Buffer.from(k)]), { contentType: "application/octet-stream" });
    }
    expect(await store.deletePrefix("uploads/p1/")).toBe(2);
    expect(await listKeys("uploads/p1")).toEqual(["uploads/p10/original"]);
    expect(await store.deletePrefix("uploads/p10/")).toBe(1);
  });

  it("putFile and downloadTo copy whole files", async () => {
    const data = randomBytes(200_000);
    const src = path.join(tmp, "src.bin");
    await writeFile(src, data);
    expect(await store.putFile("renders/r1/output.mp4", src, { contentType: "video/mp4" })).toEqual({
      size: data.length,
    });
    const dest = path.join(tmp, "dest.bin");
    await store.downloadTo("renders/r1/output.mp4", dest);
    expect(await readFile(dest)).toEqual(data);
    await expect(store.downloadTo("renders/none/output.mp4", dest)).rejects.toMatchObject({ status: 404 });
    expect(await readFile(src)).toEqual(data);
    // Handed over with `move`: uploaded, then the local file is removed.
    await store.putFile("renders/r1/output.mp4", src, { contentType: "video/mp4", move: true });
    await expect(readFile(src)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await store.stat("renders/r1/output.mp4"))?.size).toBe(data.length);
    await store.delete("renders/r1/output.mp4");
  });

  it("presigned URLs work without credentials, carry type and disposition, and reject tampering and expiry", async () => {
    const data = randomBytes(1000);
    await store.put("uploads/s5/original", Readable.from([data]), {
      contentType: "application/octet-stream",
    });
    const { url, expiresAt } = await store.signedUrl("uploads/s5/original", {
      expiresInSec: 600,
      contentType: "video/mp4",
      filename: "clip.mp4",
    });
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now() + 590_000);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(data);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-disposition")).toBe('inline; filename="clip.mp4"');

    const ranged = await fetch(url, { headers: { range: "bytes=10-19" } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(data.subarray(10, 20));

    const u = new URL(url);
    const sig = u.searchParams.get("X-Amz-Signature") ?? "";
    u.searchParams.set("X-Amz-Signature", (sig[0] === "a" ? "b" : "a") + sig.slice(1));
    expect((await fetch(u)).status).toBe(403);
    const otherKey = url.replace("/uploads/s5/", "/uploads/s6/");
    expect((await fetch(otherKey)).status).toBe(403);

    const short = await store.signedUrl("uploads/s5/original", { expiresInSec: 1 });
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fetch(short.url)).status).toBe(403);
    await expect(store.signedUrl("uploads/s5/original", { expiresInSec: 8 * 86_400 })).rejects.toThrow(
      /7 days|604800/,
    );
  });
});
