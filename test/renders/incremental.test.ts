// Incremental renders through the API: a split render copies the parts an earlier render of
// the same account made with identical content (the render cache), and the result is
// framemd5-identical to a render of the new version from scratch with the same boundaries.
// postgres-pass: skip — checks decoded frames and sound of 26 split renders; the cache's SQL
// (lookup, store, eviction, isolation) runs on PostgreSQL in render-cache.test.ts.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import { startWorker } from "../../src/main/job-worker.ts";
import { makeMediaFixtures, tempDir } from "../fixtures/render/media.ts";
import { frameMd5, makeSeamMedia, type SeamUploads, seamComposition } from "../fixtures/render/seams.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, compositionBody, download, onServer, type RenderBody } from "./helpers.ts";

const run = promisify(execFile);

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let uploads: SeamUploads;
let stop: () => Promise<void> = async () => {};
let renders = 0;

/** Renders `doc` (mp4; lossless while the worker is) with `as`; returns the final body, the file and the parts. */
async function render(doc: Timeline, output: { reuse?: boolean; quality?: "standard" } = {}, as = api) {
  const started = await as.startRender({
    composition: compositionBody(doc, "incremental"),
    output: { format: "mp4", ...output },
  });
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
  // One lossless worker splitting every render into 1 s segments, two parts at a time.
  stop = await startWorker(
    { ...t.runtime, config: { ...t.config, renderSegmentSec: 1, workerConcurrency: 2 } },
    { lossless: true },
  );
}, 300_000); // the media set-up may take minutes on a busy machine

afterAll(async () => {
  await stop();
  await t?.close();
  await cleanup();
});

/** Parts by kind and index (`video0`…, `audio0`). */
const PARTS = ["video0", "video1", "video2", "video3", "audio0"];

/**
 * Edits of the seam composition (4 segments of 1 s, transitions across the boundaries), each
 * with the parts it must copy and the parts it must render again.
 */
const EDITS: { name: string; edit: (doc: Timeline) => void; copied: string[]; rendered: string[] }[] = [
  {
    // The last clip (3–4 s, a dissolve into it at 3 s).
    name: "one clip changed (greyscale)",
    edit: (doc) => {
      const last = doc.tracks[0]?.clips[3];
      if (last) last.filter = "greyscale";
    },
    copied: ["video0", "audio0"],
    rendered: ["video3"],
  },
  {
    name: "the sound only (the music louder)",
    edit: (doc) => {
      const music = doc.tracks[5]?.clips[0];
      if (music) music.volume = 0.9;
    },
    copied: ["video0", "video1", "video2", "video3"],
    rendered: ["audio0"],
  },
  {
    name: "a transition across the boundary at 2 s (a longer fade)",
    edit: (doc) => {
      const third = doc.tracks[0]?.clips[2];
      if (third) third.transition = { type: "fade", duration: 0.8 };
    },
    copied: ["video0"],
    rendered: ["video1", "video2"],
  },
  {
    // The small picture (0.7–2.3 s) moved back across the boundary at 1 s (0.2–1.8 s).
    name: "a clip moved across a boundary",
    edit: (doc) => {
      const pip = doc.tracks[1]?.clips[0];
      if (pip) pip.start = 0.2;
    },
    // Its own sound moves with it.
    copied: ["video3"],
    rendered: ["video0", "video1", "audio0"],
  },
  {
    // The title spans every boundary.
    name: "the title retitled",
    edit: (doc) => {
      const title = doc.tracks[3]?.clips[0];
      if (title?.asset.type === "text") title.asset = { ...title.asset, text: "JOINS" };
    },
    copied: ["audio0"],
    rendered: ["video0", "video1", "video2", "video3"],
  },
  {
    name: "the canvas (another background)",
    edit: (doc) => {
      doc.canvas.background = "#202020";
    },
    copied: [],
    rendered: PARTS,
  },
];

/**
 * Renders the seam composition, then each of {@link EDITS} with `output`: the parts it copies and
 * renders, its `reuse` figures, and its file framemd5- and audio-identical to the same edit
 * rendered from scratch (`reuse: false`) with the same boundaries.
 */
async function checkEdits(output: { quality?: "standard" }) {
  const first = await render(seams(), output);
  expect(first.end.reuse).toMatchObject({ segments: 5 });
  for (const { name, edit, copied, rendered } of EDITS) {
    const doc = seams(edit);
    const incremental = await render(doc, output);
    for (const part of copied) expect(incremental.reusedParts, `${name}: ${part} copied`).toContain(part);
    for (const part of rendered)
      expect(incremental.reusedParts, `${name}: ${part} rendered`).not.toContain(part);
    const saved = incremental.parts
      .filter((p) => p.reuseKey && p.kind === "video")
      .reduce((n, p) => n + (p.endFrame - p.startFrame) / 25, 0);
    expect(incremental.end.reuse, name).toEqual({
      segments: 5,
      reused: incremental.reusedParts.length,
      secondsSaved: expect.closeTo(saved, 6),
    });
    const fresh = await render(doc, { ...output, reuse: false });
    expect(fresh.end.reuse).toBeNull();
    expect(fresh.reusedParts).toEqual([]);
    expect(
      fresh.parts.map((p) => [p.startFrame, p.endFrame]),
      name,
    ).toEqual(incremental.parts.map((p) => [p.startFrame, p.endFrame]));
    await expectIdentical(incremental.file, fresh.file);
  }
}

describe("incremental renders", () => {
  it("lossless test settings: each edit copies the parts it leaves alone, and the file is identical to a render from scratch", async () => {
    await checkEdits({});
  }, 900_000);

  it("standard quality: each edit copies the parts it leaves alone, and the file is identical to a render from scratch", async () => {
    await stop();
    stop = await startWorker({
      ...t.runtime,
      config: { ...t.config, renderSegmentSec: 1, workerConcurrency: 2 },
    });
    try {
      await checkEdits({ quality: "standard" });
    } finally {
      await stop();
      stop = await startWorker(
        { ...t.runtime, config: { ...t.config, renderSegmentSec: 1, workerConcurrency: 2 } },
        { lossless: true },
      );
    }
  }, 900_000);
});
