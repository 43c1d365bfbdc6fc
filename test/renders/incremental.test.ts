// Incremental renders through the API: a split render copies the parts an earlier render of
// the same account made with identical content (the render cache), and the result is
// framemd5-identical to a render of the new version from scratch with the same boundaries.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import { renderCacheEntries } from "../../src/db/schema/render-cache.ts";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import { startWorker } from "../../src/main/job-worker.ts";
import { renderCacheKey } from "../../src/storage/keys.ts";
import { makeMediaFixtures, tempDir } from "../fixtures/render/media.ts";
import { frameMd5, makeSeamMedia, type SeamUploads, seamComposition } from "../fixtures/render/seams.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, type RenderBody } from "./helpers.ts";

const run = promisify(execFile);

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let uploads: SeamUploads;
let stop: () => Promise<void> = async () => {};
let renders = 0;

/** A composition as a request body (the API gives clips and tracks their ids). */
function body(doc: Timeline): unknown {
  return {
    name: "incremental",
    canvas: doc.canvas,
    tracks: doc.tracks.map(({ id: _t, clips, ...track }) => ({
      ...track,
      clips: clips.map(({ id: _c, ...clip }) => clip),
    })),
  };
}

/** Renders `doc` (mp4; lossless while the worker is) with `as`; returns the final body, the file and the parts. */
async function render(doc: Timeline, output: { reuse?: boolean; quality?: "standard" } = {}, as = api) {
  const started = await as.startRender({ composition: body(doc), output: { format: "mp4", ...output } });
  const end = (await as.pollUntilTerminal(started.id, { timeoutMs: 180_000 })).at(-1) as RenderBody;
  expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
  const file = path.join(dir, `r${++renders}.mp4`);
  await download(onServer(base, end.output?.url ?? ""), file);
  const parts = await listRenderParts(t.database.db, end.id);
  return { end, file, parts, reusedParts: parts.filter((p) => p.reuseKey).map((p) => `${p.kind}${p.index}`) };
}

/** MD5 of the decoded audio (the whole stream, as 16-bit PCM). */
async function audioMd5(file: string): Promise<string> {
  const { stdout } = await run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:a", "-f", "md5", "-"]);
  return stdout.trim();
}

/** Expects `a` and `b` to decode to identical frames and sound. */
async function expectIdentical(a: string, b: string) {
  const [va, vb, aa, ab] = await Promise.all([frameMd5(a), frameMd5(b), audioMd5(a), audioMd5(b)]);
  expect(va.length).toBeGreaterThan(0);
  expect(va).toEqual(vb);
  expect(aa).toBe(ab);
}

/** The seam composition (4 segments of 1 s, transitions across the boundaries), edited by `fn`. */
function seams(fn: (doc: Timeline) => void = () => {}): Timeline {
  const doc = seamComposition(uploads, 160);
  fn(doc);
  return doc;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-incremental-"));
  const [fx, media] = await Promise.all([makeMediaFixtures(dir), makeSeamMedia(dir)]);
  t = await startTestApp({ worker: false });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  const [moving, red, still, counter, mono] = await api.upload([
    fx.video,
    fx.red,
    fx.still,
    media.counter,
    fx.monoAudio,
  ]);
  uploads = {
    moving: moving?.id ?? "",
    red: red?.id ?? "",
    still: still?.id ?? "",
    counter: counter?.id ?? "",
    mono: mono?.id ?? "",
  };
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

describe("incremental renders", () => {
  it("reuses the unchanged parts of a one-clip change and of a sound change, identical to a render from scratch; a canvas change reuses nothing", async () => {
    const first = await render(seams());
    expect(first.end.reuse).toEqual({ segments: 5, reused: 0, secondsSaved: 0 });

    // Greyscale on the last clip (3–4 s, a dissolve into it at 3 s): the segments that show
    // it are rendered again, the first segment and the sound are copied.
    const greyLast = seams((doc) => {
      const last = doc.tracks[0]?.clips[3];
      if (last) last.filter = "greyscale";
    });
    const edited = await render(greyLast);
    expect(edited.reusedParts).toContain("video0");
    expect(edited.reusedParts).toContain("audio0");
    expect(edited.reusedParts).not.toContain("video3");
    const video0 = edited.parts[0];
    expect(edited.end.reuse).toEqual({
      segments: 5,
      reused: edited.reusedParts.length,
      secondsSaved: expect.any(Number),
    });
    expect(edited.end.reuse?.secondsSaved).toBeGreaterThanOrEqual(((video0?.endFrame ?? 0) - 0) / 25 - 1e-9);
    const fresh = await render(greyLast, { reuse: false });
    expect(fresh.end.reuse).toBeNull();
    expect(fresh.reusedParts).toEqual([]);
    expect(fresh.parts.map((p) => [p.startFrame, p.endFrame])).toEqual(
      edited.parts.map((p) => [p.startFrame, p.endFrame]),
    );
    await expectIdentical(edited.file, fresh.file);

    // The music louder: every video segment is copied, the sound rendered again.
    const louder = seams((doc) => {
      const music = doc.tracks[5]?.clips[0];
      if (music) music.volume = 0.9;
    });
    const sound = await render(louder);
    expect(sound.reusedParts).toEqual(["video0", "video1", "video2", "video3"]);
    expect(sound.end.reuse).toMatchObject({ segments: 5, reused: 4, secondsSaved: 4 });
    const soundFresh = await render(louder, { reuse: false });
    await expectIdentical(sound.file, soundFresh.file);

    // A longer fade across the boundary at 2 s: the segments on either side are rendered again.
    const longerFade = seams((doc) => {
      const third = doc.tracks[0]?.clips[2];
      if (third) third.transition = { type: "fade", duration: 0.8 };
    });
    const fade = await render(longerFade);
    expect(fade.reusedParts).toContain("video0");
    expect(fade.reusedParts).not.toContain("video1");
    expect(fade.reusedParts).not.toContain("video2");
    await expectIdentical(fade.file, (await render(longerFade, { reuse: false })).file);

    // The small picture (0.7–2.3 s) moved back across the boundary at 1 s (0.2–1.8 s): the
    // segments it leaves or enters are rendered again, the last one is copied.
    const moved = seams((doc) => {
      const pip = doc.tracks[1]?.clips[0];
      if (pip) pip.start = 0.2;
    });
    const move = await render(moved);
    expect(move.reusedParts).toContain("video3");
    expect(move.reusedParts).not.toContain("video0");
    expect(move.reusedParts).not.toContain("video1");
    const moveFresh = await render(moved, { reuse: false });
    expect(moveFresh.parts.map((p) => [p.startFrame, p.endFrame])).toEqual(
      move.parts.map((p) => [p.startFrame, p.endFrame]),
    );
    await expectIdentical(move.file, moveFresh.file);

    // Another background: every part is rendered again.
    const canvas = await render(
      seams((doc) => {
        doc.canvas.background = "#202020";
      }),
    );
    expect(canvas.end.reuse).toEqual({ segments: 5, reused: 0, secondsSaved: 0 });
  }, 900_000);

  it("standard quality: the incrementally rendered file is identical to a render from scratch", async () => {
    await stop();
    stop = await startWorker({ ...t.runtime, config: { ...t.config, renderSegmentSec: 1 } });
    try {
      const doc = seams();
      await render(doc, { quality: "standard" });
      const retitled = seams((d) => {
        const title = d.tracks[3]?.clips[0];
        if (title?.asset.type === "text") title.asset = { ...title.asset, text: "JOINS" };
        const last = d.tracks[0]?.clips[3];
        if (last) last.filter = "greyscale";
      });
      const edited = await render(retitled, { quality: "standard" });
      // The text spans every boundary: only the sound is copied.
      expect(edited.reusedParts).toEqual(["audio0"]);
      const reduced = seams((d) => {
        const last = d.tracks[0]?.clips[3];
        if (last) last.filter = "greyscale";
      });
      const greyOnly = await render(reduced, { quality: "standard" });
      expect(greyOnly.reusedParts).toContain("video0");
      const fresh = await render(reduced, { quality: "standard", reuse: false });
      await expectIdentical(greyOnly.file, fresh.file);
    } finally {
      await stop();
      stop = await startWorker(
        { ...t.runtime, config: { ...t.config, renderSegmentSec: 1 } },
        { lossless: true },
      );
    }
  }, 600_000);

  it("never reuses another account's parts, and deleting an upload deletes the entries of the parts that read it", async () => {
    // Colour and text only: the same content keys in every account.
    const doc: Timeline = {
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        {
          id: "v",
          kind: "video",
          clips: [{ id: "c", start: 0, duration: 3, asset: { type: "color", color: "#3366cc" } }],
        },
        {
          id: "t",
          kind: "video",
          clips: [
            {
              id: "x",
              start: 0.5,
              duration: 2,
              asset: { type: "text", text: "cache", style: { family: "DejaVu Sans", size: 20 } },
            },
          ],
        },
      ],
    };
    const once = await render(doc);
    expect(once.end.reuse).toMatchObject({ reused: 0 });
    const again = await render(doc);
    expect(again.end.reuse).toEqual({ segments: 4, reused: 4, secondsSaved: 3 });
    // Every part copied by the render's own job: none was claimed by a part job.
    expect(again.parts.map((p) => [p.status, p.attempt])).toEqual(again.parts.map(() => ["succeeded", 0]));
    await expectIdentical(once.file, again.file);

    const other = client(base, (await t.createAccount()).key);
    const theirs = await render(doc, {}, other);
    expect(theirs.end.reuse).toEqual({ segments: 4, reused: 0, secondsSaved: 0 });

    // The music was read by every audio part of the first test.
    const db = t.database.db;
    const all = await db.select().from(renderCacheEntries);
    const withMusic = all.filter((e) => e.uploadIds.includes(uploads.mono));
    expect(withMusic.length).toBeGreaterThan(0);
    for (const e of withMusic)
      expect(await t.runtime.store.stat(renderCacheKey(e.userId, e.key))).not.toBeNull();
    const res = await api.json("DELETE", `/api/v1/uploads/${uploads.mono}`);
    expect(res.status).toBe(204);
    const left = await db
      .select()
      .from(renderCacheEntries)
      .where(eq(renderCacheEntries.userId, withMusic[0]?.userId ?? ""));
    expect(left.filter((e) => e.uploadIds.includes(uploads.mono))).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
    for (const e of withMusic) expect(await t.runtime.store.stat(renderCacheKey(e.userId, e.key))).toBeNull();
  }, 600_000);
});
