// Split rendering through the API: a render longer than RENDER_SEGMENT_SEC becomes segments
// rendered as their own jobs and joined without re-encoding; the seams cannot be found.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/client.ts";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import type { RenderQuality } from "../../src/domain/render/types.ts";
import { startWorker } from "../../src/main/job-worker.ts";
import { renderPrefix } from "../../src/storage/keys.ts";
import { makeMediaFixtures, probe, tempDir } from "../fixtures/render/media.ts";
import {
  counterValues,
  expectCleanSeams,
  frameMd5,
  makeSeamMedia,
  psnrPerFrame,
  SEAM_FRAMES,
  type SeamUploads,
  seamComposition,
  videoProfile,
} from "../fixtures/render/seams.ts";
import {
  decodeFrames,
  decodeStrictly,
  psnr as framePsnr,
  makeSmartSource,
  videoPackets,
} from "../fixtures/render/smart-media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, compositionBody, download, onServer, type RenderBody, waitFor } from "./helpers.ts";

/** 1 s segments: the seam composition's 4 s make 4 segments, cut inside its transitions. */
const SEGMENT_SEC = 1;

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void> = async () => {};
let uploads: SeamUploads & { gradients: string };

/**
 * Runs `work` with this process as the only worker, splitting renders longer than `segmentSec`
 * (0: never); stops the worker after.
 */
async function withWorker<T>(segmentSec: number, work: () => Promise<T>): Promise<T> {
  const stop = await startWorker({ ...t.runtime, config: { ...t.config, renderSegmentSec: segmentSec } });
  try {
    return await work();
  } finally {
    await stop();
  }
}

/** Renders `doc` (mp4) to the end; returns every polled body and the downloaded file. */
async function renderToFile(doc: Timeline, quality: RenderQuality, name: string) {
  const started = await api.startRender({
    composition: compositionBody(doc, "seams"),
    output: { format: "mp4", quality },
  });
  const history = await api.pollUntilTerminal(started.id, { timeoutMs: 120_000 });
  const end = history.at(-1) as RenderBody;
  expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
  const file = path.join(dir, `${name}.mp4`);
  const got = await download(onServer(base, end.output?.url ?? ""), file);
  expect(got.sha256).toBe(end.output?.sha256);
  return { history, end, file };
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-split-api-"));
  const [fx, media] = await Promise.all([makeMediaFixtures(dir), makeSeamMedia(dir)]);
  t = await startTestApp({ worker: false });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  const [moving, red, still, counter, mono, gradients] = await api.upload([
    fx.video,
    fx.red,
    fx.still,
    media.counter,
    fx.monoAudio,
    media.gradients,
  ]);
  uploads = {
    moving: moving?.id ?? "",
    red: red?.id ?? "",
    still: still?.id ?? "",
    counter: counter?.id ?? "",
    mono: mono?.id ?? "",
    gradients: gradients?.id ?? "",
  };
}, 300_000); // the media set-up may take minutes on a busy machine

afterAll(async () => {
  await t?.close();
  await cleanup();
});

describe("split renders through the API", () => {
  it("quality lossless: segments on the resource, clean seams, every frame once, identical frames to the unsplit render", async () => {
    const doc = seamComposition(uploads, 160);
    const split = await withWorker(SEGMENT_SEC, () => renderToFile(doc, "lossless", "split-lossless"));
    expect(split.end.segments).toEqual({ total: 4, done: 4 });
    for (const r of split.history) {
      if (r.status === "rendering" && r.segments) expect(r.segments.total).toBe(4);
    }
    expect(
      split.history.every(
        (r, i) => i === 0 || r.progress.ratio >= (split.history[i - 1]?.progress.ratio ?? 0),
      ),
    ).toBe(true);
    const parts = await listRenderParts(t.database.db, split.end.id);
    // Each boundary sits within a quarter segment of its nominal frame (25, 50, 75), where the
    // sources' keyframes make the segment's start cheapest (RENDER_SEGMENT_KEYFRAMES, on by default).
    const starts = parts.filter((p) => p.kind === "video").map((p) => p.startFrame);
    expect(starts).toHaveLength(4);
    for (const [i, start] of starts.entries()) expect(Math.abs(start - 25 * i)).toBeLessThanOrEqual(6);
    expect(parts.map((p) => [p.kind, p.startFrame, p.endFrame, p.status])).toEqual([
      ...starts.map((start, i) => ["video", start, starts[i + 1] ?? SEAM_FRAMES, "succeeded"]),
      ["audio", 0, SEAM_FRAMES, "succeeded"],
    ]);
    // The video uploads keep their keyframe index (read by the preview proxy job or by this
    // render), which the next render's boundaries and every part's seeks use without ffprobe.
    const kept = await rowsOf<{ id: string; keyframes: { times: number[]; fps: number } | null }>(
      await t.database.db.execute(
        sql`select id, keyframes from uploads where id in (${uploads.moving}, ${uploads.red})`,
      ),
    );
    expect(kept).toHaveLength(2);
    for (const row of kept) {
      expect(row.keyframes?.times[0], row.id).toBe(0);
      expect(row.keyframes?.fps, row.id).toBeGreaterThan(0);
    }
    // The parts' files went with the join; the output and poster stay.
    expect((await t.runtime.store.stat(`${renderPrefix(split.end.id)}parts/seg-000.mp4`)) ?? null).toBeNull();
    expect(split.end.output?.posterUrl).toBeTruthy();

    await expectCleanSeams(split.file, { bFrames: false, starts });
    expect(await counterValues(split.file, 160)).toEqual(Array.from({ length: SEAM_FRAMES }, (_, i) => i));

    const whole = await withWorker(0, () => renderToFile(doc, "lossless", "whole-lossless"));
    expect(whole.end.segments).toBeNull();
    // Lossless H.264 (x264 at QP 0: the High 4:4:4 Predictive profile) and ALAC, split or not.
    for (const file of [split.file, whole.file]) {
      const got = await probe(file);
      expect(got.video?.codec).toBe("h264");
      expect(got.audio?.codec).toBe("alac");
      expect(await videoProfile(file)).toBe("High 4:4:4 Predictive");
    }
    const [a, b] = await Promise.all([frameMd5(split.file), frameMd5(whole.file)]);
    expect(a).toHaveLength(SEAM_FRAMES);
    expect(a).toEqual(b);
    // The segment that holds the poster's frame wrote the poster: the unsplit render's picture.
    const posters = await Promise.all(
      [split, whole].map((r, i) =>
        download(onServer(base, r.end.output?.posterUrl ?? ""), path.join(dir, `poster-${i}.jpg`)),
      ),
    );
    expect(posters[0]?.sha256).toBe(posters[1]?.sha256);
    expect(split.end.output?.duration).toBeCloseTo(whole.end.output?.duration ?? 0, 2);
  }, 240_000);

  it("standard quality: every frame within 40 dB PSNR of the unsplit render", async () => {
    const doc = seamComposition({ ...uploads, moving: uploads.gradients }, 320);
    const split = await withWorker(SEGMENT_SEC, () => renderToFile(doc, "standard", "split-standard"));
    const whole = await withWorker(0, () => renderToFile(doc, "standard", "whole-standard"));
    expect(split.end.segments).toEqual({ total: 4, done: 4 });
    const parts = await listRenderParts(t.database.db, split.end.id);
    await expectCleanSeams(split.file, {
      starts: parts.filter((p) => p.kind === "video").map((p) => p.startFrame),
    });
    const psnr = await psnrPerFrame(split.file, whole.file);
    expect(psnr).toHaveLength(SEAM_FRAMES);
    expect(Math.min(...psnr)).toBeGreaterThanOrEqual(40);
    expect(await counterValues(split.file, 320)).toEqual(Array.from({ length: SEAM_FRAMES }, (_, i) => i));
    expect((await probe(split.file)).video).toMatchObject({ width: 320, height: 180, codec: "h264" });
  }, 240_000);

  it("parts and join carry the render's fair priority; cancel ends queued parts and the join in the queue, running parts stop, nothing is left", async () => {
    // 30 s of colour and text at 1 s segments: 30 segments, far more than one worker finishes
    // before the cancel lands. Two renders of one account: the second queues at priority -1.
    const doc = {
      name: "cancel",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 30, asset: { type: "color", color: "#204080" } }] },
        {
          kind: "video",
          clips: [
            {
              start: 0,
              duration: 30,
              asset: { type: "text", text: "cancel", style: { family: "DejaVu Sans", size: 20 } },
            },
          ],
        },
      ],
    };
    /** State and priority of every job of `renderId` by kind (`render`, `render_part`, `render_join`). */
    const jobsOf = async (renderId: string) =>
      rowsOf<{ name: string; state: string; priority: number }>(
        await t.database.db.execute(
          sql`select name, state, priority from pgboss.job where name in ('render', 'render_part', 'render_join') and data->>'renderId' = ${renderId}`,
        ),
      );
    const cancelAndCheck = async (id: string, statuses: number[]) => {
      const del = await api.json("DELETE", `/api/render/${id}`);
      expect(statuses).toContain(del.status);
      const end = (await api.pollUntilTerminal(id, { timeoutMs: 60_000 })).at(-1) as RenderBody;
      expect(end.status).toBe("cancelled");
      expect(end.output).toBeNull();
      // No part job is left for a worker to take and skip, the join will never run.
      const jobs = await jobsOf(id);
      expect(jobs.filter((j) => j.name !== "render" && ["created", "retry"].includes(j.state))).toEqual([]);
      expect(jobs.filter((j) => j.name === "render_join").map((j) => j.state)).toEqual(["cancelled"]);
      // Every part ended (none left running or queued), their files and work directories are gone.
      const parts = await listRenderParts(t.database.db, id);
      expect(parts).toHaveLength(31);
      expect(parts.filter((p) => p.status === "queued" || p.status === "running")).toEqual([]);
      expect(parts.some((p) => p.status === "cancelled")).toBe(true);
      // The worker deletes the render's files just after the transaction that ends it commits,
      // so the render can read `cancelled` a moment before they are gone.
      const probe = t.runtime.store.localPath(`${renderPrefix(id)}probe`);
      const dir = probe ? path.dirname(probe) : null;
      if (dir) {
        const files = async () =>
          (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) =>
            e.isFile(),
          );
        await waitFor(async () => (await files()).length === 0, 10_000, 50).catch(() => undefined);
        expect((await files()).map((e) => e.name)).toEqual([]);
      }
      expect(await t.runtime.store.deletePrefix(renderPrefix(id))).toBe(0);
      const left = (await readdir(t.config.workDir).catch(() => [] as string[])).filter((n) =>
        parts.some((p) => n.startsWith(`${p.id}-`) || n.startsWith(`${id}-`)),
      );
      expect(left).toEqual([]);
      return end;
    };
    await withWorker(SEGMENT_SEC, async () => {
      const start = () => api.startRender({ composition: doc, output: { format: "mp4", quality: "draft" } });
      const first = await start();
      const second = await start();
      const body = async (id: string) => {
        const r = (await api.getRender(id)).body as RenderBody;
        if (["succeeded", "failed", "cancelled"].includes(r.status)) throw new Error(`ended: ${r.status}`);
        return r;
      };
      const flowSent = async (id: string) => (await jobsOf(id)).some((j) => j.name === "render_join");
      await waitFor(
        async () => {
          const [a, b] = [await body(first.id), await body(second.id)];
          return a.segments && a.segments.done >= 1 && b.segments && (await flowSent(second.id))
            ? [a, b]
            : null;
        },
        60_000,
        50,
      );
      /** The distinct priorities of a render's jobs by kind. */
      const priorities = async (id: string) => {
        const by: Record<string, number[]> = {};
        for (const j of await jobsOf(id))
          by[j.name] = [...new Set([...(by[j.name] ?? []), Number(j.priority)])];
        return by;
      };
      const firstJobs = await priorities(first.id);
      const secondJobs = await priorities(second.id);
      expect({ render: firstJobs.render, join: firstJobs.render_join }).toEqual({ render: [0], join: [0] });
      expect({ render: secondJobs.render, join: secondJobs.render_join }).toEqual({
        render: [-1],
        join: [-1],
      });
      // Parts rank longest first inside their render's fair priority: every part of the
      // account's second render ranks below every part of its first.
      expect(Math.min(...(firstJobs.render_part ?? []))).toBe(0);
      expect(Math.max(...(secondJobs.render_part ?? []))).toBeLessThan(0);

      // The second render's parts wait behind the first's: none runs, so it ends at once.
      const second_ = await cancelAndCheck(second.id, [200]);
      expect(second_.segments?.done).toBe(0);
      // The first's running part stops as a render's attempt does; the last part to end ends it
      // (202). A part lasts a few hundred milliseconds: the cancel is sent while one runs, but it
      // may have just ended (the worker then has none running and the cancel ends at once, 200).
      await waitFor(
        async () =>
          (await listRenderParts(t.database.db, first.id)).some((p) => p.status === "running") ? true : null,
        30_000,
        5,
      );
      const first_ = await cancelAndCheck(first.id, [202, 200]);
      expect(first_.segments?.done).toBeLessThan(30);
    });
  }, 120_000);

  it("a cuts-only render split in parts copies each part's whole GOPs: exact frames, seams within 45 dB of the source", async () => {
    // 320×180 at 30 fps, 0.5 s closed GOPs with B-frames; quality high, where copying pays from
    // a few dozen frames, so each 3 s part has whole GOPs worth copying.
    const src = await makeSmartSource(dir, "take.mp4", {
      codec: "h264",
      profile: "high",
      bframes: 2,
      pyramid: false,
      openGop: false,
      gopSec: 0.5,
      fps: "30",
      vfr: false,
      seconds: 12,
      width: 320,
      height: 180,
    });
    const [take] = await api.upload([src]);
    const takes: [number, number][] = [
      [13, 220], // source frames 13..219 (0.433 s to 7.3 s), cut off keyframes at both ends
      [247, 352],
    ];
    let at = 0;
    const clips = takes.map(([a, b]) => {
      const c = {
        start: at / 30,
        duration: (b - a) / 30,
        trim: a / 30,
        asset: { type: "video", uploadId: take?.id },
      };
      at += b - a;
      return c;
    });
    const started = await api.startRender({
      composition: {
        name: "cuts",
        canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
        tracks: [{ kind: "video", clips }],
      },
      output: { format: "mp4", quality: "high" },
    });
    const end = await withWorker(
      3,
      async () => (await api.pollUntilTerminal(started.id, { timeoutMs: 120_000 })).at(-1) as RenderBody,
    );
    expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
    expect(end.segments?.total).toBeGreaterThan(1);
    const smart = end.smartRender;
    expect(smart?.copiedFrames).toBeGreaterThan(at / 2);
    expect((smart?.copiedFrames ?? 0) + (smart?.encodedFrames ?? 0)).toBe(at);

    const file = path.join(dir, "split-smart.mp4");
    await download(onServer(base, end.output?.url ?? ""), file);
    expect(await decodeStrictly(file)).toBe("");
    const packets = await videoPackets(file);
    expect(packets).toHaveLength(at);
    for (let i = 1; i < packets.length; i++)
      expect(packets[i]?.dts).toBeGreaterThan(packets[i - 1]?.dts as number);
    const [source, frames] = await Promise.all([decodeFrames(src, 320, 180), decodeFrames(file, 320, 180)]);
    const expected = takes.flatMap(([a, b]) => Array.from({ length: b - a }, (_, k) => a + k));
    // The reasons say which frames were encoded: seams (next to a copy, near-lossless) or runs
    // too short to copy (encoded at the render's quality); every other frame is copied.
    const fate: ("copied" | "seam" | "encoded")[] = Array(at).fill("copied");
    for (const r of smart?.reasons ?? []) {
      const seam = /next keyframe|last whole GOP/.test(r.reason);
      for (let o = Math.round(r.from * 30); o < Math.round(r.to * 30); o++)
        fate[o] = seam ? "seam" : "encoded";
    }
    expect(fate.filter((f) => f === "copied")).toHaveLength(smart?.copiedFrames ?? -1);
    for (const [o, got] of frames.entries()) {
      const want = source[expected[o] as number] as Buffer;
      if (fate[o] === "copied") expect(got.equals(want), `copied output frame ${o}`).toBe(true);
      else
        expect(framePsnr(got, want), `${fate[o]} output frame ${o}`).toBeGreaterThanOrEqual(
          fate[o] === "seam" ? 45 : 35,
        );
    }
  }, 180_000);
});
