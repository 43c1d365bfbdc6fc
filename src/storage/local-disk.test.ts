import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { filesUnder } from "../../test/helpers/files.ts";
import { AppError } from "../errors.ts";
import { createBlobStore } from "./create-blob-store.ts";
import type { LocalDiskStore } from "./local-disk.ts";
import { serveSignedFile } from "./serve-signed-file.ts";

const secret = "k".repeat(43);
let root: string;
let store: LocalDiskStore;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cutroom-local-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  const dir = path.join(root, randomBytes(4).toString("hex"));
  const created = await createBlobStore({
    driver: "local",
    dir,
    publicBaseUrl: "http://localhost:3000",
    secret,
  });
  if (created.driver !== "local") throw new Error("expected local");
  store = created;
});

describe("LocalDiskStore", () => {
  const data = randomBytes(100_000);

  it("puts, stats, reads whole and ranges, deletes idempotently", async () => {
    const { size, sha256 } = await store.put("uploads/u1/original", Readable.from([data]), {
      contentType: "video/mp4",
    });
    expect(size).toBe(data.length);
    expect(sha256).toBe(createHash("sha256").update(data).digest("hex"));
    expect((await store.stat("uploads/u1/original"))?.size).toBe(data.length);
    expect(await readAll(await store.openRead("uploads/u1/original"))).toEqual(data);
    expect(await readAll(await store.openRead("uploads/u1/original", { start: 10, end: 19 }))).toEqual(
      data.subarray(10, 20),
    );
    expect(store.localPath("uploads/u1/original")).toBe(path.join(store.dir, "uploads/u1/original"));
    await store.delete("uploads/u1/original");
    await store.delete("uploads/u1/original");
    expect(await store.stat("uploads/u1/original")).toBeNull();
    await expect(store.openRead("uploads/u1/original")).rejects.toMatchObject({ status: 404 });
    expect(await filesUnder(store.dir)).toEqual([]);
    // empty folders are pruned too
    expect(await readdir(store.dir)).toEqual([]);
  });

  it("replaces an object atomically", async () => {
    await store.put("a/b", Readable.from([Buffer.from("one")]), { contentType: "text/plain" });
    await store.put("a/b", Readable.from([Buffer.from("two!")]), { contentType: "text/plain" });
    expect((await readAll(await store.openRead("a/b"))).toString()).toBe("two!");
    expect(await filesUnder(store.dir)).toEqual(["a/b"]);
  });

  it("deletePrefix removes one upload folder and nothing else", async () => {
    for (const k of ["uploads/u1/original", "uploads/u1/poster.jpg", "uploads/u10/original"]) {
      await store.put(k, Readable.from([data]), { contentType: "application/octet-stream" });
    }
    expect(await store.deletePrefix("uploads/u1/")).toBe(2);
    expect(await store.deletePrefix("uploads/u1/")).toBe(0);
    expect(await filesUnder(store.dir)).toEqual(["uploads/u10/original"]);
    await expect(store.deletePrefix("uploads/u1")).rejects.toThrow(/Invalid storage prefix/);
  });

  it("keeps nothing when the body fails mid-way (no object, no temp file)", async () => {
    async function* failing() {
      yield randomBytes(70_000);
      yield randomBytes(70_000);
      throw new Error("client went away");
    }
    await expect(
      store.put("uploads/u2/original", Readable.from(failing()), { contentType: "video/mp4" }),
    ).rejects.toThrow("client went away");
    expect(await filesUnder(store.dir)).toEqual([]);
  });

  it("keeps nothing when the signal aborts mid-way", async () => {
    const ac = new AbortController();
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += 65_536;
        if (sent > 1_000_000) ac.abort(new Error("aborted by test"));
        this.push(Buffer.alloc(65_536));
      },
    });
    await expect(
      store.put("uploads/u3/original", endless, { contentType: "video/mp4", signal: ac.signal }),
    ).rejects.toThrow();
    expect(endless.destroyed).toBe(true);
    expect(await filesUnder(store.dir)).toEqual([]);
  });

  it("with transferChunks, takes over chunks that own their memory and stores the same bytes", async () => {
    const chunks = [new Uint8Array(randomBytes(300_000)), randomBytes(1000).subarray(1, 999)];
    const expected = Buffer.concat(chunks);
    const { size, sha256 } = await store.put("uploads/u4/original", Readable.from(chunks), {
      contentType: "video/mp4",
      transferChunks: true,
    });
    expect({ size, sha256 }).toEqual({
      size: expected.length,
      sha256: createHash("sha256").update(expected).digest("hex"),
    });
    expect(await readFile(store.localPath("uploads/u4/original"))).toEqual(expected);
    expect(chunks.map((c) => c.byteLength)).toEqual([0, 998]); // moved, copied
    await store.delete("uploads/u4/original");
  });

  it("putFile and downloadTo copy whole files", async () => {
    const src = path.join(root, "src.bin");
    await writeFile(src, data);
    expect(await store.putFile("renders/r1/output.mp4", src, { contentType: "video/mp4" })).toEqual({
      size: data.length,
    });
    const dest = path.join(root, "dest.bin");
    await store.downloadTo("renders/r1/output.mp4", dest);
    expect(await readFile(dest)).toEqual(data);
    await expect(store.downloadTo("renders/none/output.mp4", dest)).rejects.toMatchObject({ status: 404 });
  });

  it("refuses keys that could escape the root", async () => {
    for (const bad of ["../x", "a/../../x", "/etc/passwd", "a//b", ".hidden", "a/.tmp", "", "a\\b", "a/b/"]) {
      await expect(store.put(bad, Readable.from([data]), { contentType: "x/y" }), bad).rejects.toThrow(
        /Invalid storage key/,
      );
      expect(() => store.localPath(bad)).toThrow(/Invalid storage key/);
    }
  });

  it("sweeps stale temp files only", async () => {
    await store.put("a/b", Readable.from([data]), { contentType: "x/y" });
    const stale = path.join(store.dir, "a", ".b.123456.tmp");
    const fresh = path.join(store.dir, "a", ".b.abcdef.tmp");
    await writeFile(stale, "x");
    await writeFile(fresh, "x");
    const old = new Date(Date.now() - 2 * 3600_000);
    await utimes(stale, old, old);
    expect(await store.sweepTempFiles(3600_000)).toBe(1);
    expect(await filesUnder(store.dir)).toEqual(["a/.b.abcdef.tmp", "a/b"]);
  });
});

describe("sweepTempFilesEvery", () => {
  it("removes a stale temp file at start and one left later at the next sweep, until stopped", async () => {
    await store.put("a/b", Readable.from([Buffer.from("x")]), { contentType: "x/y" });
    const old = new Date(Date.now() - 2 * 3600_000);
    const staleTemp = async (name: string) => {
      const file = path.join(store.dir, "a", name);
      await writeFile(file, "x");
      await utimes(file, old, old);
    };
    await staleTemp(".b.111111.tmp");
    const stop = store.sweepTempFilesEvery(50, 3600_000, (err) => {
      throw err;
    });
    try {
      await expect.poll(() => filesUnder(store.dir)).toEqual(["a/b"]);
      await staleTemp(".b.222222.tmp");
      await expect.poll(() => filesUnder(store.dir)).toEqual(["a/b"]);
    } finally {
      stop();
    }
    await staleTemp(".b.333333.tmp");
    await new Promise((r) => setTimeout(r, 200));
    expect(await filesUnder(store.dir)).toEqual(["a/.b.333333.tmp", "a/b"]);
  });
});

describe("serveSignedFile (GET /files/*)", () => {
  let app: FastifyInstance;
  const body = randomBytes(10_000);

  beforeEach(async () => {
    await store.put("uploads/u1/original", Readable.from([body]), { contentType: "video/mp4" });
    app = Fastify();
    app.setErrorHandler((err, _req, reply) => {
      const status = err instanceof AppError ? err.status : 500;
      return reply
        .code(status)
        .send({ error: { code: err instanceof AppError ? err.code : "internal_error" } });
    });
    app.get("/files/*", (req, reply) => serveSignedFile(store, req, reply));
    await app.ready();
  });

  const pathOf = (url: string) => {
    const u = new URL(url);
    return u.pathname + u.search;
  };

  it("serves the whole file with safe headers", async () => {
    const { url } = await store.signedUrl("uploads/u1/original", {
      expiresInSec: 600,
      contentType: "video/mp4",
      filename: "clip.mp4",
    });
    expect(url.startsWith("http://localhost:3000/files/uploads/u1/original?")).toBe(true);
    const res = await app.inject({ method: "GET", url: pathOf(url) });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload).toEqual(body);
    expect(res.headers["content-type"]).toBe("video/mp4");
    expect(res.headers["content-length"]).toBe(String(body.length));
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["accept-ranges"]).toBe("bytes");
    expect(res.headers["content-disposition"]).toBe('inline; filename="clip.mp4"');
    expect(res.headers["cache-control"]).toMatch(/^private, max-age=(59\d|600)$/);
  });

  it("answers ranges with 206 and unsatisfiable ranges with 416", async () => {
    const { url } = await store.signedUrl("uploads/u1/original", {
      expiresInSec: 600,
      contentType: "video/mp4",
    });
    const partial = await app.inject({
      method: "GET",
      url: pathOf(url),
      headers: { range: "bytes=100-199" },
    });
    expect(partial.statusCode).toBe(206);
    expect(partial.headers["content-range"]).toBe(`bytes 100-199/${body.length}`);
    expect(partial.headers["content-length"]).toBe("100");
    expect(partial.rawPayload).toEqual(body.subarray(100, 200));
    const tail = await app.inject({ method: "GET", url: pathOf(url), headers: { range: "bytes=-10" } });
    expect(tail.rawPayload).toEqual(body.subarray(body.length - 10));
    const bad = await app.inject({ method: "GET", url: pathOf(url), headers: { range: "bytes=20000-" } });
    expect(bad.statusCode).toBe(416);
    expect(bad.headers["content-range"]).toBe(`bytes */${body.length}`);
  });

  it("serves anything a browser could execute as an attachment, default type octet-stream", async () => {
    const html = await store.signedUrl("uploads/u1/original", { expiresInSec: 60, contentType: "text/html" });
    const res = await app.inject({ method: "GET", url: pathOf(html.url) });
    expect(res.headers["content-disposition"]).toBe("attachment");
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const none = await store.signedUrl("uploads/u1/original", { expiresInSec: 60 });
    const res2 = await app.inject({ method: "GET", url: pathOf(none.url) });
    expect(res2.headers["content-type"]).toBe("application/octet-stream");
    expect(res2.headers["content-disposition"]).toBe("attachment");
  });

  it("rejects tampered, missing and expired signatures with 403, deleted files with 404", async () => {
    const { url } = await store.signedUrl("uploads/u1/original", {
      expiresInSec: 600,
      contentType: "video/mp4",
    });
    const tampered = pathOf(url).replace("ct=video%2Fmp4", "ct=text%2Fhtml");
    expect((await app.inject({ method: "GET", url: tampered })).statusCode).toBe(403);
    expect((await app.inject({ method: "GET", url: "/files/uploads/u1/original" })).statusCode).toBe(403);
    const other = pathOf(url).replace("/u1/", "/u2/");
    expect((await app.inject({ method: "GET", url: other })).statusCode).toBe(403);
    const traversal = pathOf(url).replace(
      "/files/uploads/u1/original",
      "/files/uploads/u1/../../../etc/passwd",
    );
    expect([403, 404]).toContain((await app.inject({ method: "GET", url: traversal })).statusCode);

    const expired = store.signer.sign("uploads/u1/original", { expiresInSec: 1 }, Date.now() - 10_000);
    expect((await app.inject({ method: "GET", url: pathOf(expired.url) })).statusCode).toBe(403);

    await store.delete("uploads/u1/original");
    expect((await app.inject({ method: "GET", url: pathOf(url) })).statusCode).toBe(404);
  });

  it("closes the file when the client goes away", async () => {
    const big = randomBytes(4 * 1024 * 1024);
    await store.put("uploads/u9/original", Readable.from([big]), { contentType: "video/mp4" });
    const { url } = await store.signedUrl("uploads/u9/original", {
      expiresInSec: 60,
      contentType: "video/mp4",
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    const ac = new AbortController();
    const res = await fetch(`http://127.0.0.1:${address.port}${pathOf(url)}`, { signal: ac.signal });
    expect(res.status).toBe(200);
    ac.abort();
    await app.close();
    // The object is still there and can be deleted (no handle kept it busy).
    await store.delete("uploads/u9/original");
    expect(await stat(path.join(store.dir, "uploads/u9/original")).catch(() => null)).toBeNull();
  });
});
