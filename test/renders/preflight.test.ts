// The render preflight (POST /api/render/check, GET /api/compositions/:id/check): the checks a
// render runs before the encoder starts, without rendering, storing, queueing or charging.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/client.ts";
import { JOBS } from "../../src/queue/catalog.ts";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas } from "./helpers.ts";

// No worker: a job queued by mistake would stay in the queue, where the tests look for it.
let t: TestApp;
let base: string;
let api: ReturnType<typeof client>;
let userId: string;
let dir: { dir: string; cleanup(): Promise<void> };
let video: string;
let still: string;

beforeAll(async () => {
  dir = await tempDir("cutroom-preflight-");
  video = path.join(dir.dir, "video.mp4");
  still = path.join(dir.dir, "still.png");
  await Promise.all([
    ffmpeg([
      ...["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=2", "-f", "lavfi", "-i", "sine=d=2"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", video],
    ]),
    ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=160x90", "-frames:v", "1", still]),
  ]);
  t = await startTestApp();
  base = await t.listen();
  const account = await t.createAccount();
  userId = account.userId;
  api = client(base, account.key);
});
afterAll(async () => {
  await t?.close();
  await dir?.cleanup();
});

/** Nothing a render start leaves: no render row, no queued job, no render seconds counted, no scratch files. */
async function expectNothingStarted(): Promise<void> {
  expect((await api.json("GET", "/api/render")).body.data).toEqual([]);
  expect(await t.runtime.queue.fetch(JOBS.render.name)).toEqual([]);
  const counted = rowsOf(
    await t.database.db.execute(
      sql`select count from quota_counters where subject = ${`render-sec:${userId}`}`,
    ),
  );
  expect(counted).toEqual([]);
  expect(await readdir(t.config.workDir).catch(() => [])).toEqual([]);
}

describe("render preflight", () => {
  it("lists every problem of a composition, naming clip and upload, for the POST and the GET form", async () => {
    const [clip, gone] = await api.upload([video, still]);
    const port = new URL(base).port;
    const comp = await api.createComposition({
      name: "bad",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [
            { id: "m1", start: 0, duration: 1, asset: { type: "video", uploadId: clip?.id } },
            { id: "m2", start: 1, duration: 1, asset: { type: "image", uploadId: gone?.id } },
            {
              id: "m3",
              start: 2,
              duration: 1,
              asset: { type: "video", src: `https://127.0.0.1:${port}/x.mp4` },
            },
          ],
        },
      ],
    });
    expect((await api.json("DELETE", `/api/v1/uploads/${gone?.id}?force=true`)).status).toBe(204);

    const expected = {
      ok: false,
      problems: [
        {
          code: "ASSET_NOT_FOUND",
          message:
            "still.png at 0:01: its upload was deleted; relink the clip to another upload (or upload the file again) or delete it",
          retryable: false,
          clipId: "m2",
          uploadId: gone?.id,
        },
        {
          code: "ASSET_FETCH_FAILED",
          message: expect.stringMatching(
            /^clip m3: fetching its file from 127\.0\.0\.1:\d+ failed: .*(loopback|not allowed|refused)/i,
          ),
          retryable: false,
          clipId: "m3",
        },
      ],
      warnings: [],
      output: null,
      smartRender: null,
      compositionId: comp.id,
      // The forced delete kept the file name on the clip: one version more.
      compositionVersion: comp.version + 1,
    };
    const posted = await api.json("POST", "/api/render/check", { compositionId: comp.id });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    expect(posted.body).toEqual(expected);
    const got = await api.json("GET", `/api/compositions/${comp.id}/check?format=webm`);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body).toEqual(expected);
    await expectNothingStarted();
  });

  it("a composition that renders with warnings: ok, the warnings the render would record and the planned output", async () => {
    const [clip] = await api.upload([video]);
    const check = await api.json("POST", "/api/render/check", {
      composition: {
        name: "warnings",
        canvas: tinyCanvas(25),
        tracks: [
          {
            kind: "video",
            clips: [
              // The source is 2 s long: 1.5 s from 1 s runs out (the last frame is held).
              { id: "long", start: 0, duration: 1.5, trim: 1, asset: { type: "video", uploadId: clip?.id } },
              {
                id: "fade",
                start: 1.5,
                duration: 1,
                asset: { type: "video", uploadId: clip?.id },
                transition: { type: "fade", duration: 0.4 },
              },
            ],
          },
          {
            kind: "video",
            clips: [
              {
                id: "title",
                start: 0,
                duration: 1,
                asset: { type: "text", text: "Hello 漢", style: { family: "DejaVu Sans", size: 20 } },
              },
            ],
          },
        ],
      },
      output: { format: "mp4", fps: 30 },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    expect(check.body).toMatchObject({
      ok: true,
      problems: [],
      output: { format: "mp4", width: 160, height: 90, fps: 30, duration: 2.5, audio: true },
      compositionId: null,
      compositionVersion: null,
    });
    const codes = (check.body.warnings as { code: string; clipId?: string }[]).map(
      (w) => `${w.code} ${w.clipId}`,
    );
    expect(codes.sort()).toEqual([
      "GLYPH_MISSING title",
      "SOURCE_TOO_SHORT long",
      "TRANSITION_HANDLE_MISSING fade",
    ]);
    await expectNothingStarted();
  });

  it("a good composition is ok with no warnings", async () => {
    const comp = await api.createComposition({
      name: "good",
      canvas: tinyCanvas(25),
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 2, asset: { type: "color", color: "#ff0000" } }] },
      ],
    });
    const check = await api.json("GET", `/api/compositions/${comp.id}/check`);
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    expect(check.body).toEqual({
      ok: true,
      problems: [],
      warnings: [],
      output: { format: "mp4", width: 160, height: 90, fps: 25, duration: 2, audio: true },
      // A colour clip: nothing to copy, and the plan says so.
      smartRender: {
        copiedFrames: 0,
        encodedFrames: 50,
        reasons: [{ clip: "color clip at 0:00", from: 0, to: 2, reason: "color clip" }],
      },
      compositionId: comp.id,
      compositionVersion: comp.version,
    });
    await expectNothingStarted();
  });

  it("a request a render start would refuse is refused the same way (400 naming the field, 404)", async () => {
    const both = await api.json("POST", "/api/render/check", { compositionId: "cmp_x", composition: {} });
    expect(both.status).toBe(400);
    const comp = await api.createComposition({
      name: "short",
      canvas: tinyCanvas(25),
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] },
      ],
    });
    const late = await api.json("GET", `/api/compositions/${comp.id}/check?format=png&frameAt=5`);
    expect(late.status).toBe(400);
    expect(late.body.error.details).toEqual([{ path: "/output/frameAt", message: expect.any(String) }]);
    const lossy = await api.json("POST", "/api/render/check", {
      compositionId: comp.id,
      output: { format: "webm", quality: "lossless" },
    });
    expect(lossy.status).toBe(400);
    expect(lossy.body.error.details).toEqual([
      { path: "/output/quality", message: "lossless applies to mp4, wav, png only" },
    ]);
    expect((await api.json("GET", "/api/compositions/cmp_missing/check")).status).toBe(404);
    await expectNothingStarted();
  });
});
