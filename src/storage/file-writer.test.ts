import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, mkdtemp, open, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeToFile } from "./file-writer.ts";

let dir: string;
let handles: FileHandle[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-writer-"));
});
afterEach(async () => {
  await Promise.all(handles.map((h) => h.close().catch(() => {})));
  handles = [];
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function openFile(name: string, flags = "wx"): Promise<{ file: string; handle: FileHandle }> {
  const file = path.join(dir, name);
  const handle = await open(file, flags);
  handles.push(handle);
  return { file, handle };
}

describe("writeToFile", () => {
  it("writes and hashes chunks of every shape in order, leaving the caller's buffers intact", async () => {
    const big = randomBytes(3 * 1024 * 1024 + 17);
    const chunks = [
      Buffer.from("tiny, from the shared pool"),
      big.subarray(0, 65_536),
      big.subarray(65_536, 65_537),
      big.subarray(65_537),
      new Uint8Array(randomBytes(70_000)),
    ];
    const whole = Buffer.concat(chunks);
    const { file, handle } = await openFile("copied.bin");
    const result = await writeToFile(handle.fd, Readable.from(chunks));
    expect(result).toEqual({ bytes: whole.length, sha256: sha256(whole) });
    expect((await readFile(file)).equals(whole)).toBe(true);
    expect(Buffer.concat(chunks).equals(whole)).toBe(true); // copied, not transferred
  });

  it("with transferChunks, moves chunks that own their ArrayBuffer and copies the others", async () => {
    const owned = [new Uint8Array(randomBytes(200_000)), new Uint8Array(randomBytes(65_536))];
    const shared = randomBytes(100_000);
    const view = shared.subarray(10, 50_010);
    const pooled = Buffer.from("pooled");
    const expected = Buffer.concat([owned[0] as Uint8Array, view, pooled, owned[1] as Uint8Array]);
    const { file, handle } = await openFile("moved.bin");
    const result = await writeToFile(handle.fd, Readable.from([owned[0], view, pooled, owned[1]]), {
      transferChunks: true,
    });
    expect(result).toEqual({ bytes: expected.length, sha256: sha256(expected) });
    expect((await readFile(file)).equals(expected)).toBe(true);
    // Whole-buffer chunks were handed over (detached); views and pool slices were copied.
    expect(owned.map((c) => c.byteLength)).toEqual([0, 0]);
    expect(view.byteLength).toBe(50_000);
    expect(pooled.toString()).toBe("pooled");
  });

  it("writes an empty body as an empty file", async () => {
    const { file, handle } = await openFile("empty.bin");
    expect(await writeToFile(handle.fd, Readable.from([]))).toEqual({
      bytes: 0,
      sha256: sha256(Buffer.alloc(0)),
    });
    expect((await readFile(file)).length).toBe(0);
  });

  it("keeps concurrent streams apart", async () => {
    const a = randomBytes(5 * 1024 * 1024);
    const b = randomBytes(4 * 1024 * 1024 + 3);
    const slices = (buf: Buffer) =>
      Array.from({ length: Math.ceil(buf.length / 65_536) }, (_, i) =>
        buf.subarray(i * 65_536, (i + 1) * 65_536),
      );
    const fa = await openFile("a.bin");
    const fb = await openFile("b.bin");
    const [ra, rb] = await Promise.all([
      writeToFile(fa.handle.fd, Readable.from(slices(a))),
      writeToFile(fb.handle.fd, Readable.from(slices(b))),
    ]);
    expect(ra).toEqual({ bytes: a.length, sha256: sha256(a) });
    expect(rb).toEqual({ bytes: b.length, sha256: sha256(b) });
    expect((await readFile(fa.file)).equals(a)).toBe(true);
    expect((await readFile(fb.file)).equals(b)).toBe(true);
  });

  it("rejects with the body's error and stops reading it", async () => {
    async function* failing() {
      yield randomBytes(70_000);
      throw new Error("client went away");
    }
    const body = Readable.from(failing());
    const { handle } = await openFile("failed.bin");
    await expect(writeToFile(handle.fd, body)).rejects.toThrow("client went away");
    expect(body.destroyed).toBe(true);
  });

  it("rejects with the signal's reason and destroys the body, also when aborted before", async () => {
    const ac = new AbortController();
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += 65_536;
        if (sent > 2_000_000) ac.abort(new Error("aborted by test"));
        this.push(Buffer.alloc(65_536));
      },
    });
    const { handle } = await openFile("aborted.bin");
    await expect(writeToFile(handle.fd, endless, { signal: ac.signal })).rejects.toThrow("aborted by test");
    expect(endless.destroyed).toBe(true);

    const again = Readable.from([Buffer.from("x")]);
    await expect(writeToFile(handle.fd, again, { signal: ac.signal })).rejects.toThrow("aborted by test");
    expect(again.destroyed).toBe(true);
  });

  it("fails with the write's error (here EBADF: a read-only descriptor) and destroys the body", async () => {
    const { file, handle } = await openFile("readonly.bin");
    await handle.close();
    const ro = await open(file, "r");
    handles.push(ro);
    const endless = new Readable({
      read() {
        this.push(Buffer.alloc(65_536));
      },
    });
    await expect(writeToFile(ro.fd, endless)).rejects.toMatchObject({ code: "EBADF" });
    expect(endless.destroyed).toBe(true);
  });
});
