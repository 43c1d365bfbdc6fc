import { mkdtemp, readdir, readFile, readlink, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUpload } from "../../src/db/repositories/uploads.ts";
import { type MediaFixtures, makeMediaFixtures, probe } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import {
  client,
  download,
  expectSaneHistory,
  onServer,
  type RenderBody,
  tinyCanvas,
  waitFor,
} from "./helpers.ts";

let t: TestApp;
let base: string;
let api: ReturnType<typeof client>;
let dir: string;
let fx: MediaFixtures;
let userId: string;
let lastSucceeded: RenderBody | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-render-http-"));
  // Renders in one piece (split renders: split.test.ts), so the long cancel test below stops
  // the render's own ffmpeg.
  [fx, t] = await Promise.all([
    makeMediaFixtures(dir),
    startTestApp({ worker: true, env: { RENDER_SEGMENT_SEC: "0" } }),
  ]);
  base = await t.listen();
  const account = await t.createAccount();
  userId = account.userId;
  api = client(base, account.key);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("render over HTTP with a worker", () => {
  it("renders uploaded clips with a crossfade, a title and music; the file matches what the API says", async () => {
    const [video, red, music] = await api.upload([fx.video, fx.red, fx.monoAudio]);
    const comp = await api.createComposition({
      name: "e2e",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [
            { start: 0, duration: 1.5, asset: { type: "video", uploadId: video?.id } },
            {
              start: 1.5,
              duration: 1.5,
              asset: { type: "video", uploadId: red?.id },
              transition: { type: "fade", duration: 0.5 },
            },
          ],
        },
        {
          kind: "video",
          clips: [
            {
              start: 0,
              duration: 1,
              asset: { type: "text", text: "Title", style: { family: "DejaVu Sans", size: 20 } },
            },
          ],
        },
        {
          kind: "audio",
          volume: 0.5,
          clips: [{ start: 0, duration: 3, asset: { type: "audio", uploadId: music?.id } }],
        },
      ],
    });
    const started = await api.startRender({
      compositionId: comp.id,
      compositionVersion: comp.version,
      output: { format: "mp4", quality: "draft" },
    });
    expect(started).toMatchObject({ status: "queued", attempt: 0, output: null, error: null });
    expect(started.progress).toMatchObject({ ratio: 0, phase: "queued" });

    const history = await api.pollUntilTerminal(started.id);
    expectSaneHistory(history);
    const done = history.at(-1);
    expect(done?.status, JSON.stringify(done?.error)).toBe("succeeded");
    expect(done?.progress).toMatchObject({ ratio: 1, phase: "done" });
    expect(done?.attempt).toBe(1);
    expect(done?.startedAt).not.toBeNull();
    expect(done?.finishedAt).not.toBeNull();
    const out = done?.output;
    expect(out).toMatchObject({ format: "mp4", width: 160, height: 90, fps: 25 });
    expect(Math.abs((out?.duration ?? 0) - 3)).toBeLessThanOrEqual(1 / 25);

    const file = path.join(dir, "out.mp4");
    const got = await download(onServer(base, out?.url ?? ""), file);
    expect(got).toEqual({ size: out?.size, sha256: out?.sha256, contentType: "video/mp4" });
    const p = await probe(file, true);
    expect(Math.abs(p.duration - 3)).toBeLessThanOrEqual(1 / 25 + 0.03);
    expect(p.video).toMatchObject({ width: 160, height: 90, codec: "h264", frames: 75 });
    expect(p.video?.fps).toBeCloseTo(25, 2);
    expect(p.audio).toMatchObject({ codec: "aac", sampleRate: 48000, channels: 2 });

    expect(out?.posterUrl).toBeTruthy();
    const poster = await fetch(onServer(base, out?.posterUrl ?? ""));
    expect(poster.status).toBe(200);
    expect(poster.headers.get("content-type")).toBe("image/jpeg");
    expect((await poster.arrayBuffer()).byteLength).toBeGreaterThan(100);
    lastSucceeded = done;
  });

  it("DELETE on a succeeded render is a 409 and keeps the output", async () => {
    expect(lastSucceeded).toBeDefined();
    const id = lastSucceeded?.id ?? "";
    const res = await api.json("DELETE", `/api/render/${id}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: "conflict" });
    expect((await api.getRender(id)).body.status).toBe("succeeded");
    expect(await stat(t.runtime.store.localPath(`renders/${id}/output.mp4`) ?? "")).toBeTruthy();
  });

  it("cancels a running render: 202 cancelling, ffmpeg gone and nothing stored within 2 s, then cancelled", async () => {
    const comp = await api.createComposition({
      name: "long",
      canvas: tinyCanvas(25),
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 900, asset: { type: "color", color: "#3366ff" } }] },
      ],
    });
    const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
    const running = await waitFor(async () => {
      const r = (await api.getRender(started.id)).body as RenderBody;
      return r.status === "rendering" && r.progress.ratio > 0.05 ? r : null;
    }, 30_000);
    expect(running.progress.phase).toBe("rendering");
    expect(await ffmpegOf(started.id)).not.toEqual([]);

    const del = await api.json("DELETE", `/api/render/${started.id}`);
    const cancelAt = Date.now();
    expect(del.status).toBe(202);
    expect(del.body.status).toBe("cancelling");
    await waitFor(async () => (await ffmpegOf(started.id)).length === 0, 2_000, 50);
    expect(await storedUnder(started.id)).toEqual([]);
    expect(await workDirsOf(started.id)).toEqual([]);
    expect(Date.now() - cancelAt).toBeLessThan(2_000);

    const history = await api.pollUntilTerminal(started.id, { timeoutMs: 10_000 });
    const end = history.at(-1);
    expect(end).toMatchObject({ status: "cancelled", output: null, error: null });
    expect(end?.progress.phase).toBe("done");
    expect(end?.progress.ratio).toBeGreaterThanOrEqual(running.progress.ratio);
    expect(end?.finishedAt).not.toBeNull();

    const again = await api.json("DELETE", `/api/render/${started.id}`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("cancelled");
  });

  it("broken source footage fails the render with a code and the clip id, without hanging", async () => {
    // A camera file cut off mid-write: its index (moov, written last) is missing.
    const [up] = await api.upload([fx.video]);
    const row = await findUpload(t.database.db, userId, up?.id ?? "");
    const stored = t.runtime.store.localPath(row?.storageKey ?? "") ?? "";
    await truncate(stored, Math.floor((await stat(stored)).size / 2));
    const comp = await api.createComposition({
      name: "broken",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [
            { start: 0, duration: 1, asset: { type: "color", color: "#000000" } },
            { id: "clp_broken", start: 1, duration: 1, asset: { type: "video", uploadId: up?.id } },
          ],
        },
      ],
    });
    const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 20_000 })).at(-1);
    expect(end?.status).toBe("failed");
    expect(end?.error).toMatchObject({ clipId: "clp_broken", uploadId: up?.id, retryable: false });
    expect(end?.error?.code).toBe("ASSET_UNSUPPORTED");
    expect(end?.error?.message).toMatch(/clp_broken/);
    expect(end?.error?.message).not.toContain(t.config.dataDir);
    expect(end?.output).toBeNull();
    expect(end?.attempt).toBe(1);
    expect(await storedUnder(started.id)).toEqual([]);
  });

  it("an ffmpeg failure reaches the caller as a plain message naming the clip and upload; ffmpeg's words stay in the log", async () => {
    // The stored "video" is replaced by a sound file: it still probes, but has no picture to decode.
    const [up] = await api.upload([fx.video]);
    const row = await findUpload(t.database.db, userId, up?.id ?? "");
    const stored = t.runtime.store.localPath(row?.storageKey ?? "") ?? "";
    await writeFile(stored, await readFile(fx.monoAudio));
    const comp = await api.createComposition({
      name: "no picture",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [{ id: "clp_sound", start: 0, duration: 1, asset: { type: "video", uploadId: up?.id } }],
        },
      ],
    });
    const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 20_000 })).at(-1);
    expect(end?.status).toBe("failed");
    expect(end?.error).toMatchObject({
      code: "ASSET_UNSUPPORTED",
      clipId: "clp_sound",
      uploadId: up?.id,
      retryable: false,
    });
    expect(end?.error?.message).toBe(
      `clip clp_sound: its source has no picture (upload ${up?.id} has no video track); use a file with picture or remove the clip`,
    );
    for (const internal of [/ffmpeg/i, /exited/, /stream/i, /filter/i, /\[\d+:[av]\]/, /\//, /\|/]) {
      expect(end?.error?.message).not.toMatch(internal);
    }
    const logged = t.logs.find((l) => l.includes('"ffmpeg failed"') && l.includes(started.id));
    expect(logged).toBeDefined();
    expect(JSON.parse(logged ?? "{}").stderr).not.toBe("");
  });

  it("a remote asset on a loopback address is refused: ASSET_FETCH_FAILED with the clip id", async () => {
    const comp = await api.createComposition({
      name: "ssrf",
      canvas: tinyCanvas(25),
      tracks: [
        {
          kind: "video",
          clips: [
            {
              id: "clp_remote",
              start: 0,
              duration: 1,
              asset: { type: "video", src: `https://127.0.0.1:${new URL(base).port}/x.mp4` },
            },
          ],
        },
      ],
    });
    const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 20_000 })).at(-1);
    expect(end?.status).toBe("failed");
    expect(end?.error).toMatchObject({ code: "ASSET_FETCH_FAILED", clipId: "clp_remote", retryable: false });
    expect(end?.error?.message).toMatch(/loopback|not allowed|refused/i);
    expect(end?.attempt).toBe(1);
  });
});

/** PIDs of ffmpeg processes of this process working for a render (their cwd is its work dir), from /proc. */
async function ffmpegOf(renderId: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // pid (comm) state ppid …
    const m = /^\d+ \((.*)\) (\S) (\d+)/.exec(stat);
    if (m?.[1] !== "ffmpeg" || m[2] === "Z" || Number(m[3]) !== process.pid) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => "");
    if (cwd.includes(renderId)) pids.push(Number(entry));
  }
  return pids;
}

/** Files stored under `renders/<id>/`. */
async function storedUnder(renderId: string): Promise<string[]> {
  const dirPath = t.runtime.store.localPath(`renders/${renderId}/x`) ?? "";
  return readdir(path.dirname(dirPath)).catch(() => []);
}

/** Working directories left for a render. */
async function workDirsOf(renderId: string): Promise<string[]> {
  return (await readdir(t.config.workDir).catch(() => [] as string[])).filter((d) => d.startsWith(renderId));
}
