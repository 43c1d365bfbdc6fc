// The render cache through the API: a render of the same content copies every part an earlier
// render of the same account made, another account's identical render copies nothing, and
// deleting an upload deletes the cache entries of the parts that read it, with their files.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import { renderCacheEntries } from "../../src/db/schema/render-cache.ts";
import { startWorker } from "../../src/main/job-worker.ts";
import { renderCacheKey } from "../../src/storage/keys.ts";
import { tempDir } from "../fixtures/render/media.ts";
import { frameMd5 } from "../fixtures/render/seams.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, type RenderBody } from "./helpers.ts";

const run = promisify(execFile);

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let music = "";
let stop: () => Promise<void> = async () => {};
let renders = 0;

/** 3 s of colour under a title, with a music bed from an upload or silent: 3 video parts of 1 s and the audio. */
const composition = (withMusic: boolean) => ({
  name: "cache",
  canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
  tracks: [
    { kind: "video", clips: [{ start: 0, duration: 3, asset: { type: "color", color: "#3366cc" } }] },
    {
      kind: "video",
      clips: [
        {
          start: 0.5,
          duration: 2,
          asset: { type: "text", text: "cache", style: { family: "DejaVu Sans", size: 20 } },
        },
      ],
    },
    ...(withMusic
      ? [{ kind: "audio", clips: [{ start: 0, duration: 3, asset: { type: "audio", uploadId: music } }] }]
      : []),
  ],
});

async function render(withMusic: boolean, as = api) {
  const started = await as.startRender({ composition: composition(withMusic), output: { format: "mp4" } });
  const end = (await as.pollUntilTerminal(started.id, { timeoutMs: 120_000 })).at(-1) as RenderBody;
  expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
  const file = path.join(dir, `r${++renders}.mp4`);
  await download(onServer(base, end.output?.url ?? ""), file);
  return { end, file, parts: await listRenderParts(t.database.db, end.id) };
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-cache-api-"));
  const wav = path.join(dir, "music.wav");
  await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4", "-ac", "1", wav]);
  t = await startTestApp({ worker: false });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  music = (await api.upload([wav]))[0]?.id ?? "";
  // One lossless worker splitting every render into 1 s segments.
  stop = await startWorker(
    { ...t.runtime, config: { ...t.config, renderSegmentSec: 1 } },
    { lossless: true },
  );
}, 120_000);

afterAll(async () => {
  await stop();
  await t?.close();
  await cleanup();
});

describe("the render cache through the API", () => {
  it("never reuses another account's parts, and deleting an upload deletes the entries of the parts that read it", async () => {
    const once = await render(false);
    expect(once.end.reuse).toMatchObject({ reused: 0 });
    const again = await render(false);
    expect(again.end.reuse).toEqual({ segments: 4, reused: 4, secondsSaved: 3 });
    // Every part copied by the render's own job: none was claimed by a part job.
    expect(again.parts.map((p) => [p.status, p.attempt])).toEqual(again.parts.map(() => ["succeeded", 0]));
    expect(await frameMd5(again.file)).toEqual(await frameMd5(once.file));
    // Only this account has rendered yet: every entry is its own.
    const db = t.database.db;
    const owners = new Set((await db.select().from(renderCacheEntries)).map((e) => e.userId));
    expect(owners.size).toBe(1);
    const me = [...owners][0] as string;

    const other = client(base, (await t.createAccount()).key);
    const theirs = await render(false, other);
    expect(theirs.end.reuse).toEqual({ segments: 4, reused: 0, secondsSaved: 0 });

    // With the music, only the audio part is rendered again, and its entry reads the upload.
    const scored = await render(true);
    expect(scored.end.reuse).toEqual({ segments: 4, reused: 3, secondsSaved: 3 });
    const mine = await db.select().from(renderCacheEntries).where(eq(renderCacheEntries.userId, me));
    const withMusic = mine.filter((e) => e.uploadIds.includes(music));
    expect(withMusic).toHaveLength(1);
    for (const e of withMusic)
      expect(await t.runtime.store.stat(renderCacheKey(e.userId, e.key))).not.toBeNull();
    const res = await api.json("DELETE", `/api/v1/uploads/${music}?force=true`);
    expect(res.status).toBe(204);
    const left = await db.select().from(renderCacheEntries).where(eq(renderCacheEntries.userId, me));
    expect(left.filter((e) => e.uploadIds.includes(music))).toEqual([]);
    expect(left).toHaveLength(mine.length - 1);
    for (const e of withMusic) expect(await t.runtime.store.stat(renderCacheKey(e.userId, e.key))).toBeNull();
  }, 300_000);
});
