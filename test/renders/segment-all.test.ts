// RENDER_SEGMENT_ALL: with the render cache on, a render no longer than a segment is made as
// one segment and the audio, so that the same render again copies both.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import { startWorker } from "../../src/main/job-worker.ts";
import { probe, tempDir } from "../fixtures/render/media.ts";
import { frameMd5 } from "../fixtures/render/seams.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, type RenderBody } from "./helpers.ts";

let t: TestApp;
let api: ReturnType<typeof client>;
let base = "";
let dir = "";
let cleanup: () => Promise<void>;
let stop: () => Promise<void>;

const doc = {
  name: "segment-all",
  canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
  tracks: [
    {
      id: "v",
      kind: "video",
      clips: [{ id: "c", start: 0, duration: 2, asset: { type: "color", color: "#3366cc" } }],
    },
    {
      id: "t",
      kind: "video",
      clips: [
        {
          id: "x",
          start: 0.5,
          duration: 1,
          asset: { type: "text", text: "all", style: { family: "DejaVu Sans", size: 20 } },
        },
      ],
    },
  ],
};

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-segment-all-"));
  t = await startTestApp({ worker: false });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  stop = await startWorker({
    ...t.runtime,
    config: { ...t.config, renderSegmentSec: 20, renderSegmentAll: true },
  });
}, 120_000);

afterAll(async () => {
  await stop?.();
  await t?.close();
  await cleanup?.();
});

describe("RENDER_SEGMENT_ALL", () => {
  it("makes a short mp4 render as a segment and the audio, which the same render again copies", async () => {
    const files: string[] = [];
    const ends: RenderBody[] = [];
    for (const name of ["first", "again"]) {
      const started = await api.startRender({ composition: doc, output: { format: "mp4" } });
      const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 120_000 })).at(-1) as RenderBody;
      expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
      const file = path.join(dir, `${name}.mp4`);
      await download(onServer(base, end.output?.url ?? ""), file);
      files.push(file);
      ends.push(end);
    }
    expect(ends[0]?.reuse).toEqual({ segments: 2, reused: 0, secondsSaved: 0 });
    expect(ends[1]?.reuse).toEqual({ segments: 2, reused: 2, secondsSaved: 2 });
    const parts = await listRenderParts(t.database.db, ends[0]?.id ?? "");
    expect(parts.map((p) => [p.kind, p.startFrame, p.endFrame])).toEqual([
      ["video", 0, 50],
      ["audio", 0, 50],
    ]);
    expect((await probe(files[1] ?? "", true)).video?.frames).toBe(50);
    expect(await frameMd5(files[1] ?? "")).toEqual(await frameMd5(files[0] ?? ""));
  }, 300_000);
});
