// The render cache against a real database and the local store: an entry exists only once its
// file is stored whole, lookups stay inside one account, and the least recently used entries
// beyond the cap are evicted with their files.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { touchCacheEntries } from "../../src/db/repositories/render-cache.ts";
import { insertUser } from "../../src/db/repositories/users.ts";
import { renderCacheEntries } from "../../src/db/schema/render-cache.ts";
import { keepPartInCache, type RenderCacheDeps } from "../../src/domain/render-jobs/render-cache.ts";
import type { BlobStore } from "../../src/storage/blob-store.ts";
import { renderCacheKey } from "../../src/storage/keys.ts";
import { LocalDiskStore } from "../../src/storage/local-disk.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let testDb: TestDatabase;
let dir = "";
let store: LocalDiskStore;
let file = "";
let now = new Date("2026-01-01T00:00:00Z");
const log = pino({ level: "silent" });

const deps = (capBytes: number, over: Partial<RenderCacheDeps> = {}): RenderCacheDeps => ({
  db: testDb.database.db,
  store,
  clock: { now: () => now },
  log,
  capBytes,
  ...over,
});

const user = async (email: string) =>
  (await insertUser(testDb.database.db, { email, name: email, plan: "standard" })).id;

const keyOf = (n: number) => n.toString(16).padStart(64, "0");

beforeAll(async () => {
  testDb = await createTestDatabase();
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-render-cache-"));
  store = new LocalDiskStore({
    dir: path.join(dir, "blobs"),
    publicBaseUrl: "http://localhost",
    secret: "x".repeat(32),
  });
  file = path.join(dir, "part.mp4");
  await writeFile(file, Buffer.alloc(100, 7));
}, 60_000);

afterAll(async () => {
  await testDb?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe("the render cache", () => {
  it("writes no entry when storing the file fails, and finds an entry in its own account only", async () => {
    const [a, b] = [await user("a@example.test"), await user("b@example.test")];
    const failing: BlobStore = Object.create(store, {
      putFile: { value: async () => Promise.reject(new Error("disk full")) },
    });
    await keepPartInCache(deps(10_000, { store: failing }), a, { key: keyOf(1), uploadIds: [] }, file);
    expect(await touchCacheEntries(testDb.database.db, a, [keyOf(1)], now)).toEqual(new Set());

    await keepPartInCache(deps(10_000), a, { key: keyOf(1), uploadIds: ["upl_x"] }, file);
    expect(await touchCacheEntries(testDb.database.db, a, [keyOf(1)], now)).toEqual(new Set([keyOf(1)]));
    expect(await touchCacheEntries(testDb.database.db, b, [keyOf(1)], now)).toEqual(new Set());
    expect((await store.stat(renderCacheKey(a, keyOf(1))))?.size).toBe(100);
  });

  it("evicts the least recently used entries beyond the cap, over every account, with their files", async () => {
    const db = testDb.database.db;
    await db.delete(renderCacheEntries);
    const [a, b] = [await user("c@example.test"), await user("d@example.test")];
    // 100 bytes each, a cap of 250: at most two are kept.
    now = new Date("2026-01-02T00:00:00Z");
    await keepPartInCache(deps(250), a, { key: keyOf(10), uploadIds: [] }, file);
    now = new Date("2026-01-02T00:01:00Z");
    await keepPartInCache(deps(250), b, { key: keyOf(11), uploadIds: [] }, file);
    // Used again: now the most recent.
    now = new Date("2026-01-02T00:02:00Z");
    await touchCacheEntries(db, a, [keyOf(10)], now);
    now = new Date("2026-01-02T00:03:00Z");
    await keepPartInCache(deps(250), a, { key: keyOf(12), uploadIds: [] }, file);

    const left = await db.select().from(renderCacheEntries);
    expect(left.map((e) => e.key).sort()).toEqual([keyOf(10), keyOf(12)]);
    expect(await store.stat(renderCacheKey(b, keyOf(11)))).toBeNull();
    expect(await store.stat(renderCacheKey(a, keyOf(10)))).not.toBeNull();
  });
});
