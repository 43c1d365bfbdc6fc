import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertUser } from "../../src/db/repositories/users.ts";
import { createUploads } from "../../src/domain/uploads/create-uploads.ts";
import { type Fixtures, makeFixtures } from "../../src/domain/uploads/test-fixtures.ts";
import { LocalDiskStore } from "../../src/storage/local-disk.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { filesUnder } from "../helpers/files.ts";

let dir: string;
let fx: Fixtures;
let testDb: TestDatabase;
let store: LocalDiskStore;
let userId: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-create-uploads-"));
  fx = await makeFixtures(dir);
  testDb = await createTestDatabase();
  store = new LocalDiskStore({
    dir: path.join(dir, "blobs"),
    publicBaseUrl: "http://localhost:3000",
    secret: "x".repeat(43),
  });
  userId = (
    await insertUser(testDb.database.db, {
      email: `u${randomBytes(3).toString("hex")}@example.test`,
      name: "U",
      plan: "standard",
    })
  ).id;
});
afterAll(async () => {
  await testDb.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe("createUploads (jobs' and assistants' path to an upload)", () => {
  it("a local file and bytes in memory become probed uploads with posters, in order", async () => {
    const png = await readFile(fx.png);
    const rows = await createUploads({ db: testDb.database.db, store }, { userId, projectId: null }, [
      { path: fx.video, filename: "clip.mp4" },
      { data: new Uint8Array(png), filename: "still.png" },
    ]);
    expect(rows.map((r) => [r.name, r.type, r.mimeType])).toEqual([
      ["clip.mp4", "video", "video/mp4"],
      ["still.png", "image", "image/png"],
    ]);
    expect(rows[1]?.media).toMatchObject({ width: 1200, height: 800 });
    expect(rows.every((r) => r.posterKey)).toBe(true);
    const stored = await filesUnder(store.dir);
    for (const r of rows) expect(stored).toEqual(expect.arrayContaining([r.storageKey, r.posterKey]));
    expect(await readFile(store.localPath(rows[1]?.storageKey as string) as string)).toEqual(png);
  });

  it("one bad file: 415 naming it and nothing stored or inserted", async () => {
    const before = await filesUnder(store.dir);
    await expect(
      createUploads({ db: testDb.database.db, store }, { userId, projectId: null }, [
        { path: fx.jpeg, filename: "ok.jpg" },
        { path: fx.random, filename: "noise.bin" },
      ]),
    ).rejects.toMatchObject({ status: 415, message: expect.stringContaining("noise.bin") });
    expect(await filesUnder(store.dir)).toEqual(before);
  });

  it("a failed insert deletes the stored objects", async () => {
    const before = await filesUnder(store.dir);
    await expect(
      createUploads({ db: testDb.database.db, store }, { userId: "usr_missing", projectId: null }, [
        { path: fx.jpeg, filename: "orphan.jpg" },
      ]),
    ).rejects.toThrow();
    expect(await filesUnder(store.dir)).toEqual(before);
  });
});
