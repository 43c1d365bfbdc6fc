import { readdir, readFile, readlink, writeFile } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ffmpeg,
  frameNumber,
  type MediaFixtures,
  makeMediaFixtures,
  probe,
  psnr,
  tempDir,
} from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, waitFor } from "../renders/helpers.ts";

// "Play from here" (`GET /api/compositions/:id/preview.mp4`) and the preview frame against a
// real render, through HTTP on a listening server.
let t: TestApp;
let base: string;
let key: string;
/** A key of the same account with only the `read` scope. */
let readKey: string;
let api: ReturnType<typeof client>;
let dir: string;
let cleanup: () => Promise<void>;
let fx: MediaFixtures;
let compId: string;
const canvas = { width: 320, height: 180, fps: 25, background: "#000000" };

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-preview-"));
  [fx, t] = await Promise.all([
    makeMediaFixtures(dir),
    startTestApp({ worker: true, env: { RENDER_MAX_WIDTH: "1920" } }),
  ]);
  base = await t.listen();
  const account = await t.createAccount();
  key = account.key;
  readKey = (await t.addKey(account.userId, ["read"])).key;
  api = client(base, key);
  const [video, still] = await api.upload([fx.video, fx.still]);
  const comp = await api.createComposition({
    name: "preview",
    canvas,
    tracks: [
      {
        kind: "video",
        clips: [
          { start: 0, duration: 2.6, asset: { type: "video", uploadId: video?.id } },
          {
            start: 2.6,
            duration: 1.4,
            asset: { type: "color", color: "#00ff00" },
            transition: { type: "fade", duration: 0.4 },
          },
        ],
      },
      {
        kind: "video",
        clips: [
          {
            start: 0.5,
            duration: 3,
            asset: { type: "image", uploadId: still?.id },
            transform: { x: 0.8, y: 0.25, width: 0.25 },
            fadeIn: 0.3,
          },
        ],
      },
      {
        kind: "video",
        clips: [
          {
            start: 0,
            duration: 4,
            asset: { type: "text", text: "Preview", style: { family: "DejaVu Sans", size: 28 } },
          },
        ],
      },
    ],
  });
  compId = comp.id;
  // Fixtures, an app with its worker and two uploads: slow on a loaded machine.
}, 180_000);
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

/** GET the preview video; the body saved to a file. */
async function previewVideo(query: string, name: string) {
  const res = await fetch(`${base}/api/compositions/${compId}/preview.mp4?${query}`, {
    headers: bearer(key),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return { res, bytes, file };
}

describe("GET /api/compositions/:id/preview.mp4", () => {
  it("streams a fragmented MP4 of the asked seconds at the asked width, with sound", async () => {
    const { res, bytes, file } = await previewVideo("from=1&duration=2&width=160", "two.mp4");
    expect(res.status, bytes.toString("utf8", 0, 300)).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("x-composition-version")).toBe("1");
    expect(res.headers.get("x-preview-duration")).toBe("2");
    expect(res.headers.get("content-length")).toBeNull();
    // Fragmented: a movie fragment box follows the (empty) movie header.
    expect(bytes.includes(Buffer.from("moof"))).toBe(true);
    const facts = await probe(file, true);
    expect(facts.video).toMatchObject({ width: 160, height: 90, codec: "h264", frames: 50 });
    expect(facts.audio).toMatchObject({ codec: "aac", sampleRate: 48000 });
    expect(facts.duration).toBeGreaterThan(1.95);
    expect(facts.duration).toBeLessThan(2.1);
  });

  it("shows the same picture as a render of that range", async () => {
    const { file } = await previewVideo("from=2&duration=2&width=320", "range.mp4");
    const started = await api.startRender({
      compositionId: compId,
      output: { format: "mp4", quality: "draft", range: { start: 2, duration: 2 }, width: 320 },
    });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 60_000 })).at(-1);
    expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
    const rendered = path.join(dir, "range-render.mp4");
    await download(onServer(base, end?.output?.url ?? ""), rendered);
    // Frame 10 (in the fade into green), 30 (green): both encodes of one plan.
    for (const n of [10, 30]) {
      const a = await frameNumber(file, n, 320, 180);
      const b = await frameNumber(rendered, n, 320, 180);
      expect(psnr(a, b), `frame ${n}`).toBeGreaterThan(30);
    }
  });

  it("cuts the video at the composition's end", async () => {
    const { res, file } = await previewVideo("from=3.5&duration=10&width=160", "end.mp4");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-preview-duration")).toBe("0.5");
    expect((await probe(file, true)).video?.frames).toBe(12);
  });

  it("answers 400 naming the field for a bad from, duration or width; a read-only key may watch", async () => {
    const cases: Array<[string, string]> = [
      ["from=4", "/from"],
      ["from=-1", "/from"],
      ["from=abc", "/from"],
      ["duration=6", "/from"],
      ["from=1&duration=0", "/duration"],
      ["from=1&duration=10.5", "/duration"],
      ["from=1&width=8", "/width"],
    ];
    for (const [query, field] of cases) {
      const res = await fetch(`${base}/api/compositions/${compId}/preview.mp4?${query}`, {
        headers: bearer(key),
      });
      const body = (await res.json()) as { error: { code: string; details?: { path: string }[] } };
      expect(res.status, query).toBe(400);
      expect(body.error.code).toBe("invalid_request");
      expect(
        body.error.details?.map((d) => d.path),
        query,
      ).toContain(field);
    }
    const other = (await t.createAccount()).key;
    const foreign = await fetch(`${base}/api/compositions/${compId}/preview.mp4?from=0`, {
      headers: bearer(other),
    });
    expect(foreign.status).toBe(404);
    const anonymous = await fetch(`${base}/api/compositions/${compId}/preview.mp4?from=0`);
    expect(anonymous.status).toBe(401);
    const reading = await fetch(
      `${base}/api/compositions/${compId}/preview.mp4?from=0&duration=0.2&width=64`,
      {
        headers: bearer(readKey),
      },
    );
    expect(reading.status).toBe(200);
    expect((await reading.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it("answers 409 with the renderer's reason, for the video and the frame, when a source is gone", async () => {
    const [up] = await api.upload([fx.red]);
    const broken = await api.createComposition({
      name: "loses its source",
      canvas,
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 2, asset: { type: "video", uploadId: up?.id } }] },
      ],
    });
    expect((await api.json("DELETE", `/api/v1/uploads/${up?.id}?force=true`)).status).toBe(204);
    for (const url of [`preview.mp4?from=0.5&duration=1`, `frame?t=0.5`]) {
      const res = await fetch(`${base}/api/compositions/${broken.id}/${url}`, { headers: bearer(key) });
      const body = (await res.json()) as {
        error: { code: string; renderError?: { code: string; clipId?: string } };
      };
      expect(res.status, url).toBe(409);
      expect(body.error.code).toBe("conflict");
      expect(body.error.renderError?.code, url).toBe("ASSET_NOT_FOUND");
    }
    expect((await readdir(t.config.workDir)).filter((d) => /^(pvw|frm)_/.test(d))).toEqual([]);
  });

  it("stops ffmpeg and removes its files when the client goes away", async () => {
    // Ten seconds of 1080p noise: far more to encode than the moment the client stays.
    const noise = path.join(dir, "noise.mp4");
    await ffmpeg([
      ...["-f", "lavfi", "-i", "nullsrc=s=640x360:r=25:d=2,geq=lum='random(1)*255':cb=128:cr=128"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", noise],
    ]);
    const [up] = await api.upload([noise]);
    const clips = Array.from({ length: 5 }, (_, i) => ({
      start: i * 2,
      duration: 2,
      asset: { type: "video", uploadId: up?.id },
    }));
    const heavy = await api.createComposition({
      name: "noise",
      canvas: { width: 1920, height: 1080, fps: 25, background: "#000000" },
      tracks: [{ kind: "video", clips }],
    });
    const workRoot = t.config.workDir;
    const url = new URL(`${base}/api/compositions/${heavy.id}/preview.mp4?from=0&duration=10&width=1920`);
    const running = await new Promise<{ pid: number; workDir: string }>((resolve, reject) => {
      const req = request(url, { headers: bearer(key) }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once("data", async () => {
          // Which ffmpeg writes this stream: the one whose working directory is the preview's.
          const dirs = (await readdir(workRoot)).filter((d) => d.startsWith("pvw_"));
          const workDir = path.join(workRoot, dirs[0] ?? "");
          const pid = await ffmpegIn(workDir);
          req.destroy();
          if (pid === null) reject(new Error(`no ffmpeg runs in ${workDir}`));
          else resolve({ pid, workDir });
        });
      });
      req.on("error", () => {});
      req.end();
    });
    await waitFor(async () => !(await alive(running.pid)), 10_000);
    await waitFor(async () => !(await readdir(workRoot)).some((d) => d.startsWith("pvw_")), 10_000);
    // The slot is free again: another preview streams at once.
    const after = await previewVideo("from=0&duration=0.4&width=160", "after.mp4");
    expect(after.res.status).toBe(200);
  });
});

describe("GET /api/compositions/:id/frame against a render", () => {
  it("draws the frame a render of the whole composition shows (PSNR > 30 dB)", async () => {
    const started = await api.startRender({
      compositionId: compId,
      output: { format: "mp4", quality: "high" },
    });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 60_000 })).at(-1);
    expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
    const rendered = path.join(dir, "whole.mp4");
    await download(onServer(base, end?.output?.url ?? ""), rendered);
    // In the clip with the logo fading in, in the transition, after it.
    for (const [time, n] of [
      [0.64, 16],
      [2.6, 65],
      [3.4, 85],
    ] as const) {
      const res = await fetch(`${base}/api/compositions/${compId}/frame?t=${time}&width=320`, {
        headers: bearer(key),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("server-timing")).toMatch(/^prepare;dur=[\d.]+, ffmpeg;dur=[\d.]+$/);
      const jpeg = path.join(dir, `frame-${n}.jpg`);
      await writeFile(jpeg, Buffer.from(await res.arrayBuffer()));
      const preview = await frameNumber(jpeg, 0, 320, 180);
      const frame = await frameNumber(rendered, n, 320, 180);
      const db = psnr(preview, frame);
      expect(db, `t=${time}`).toBeGreaterThan(30);
    }
    const again = await fetch(`${base}/api/compositions/${compId}/frame?t=0.65&width=320`, {
      headers: bearer(key),
    });
    // 0.65 s is within frame 16 (0.64–0.68 s): the cached frame.
    expect(again.headers.get("server-timing")).toBe('cache;desc="hit"');
    expect(again.headers.get("etag")).toBe('"1-f16-320"');
  });
});

/** The pid of the ffmpeg whose working directory is `workDir` (Linux `/proc`), or null. */
async function ffmpegIn(workDir: string): Promise<number | null> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => "");
    if (cwd === workDir) return Number(entry);
  }
  return null;
}

/** Whether process `pid` still exists (and is not a zombie). */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
}
