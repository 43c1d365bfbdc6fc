// postgres-pass: skip — checks how ffmpeg's reading of truncated and corrupt files surfaces in
// a render; the render's rows run on PostgreSQL in render.test.ts and failures.test.ts.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../src/main/job-worker.ts";
import { ffmpeg, probe, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, tinyCanvas } from "./helpers.ts";

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir: string;
let cleanup: () => Promise<void>;
let healthy: string;
let truncatedMp4: string;
let truncatedTs: string;
let stopWorker: () => Promise<void> = async () => {};

/** Writes the first `ratio` of `from`'s bytes to `to` (a copy cut off mid-write). */
async function cutShort(from: string, to: string, ratio: number): Promise<void> {
  const bytes = await readFile(from);
  await writeFile(to, bytes.subarray(0, Math.floor(bytes.length * ratio)));
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-damaged-"));
  healthy = path.join(dir, "healthy.mp4");
  const source = [
    "-f",
    "lavfi",
    "-i",
    "testsrc2=s=160x90:r=25:d=4",
    "-f",
    "lavfi",
    "-i",
    "sine=f=440:r=48000:d=4",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
  ];
  const ts = path.join(dir, "whole.ts");
  await Promise.all([
    // The index (moov) is at the front, so the cut file still probes as 4 s of video.
    ffmpeg([...source, "-movflags", "+faststart", healthy]),
    ffmpeg([...source, "-f", "mpegts", ts]),
  ]);
  truncatedMp4 = path.join(dir, "truncated.mp4");
  truncatedTs = path.join(dir, "truncated.ts");
  await Promise.all([cutShort(healthy, truncatedMp4, 0.6), cutShort(ts, truncatedTs, 0.6)]);
  t = await startTestApp({ worker: false });
  stopWorker = await startWorker(t.runtime);
  const account = await t.createAccount();
  base = await t.listen();
  api = client(base, account.key);
});
afterAll(async () => {
  await stopWorker();
  await t?.close();
  await cleanup?.();
  await rm(dir, { recursive: true, force: true });
});

/** Renders one video track of `clips` (ids and upload ids) back to back, 1.5 s each; returns the ended render. */
async function render(clips: { id: string; uploadId: string }[]) {
  const comp = await api.createComposition({
    name: "damage",
    canvas: tinyCanvas(25),
    tracks: [
      {
        kind: "video",
        clips: clips.map((c, i) => ({
          id: c.id,
          start: i * 1.5,
          duration: 1.5,
          trim: 2,
          asset: { type: "video", uploadId: c.uploadId },
        })),
      },
    ],
  });
  const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
  return (await api.pollUntilTerminal(started.id, { timeoutMs: 60_000 })).at(-1);
}

describe("damaged or truncated sources", () => {
  it("a healthy source renders with no warning", async () => {
    const [up] = await api.upload([healthy]);
    const end = await render([{ id: "clp_ok", uploadId: up?.id ?? "" }]);
    expect(end?.status).toBe("succeeded");
    expect(end?.warnings).toEqual([]);
  });

  it("a truncated MP4 is accepted at upload with its container's duration, and the render that reads its missing part succeeds with a SOURCE_DAMAGED warning naming the clip and upload", async () => {
    const [good, cut] = await api.upload([healthy, truncatedMp4]);
    // The container's index survives the cut: ingest sees 4 s of video, as the file claims.
    expect(cut).toMatchObject({ type: "video", media: expect.objectContaining({ duration: 4 }) });
    const end = await render([
      { id: "clp_good", uploadId: good?.id ?? "" },
      { id: "clp_cut", uploadId: cut?.id ?? "" },
    ]);
    expect(end?.status).toBe("succeeded");
    expect(end?.warnings).toEqual([
      {
        code: "SOURCE_DAMAGED",
        message: expect.stringContaining("clip clp_cut is damaged or truncated"),
        clipId: "clp_cut",
        uploadId: cut?.id,
      },
    ]);
    // Plain language only: no ffmpeg messages or paths.
    expect(end?.warnings[0]?.message).not.toMatch(/NAL|partial file|\//);
  });

  it("a truncated MPEG-TS whose last frame is cut mid-packet is blamed by decoding the clip's range again", async () => {
    const [cut] = await api.upload([truncatedTs]);
    const duration = (cut?.media as { duration: number } | undefined)?.duration ?? 0;
    const comp = await api.createComposition({
      name: "ts",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [
            {
              id: "clp_ts",
              start: 0,
              duration: 1,
              trim: Math.max(0, duration - 1),
              asset: { type: "video", uploadId: cut?.id },
            },
          ],
        },
      ],
    });
    const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 60_000 })).at(-1);
    expect(end?.status).toBe("succeeded");
    expect(end?.warnings).toEqual([
      expect.objectContaining({ code: "SOURCE_DAMAGED", clipId: "clp_ts", uploadId: cut?.id }),
    ]);
    // The clip starts inside the file's last (and only) GOP: a seek that lands past its
    // keyframe decodes nothing, and the render had no picture.
    const file = path.join(dir, "ts-render.mp4");
    await download(onServer(base, end?.output?.url ?? ""), file);
    expect((await probe(file, true)).video?.frames).toBe(25);
  });

  it("a clip whose whole range lies in the lost part of a truncated MP4 fails the render with ASSET_UNSUPPORTED naming it, not a picture that stops early", async () => {
    const [cut] = await api.upload([truncatedMp4]);
    const comp = await api.createComposition({
      name: "lost",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [
            { id: "clp_red", start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } },
            // The file's last 40 % is gone: from about 2.4 s on, nothing decodes.
            {
              id: "clp_lost",
              start: 1,
              duration: 0.5,
              trim: 3.2,
              asset: { type: "video", uploadId: cut?.id },
            },
          ],
        },
      ],
    });
    // mp4: made as one segment and the audio; webm: in one piece.
    for (const format of ["mp4", "webm"] as const) {
      const started = await api.startRender({ compositionId: comp.id, output: { format, quality: "draft" } });
      const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 60_000 })).at(-1);
      expect(end?.status, format).toBe("failed");
      expect(end?.error, format).toMatchObject({
        code: "ASSET_UNSUPPORTED",
        clipId: "clp_lost",
        uploadId: cut?.id,
        retryable: false,
        message: expect.stringContaining("would stop 13 frames early (25 of 38)"),
      });
    }
  });

  it("a split render reports the same SOURCE_DAMAGED warning as the render in one piece, once", async () => {
    // 1 s segments: the 3 s timeline becomes 3 video parts and the audio, each checking what it read.
    await stopWorker();
    stopWorker = await startWorker({ ...t.runtime, config: { ...t.config, renderSegmentSec: 1 } });
    const [good, cut] = await api.upload([healthy, truncatedMp4]);
    const end = await render([
      { id: "clp_good", uploadId: good?.id ?? "" },
      { id: "clp_cut", uploadId: cut?.id ?? "" },
    ]);
    expect(end?.status).toBe("succeeded");
    expect(end?.segments).toEqual({ total: 3, done: 3 });
    expect(end?.warnings).toEqual([
      {
        code: "SOURCE_DAMAGED",
        message: expect.stringContaining("clip clp_cut is damaged or truncated"),
        clipId: "clp_cut",
        uploadId: cut?.id,
      },
    ]);
  });
});
