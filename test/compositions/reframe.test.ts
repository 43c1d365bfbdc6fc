// postgres-pass: skip — checks face tracking and the crop it writes; the composition write it
// ends in is a version like any other (versions.test.ts and crud.test.ts run on PostgreSQL).
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaceDetector } from "../../src/media/faces/detector.ts";
import { sampleFrames } from "../../src/media/faces/frames.ts";
import { assistantClient, ofType } from "../assistant/helpers.ts";
import {
  type Footage,
  faceRect,
  keyframeCentre,
  noFace,
  panningFace,
  twoFaces,
} from "../fixtures/reframe/footage.ts";
import { tempDir } from "../fixtures/render/media.ts";
import { uploadFile } from "../generation/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer } from "../renders/helpers.ts";

/** Runs a tool with `input` on stdin and returns its stdout. */
async function run(tool: string, args: string[], opts: { input: Buffer }): Promise<{ stdout: Buffer }> {
  const out = spawnSync(tool, args, { input: opts.input, maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`${tool} failed: ${out.stderr.toString()}`);
  return { stdout: out.stdout };
}

let t: TestApp;
let owner: { userId: string; key: string };
let tmp: { dir: string; cleanup: () => Promise<void> };
let base: string;
const detector = createFaceDetector({ threads: 1 });

beforeAll(async () => {
  t = await startTestApp({ worker: true, env: { RENDER_SEGMENT_SEC: "0" } });
  owner = await t.createAccount();
  tmp = await tempDir("cutroom-reframe-");
  base = await t.listen();
}, 300_000);

afterAll(async () => {
  await detector.close();
  await t?.close();
  await tmp?.cleanup();
});

/** Uploads footage and makes a composition of it on one video track at its own size. */
async function compositionOf(footage: Footage, key = owner.key): Promise<{ id: string; clipId: string }> {
  const upload = await uploadFile(t, key, await readFile(footage.file), path.basename(footage.file));
  const res = await t.app.inject({
    method: "POST",
    url: "/api/compositions",
    headers: bearer(key),
    payload: {
      name: "talk",
      canvas: { width: footage.width, height: footage.height, fps: 25, background: "#000000" },
      tracks: [
        {
          kind: "video",
          clips: [{ start: 0, duration: footage.duration, asset: { type: "video", uploadId: upload.id } }],
        },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return { id: body.id, clipId: body.tracks[0].clips[0].id };
}

/** The server's error log lines, to show with an unexpected status. */
const errors = () => t.logs.filter((l) => /"level":50/.test(l)).join("\n");

const reframe = (id: string, body: unknown, opts: { key?: string; version?: number } = {}) =>
  t.app.inject({
    method: "POST",
    url: `/api/compositions/${id}/reframe`,
    headers: { ...bearer(opts.key ?? owner.key), "if-match": `"${opts.version ?? 1}"` },
    payload: body as object,
  });

describe("POST /api/compositions/:id/reframe", () => {
  it("follows a face panning across a 16:9 frame: 9:16 canvas, one version, the face inside the rendered crop", async () => {
    const footage = await panningFace(tmp.dir);
    const { id } = await compositionOf(footage);
    const res = await reframe(id, { aspectRatio: "9:16" });
    expect(res.statusCode, `${res.body}\n${errors()}`).toBe(200);
    const out = res.json();
    expect(out.summary).toBe("reframed 9:16, 2 shots");
    expect(out.composition.version).toBe(2);
    expect(res.headers.etag).toBe('"2"');
    expect(out.composition.canvas).toMatchObject({ width: 540, height: 960 });
    expect(out.shots.map((s: { subject: string; layout: string }) => [s.subject, s.layout])).toEqual([
      ["face", "single"],
      ["face", "single"],
    ]);
    const clip = out.composition.tracks[0].clips[0];
    const keyframes = clip.reframe.keyframes as { time: number; x: number; y: number }[];
    expect(keyframes.length).toBeGreaterThan(2);

    const versions = await t.app.inject({
      url: `/api/compositions/${id}/versions`,
      headers: bearer(owner.key),
    });
    expect(versions.json().data[0]).toMatchObject({ version: 2, summary: "reframed 9:16, 2 shots" });

    // Known positions: the face square inside the window at every output frame.
    const windowW = (footage.height * 9) / 16 / footage.width;
    const face = footage.faces[0] as Footage["faces"][number];
    let inside = 0;
    const frames = footage.duration * footage.fps;
    for (let f = 0; f < frames; f += 1) {
      const time = f / footage.fps;
      const cx = Math.min(1 - windowW / 2, Math.max(windowW / 2, keyframeCentre(keyframes, time).x));
      const rect = faceRect(face, time);
      const x0 = rect.x0 / footage.width;
      const x1 = rect.x1 / footage.width;
      if (x0 >= cx - windowW / 2 && x1 <= cx + windowW / 2) inside += 1;
    }
    expect(inside / frames).toBeGreaterThanOrEqual(0.95);

    // The render: the detector finds the face wholly inside the 9:16 picture on ≥ 95 % of frames.
    const api = client(base, owner.key);
    const render = await api.startRender({ compositionId: id });
    const history = await api.pollUntilTerminal(render.id, { timeoutMs: 120_000 });
    const done = history.at(-1);
    expect(done?.status, JSON.stringify(done)).toBe("succeeded");
    const file = path.join(tmp.dir, "reframed.mp4");
    await download(onServer(base, done?.output?.url ?? ""), file);
    const decoded = await sampleFrames(file, {
      start: 0,
      duration: footage.duration,
      fps: 25,
      width: 234,
      height: 416,
      timeoutMs: 60_000,
    });
    expect(decoded.count).toBe(frames);
    // Of the frames where the detector finds the face (it misses a few on the source too), the
    // face lies wholly inside the picture on at least 95 %.
    const found = (await detector.detect(decoded)).filter((faces) => faces.length > 0);
    expect(found.length / decoded.count).toBeGreaterThanOrEqual(0.75);
    const whole = found.filter((faces) =>
      faces.some((b) => b.x > 0.005 && b.x + b.w < 0.995 && b.y > 0.005 && b.y + b.h < 0.995),
    ).length;
    expect(whole / found.length).toBeGreaterThanOrEqual(0.95);
  }, 900_000);

  it("splits two people far apart into two stacked windows", async () => {
    const footage = await twoFaces(tmp.dir);
    const { id } = await compositionOf(footage);
    const res = await reframe(id, { aspectRatio: "9:16" });
    expect(res.statusCode, `${res.body}\n${errors()}`).toBe(200);
    const out = res.json();
    expect(out.shots).toMatchObject([{ layout: "split", subject: "faces", faces: 2 }]);
    const clip = out.composition.tracks[0].clips[0];
    const upper = keyframeCentre(clip.reframe.keyframes, 1);
    const lower = keyframeCentre(clip.reframe.split.keyframes, 1);
    // The left person above, the right one below.
    expect(upper.x).toBeLessThan(0.4);
    expect(lower.x).toBeGreaterThan(0.6);
    expect(out.reasons.join(" ")).toMatch(/split layout/);
    const frame = await t.app.inject({
      url: `/api/compositions/${id}/frame?t=1&width=270`,
      headers: bearer(owner.key),
    });
    expect(frame.statusCode).toBe(200);
    // The preview honours it: each half shows its window of the source (the same crop made by
    // ffmpeg from the source frame, compared pixel by pixel).
    const decode = (args: string[], input?: Buffer) =>
      run("ffmpeg", ["-v", "error", ...args, "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"], {
        input: input ?? Buffer.alloc(0),
      }).then((r) => r.stdout);
    const shown = await decode(["-i", "pipe:0", "-vf", "scale=270:480"], frame.rawPayload);
    const window = (x: number) =>
      `crop=w=trunc(min(iw\\,ih*270/240)/2)*2:h=ih:x=clip(${x}*iw-ow/2\\,0\\,iw-ow):y=0,scale=270:240`;
    const expected = await decode([
      ...["-ss", "1", "-i", footage.file, "-frames:v", "1"],
      ...[
        "-filter_complex",
        `[0:v]split[a][b];[a]${window(upper.x)}[u];[b]${window(lower.x)}[l];[u][l]vstack`,
      ],
    ]);
    expect(expected.length).toBe(shown.length);
    let diff = 0;
    for (let i = 0; i < shown.length; i += 1)
      diff += Math.abs((shown[i] as number) - (expected[i] as number));
    expect(diff / shown.length).toBeLessThan(8);
  }, 600_000);

  it("centres a shot without faces or motion and says so", async () => {
    const footage = await noFace(tmp.dir);
    const { id } = await compositionOf(footage);
    const res = await reframe(id, { aspectRatio: "1:1" });
    expect(res.statusCode, `${res.body}\n${errors()}`).toBe(200);
    const out = res.json();
    expect(out.composition.canvas).toMatchObject({ width: 360, height: 360 });
    expect(out.shots).toMatchObject([{ subject: "centre", faces: 0 }]);
    expect(out.composition.tracks[0].clips[0].reframe.keyframes).toEqual([{ time: 0, x: 0.5, y: 0.5 }]);
    expect(out.reasons.join(" ")).toMatch(/no face .*centred/);
  }, 300_000);

  it("the assistant's reframe (offline command model) writes what the endpoint writes", async () => {
    const footage = await noFace(tmp.dir, { width: 480, duration: 1 });
    const { id } = await compositionOf(footage);
    const viaApi = await reframe(id, { aspectRatio: "9:16" });
    expect(viaApi.statusCode, `${viaApi.body}\n${errors()}`).toBe(200);
    const c = await assistantClient(t, base);
    const upload = await uploadFile(t, c.key, await readFile(footage.file), "still.mp4");
    const s = await c.session({});
    const current = await c.composition(s.compositionId);
    const put = await t.app.inject({
      method: "PUT",
      url: `/api/compositions/${s.compositionId}`,
      headers: bearer(c.key),
      payload: {
        name: "talk",
        version: current.version,
        canvas: { width: footage.width, height: footage.height, fps: 25, background: "#000000" },
        tracks: [
          {
            kind: "video",
            clips: [{ start: 0, duration: footage.duration, asset: { type: "video", uploadId: upload.id } }],
          },
        ],
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    const { events } = await c.send(s.id, "make it vertical");
    const result = ofType(events, "tool_result").map((e) => e.data as { tool?: string; ok?: boolean });
    expect(result, JSON.stringify(events.slice(-3))).toMatchObject([{ ok: true }]);
    const after = (await c.composition(s.compositionId)) as unknown as {
      canvas: unknown;
      tracks: { clips: { reframe: unknown }[] }[];
    };
    const api = viaApi.json();
    expect(after.canvas).toEqual(api.composition.canvas);
    expect(after.tracks[0]?.clips[0]?.reframe).toEqual(api.composition.tracks[0].clips[0].reframe);
    const versions = await t.app.inject({
      url: `/api/compositions/${s.compositionId}/versions`,
      headers: bearer(c.key),
    });
    expect(versions.json().data[0].summary).toBe("reframed 9:16, 1 shot");
  }, 300_000);

  it("refuses a read-only key, a stale version, unknown clips and another account's composition", async () => {
    const footage = await noFace(tmp.dir, { width: 320, duration: 1 });
    const { id } = await compositionOf(footage);
    const reader = await t.addKey(owner.userId, ["read"]);
    expect((await reframe(id, { aspectRatio: "9:16" }, { key: reader.key })).statusCode).toBe(403);
    const stale = await reframe(id, { aspectRatio: "9:16" }, { version: 7 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe("version_conflict");
    const unknown = await reframe(id, { aspectRatio: "9:16", clipIds: ["clp_nope"] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([
      { path: "/clipIds/0", message: "no clip clp_nope in this composition" },
    ]);
    const bad = await reframe(id, { aspectRatio: "4:3" });
    expect(bad.statusCode).toBe(400);
    const other = await t.createAccount();
    expect((await reframe(id, { aspectRatio: "9:16" }, { key: other.key })).statusCode).toBe(404);
    const after = await t.app.inject({ url: `/api/compositions/${id}`, headers: bearer(owner.key) });
    expect(after.json().version).toBe(1);
  }, 300_000);
});
