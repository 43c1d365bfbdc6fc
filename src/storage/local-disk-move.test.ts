import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { filesUnder } from "../../test/helpers/files.ts";
import { LocalDiskStore } from "./local-disk.ts";

/**
 * Faults injected into the store's file operations: `rename` can fail for a chosen source (a
 * cross-device move is `EXDEV`), `copyFile` can write part of the file and then fail.
 */
const faults = vi.hoisted(() => ({
  renameError: null as null | { from: string; code: string },
  copyFailsAfter: null as null | number,
}));

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const fail = (code: string) => Object.assign(new Error(`${code} (injected)`), { code });
  return {
    ...real,
    async rename(from: string, to: string) {
      if (faults.renameError && from === faults.renameError.from) throw fail(faults.renameError.code);
      return real.rename(from, to);
    },
    async copyFile(from: string, to: string, mode?: number) {
      if (faults.copyFailsAfter === null) return real.copyFile(from, to, mode);
      await real.writeFile(to, (await real.readFile(from)).subarray(0, faults.copyFailsAfter));
      throw fail("ENOSPC");
    },
  };
});

let root: string;
let store: LocalDiskStore;
let src: string;
const data = randomBytes(300_000);
const key = "renders/rnd_1/output.mp4";

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cutroom-move-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  const dir = path.join(root, randomBytes(4).toString("hex"));
  store = new LocalDiskStore({
    dir: path.join(dir, "blobs"),
    publicBaseUrl: "http://localhost:3000",
    secret: "k".repeat(43),
  });
  src = path.join(dir, "work", "output.mp4");
  await mkdir(path.dirname(src), { recursive: true });
  await writeFile(src, data);
});
afterEach(() => {
  faults.renameError = null;
  faults.copyFailsAfter = null;
});

describe("LocalDiskStore.putFile with move", () => {
  it("renames the file into place on the same filesystem: no copy, the source is gone", async () => {
    const before = await stat(src);
    expect(await store.putFile(key, src, { contentType: "video/mp4", move: true })).toEqual({
      size: data.length,
    });
    await expect(stat(src)).rejects.toMatchObject({ code: "ENOENT" });
    const stored = await stat(store.localPath(key));
    expect(stored.ino).toBe(before.ino);
    expect(await readFile(store.localPath(key))).toEqual(data);
    expect(await filesUnder(store.dir)).toEqual([key]);
  });

  it("replaces an object already under the key", async () => {
    const old = path.join(path.dirname(src), "old.mp4");
    await writeFile(old, "old");
    await store.putFile(key, old, { contentType: "video/mp4" });
    await store.putFile(key, src, { contentType: "video/mp4", move: true });
    expect(await readFile(store.localPath(key))).toEqual(data);
    expect(await filesUnder(store.dir)).toEqual([key]);
  });

  it("copies and then removes the source across filesystems (EXDEV)", async () => {
    faults.renameError = { from: src, code: "EXDEV" };
    expect(await store.putFile(key, src, { contentType: "video/mp4", move: true })).toEqual({
      size: data.length,
    });
    await expect(stat(src)).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readFile(store.localPath(key))).toEqual(data);
    // The copy went through a temp file that was renamed into place: nothing else is left.
    expect(await filesUnder(store.dir)).toEqual([key]);
  });

  it("keeps nothing and leaves the source when the cross-device copy fails midway", async () => {
    faults.renameError = { from: src, code: "EXDEV" };
    faults.copyFailsAfter = 1000;
    await expect(store.putFile(key, src, { contentType: "video/mp4", move: true })).rejects.toMatchObject({
      code: "ENOSPC",
    });
    expect(await store.stat(key)).toBeNull();
    expect(await filesUnder(store.dir)).toEqual([]);
    expect(await readFile(src)).toEqual(data);
  });

  it("keeps nothing and leaves the source when the rename fails otherwise", async () => {
    faults.renameError = { from: src, code: "EACCES" };
    await expect(store.putFile(key, src, { contentType: "video/mp4", move: true })).rejects.toMatchObject({
      code: "EACCES",
    });
    expect(await store.stat(key)).toBeNull();
    expect(await filesUnder(store.dir)).toEqual([]);
    expect(await readFile(src)).toEqual(data);
  });

  it("without move copies: the source stays", async () => {
    await store.putFile(key, src, { contentType: "video/mp4" });
    expect(await readFile(src)).toEqual(data);
    expect(await readFile(store.localPath(key))).toEqual(data);
  });

  it("fails on a missing source without creating anything", async () => {
    await expect(
      store.putFile(key, path.join(root, "missing.mp4"), { contentType: "video/mp4", move: true }),
    ).rejects.toMatchObject({ code: "ENOENT" });
    expect(await filesUnder(store.dir)).toEqual([]);
  });
});
