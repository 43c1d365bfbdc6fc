import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, probe, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type GenerationJson, post, readSigned, uploadFile, waitTerminal } from "./helpers.ts";

const run = promisify(execFile);
let t: TestApp;
let owner: { userId: string; key: string };
let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  t = await startTestApp({ worker: true });
  owner = await t.createAccount();
  tmp = await tempDir("cutroom-gen-");
});
afterAll(async () => {
  await t.close();
  await tmp.cleanup();
});

/** Luminance centroid (x, y) of every frame of a grey decode of `file` (`width`×`height`). */
async function centroids(file: string, width: number, height: number): Promise<[number, number][]> {
  const { stdout } = await run(
    "ffmpeg",
    ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
    { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 },
  );
  const size = width * height;
  const out: [number, number][] = [];
  for (let o = 0; o + size <= stdout.length; o += size) {
    let sum = 0;
    let sx = 0;
    let sy = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const v = Math.max(0, (stdout[o + y * width + x] as number) - 16);
        sum += v;
        sx += v * x;
        sy += v * y;
      }
    }
    out.push([sx / sum, sy / sum]);
  }
  return out;
}

describe("offline image generation", () => {
  it("answers 201 with a labelled offline PNG at the exact size, stored as a generated upload", async () => {
    const res = await post(t, owner.key, "/api/v1/generate/image", {
      prompt: "A paper boat on a puddle",
      imageSize: { width: 320, height: 200 },
      seed: 3,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers.location).toMatch(/^\/api\/v1\/generations\/gen_/);
    const g = res.json() as GenerationJson;
    expect(g).toMatchObject({
      kind: "image",
      status: "succeeded",
      model: { id: "offline/placeholder-image", provider: "offline", offline: true },
      params: { imageSize: { width: 320, height: 200 }, numImages: 1, seed: 3 },
      error: null,
      progress: 1,
    });
    expect(g.outputs).toHaveLength(1);
    const [out] = g.outputs;
    expect(out).toMatchObject({
      type: "image",
      mimeType: "image/png",
      origin: "generated",
      generationId: g.id,
    });
    expect(out?.media).toMatchObject({ width: 320, height: 200 });
    const file = path.join(tmp.dir, "img.png");
    await writeFile(file, await readSigned(t, out?.url as string));
    expect((await probe(file)).video).toMatchObject({ width: 320, height: 200, codec: "png" });
    // An ordinary upload of the caller.
    const upl = await t.app.inject({ url: `/api/v1/uploads/${out?.id}`, headers: bearer(owner.key) });
    expect(upl.json()).toMatchObject({ id: out?.id, origin: "generated", generationId: g.id });
  });

  it("is deterministic for prompt and seed, and makes numImages different images at the preset size", async () => {
    const a = (await post(t, owner.key, "/api/v1/generate/image", { prompt: "same", seed: 9 })).json();
    const b = (await post(t, owner.key, "/api/v1/generate/image", { prompt: "same", seed: 9 })).json();
    expect(a.outputs[0].sha256).toBe(b.outputs[0].sha256);
    const many = (
      await post(t, owner.key, "/api/v1/generate/image", { prompt: "several", numImages: 2 })
    ).json();
    expect(many.outputs).toHaveLength(2);
    expect(many.outputs[0].sha256).not.toBe(many.outputs[1].sha256);
    expect(many.outputs[0].media).toMatchObject({ width: 1024, height: 768 });
  });

  it("lists generations newest first with kind and status filters and cursor pages", async () => {
    const other = await t.createAccount();
    await post(t, other.key, "/api/v1/generate/image", { prompt: "first", imageSize: "square" });
    await post(t, other.key, "/api/v1/generate/image", { prompt: "second", imageSize: "square" });
    const page1 = (
      await t.app.inject({ url: "/api/v1/generations?limit=1", headers: bearer(other.key) })
    ).json();
    expect(page1.data.map((g: GenerationJson) => g.prompt)).toEqual(["second"]);
    const page2 = (
      await t.app.inject({
        url: `/api/v1/generations?limit=1&cursor=${page1.nextCursor}`,
        headers: bearer(other.key),
      })
    ).json();
    expect(page2.data.map((g: GenerationJson) => g.prompt)).toEqual(["first"]);
    expect(page2.nextCursor).toBeNull();
    const videos = (
      await t.app.inject({ url: "/api/v1/generations?kind=video", headers: bearer(other.key) })
    ).json();
    expect(videos.data).toEqual([]);
    const ok = (
      await t.app.inject({ url: "/api/v1/generations?status=succeeded", headers: bearer(other.key) })
    ).json();
    expect(ok.data).toHaveLength(2);
  });
});

describe("validation and access", () => {
  it("answers 400 naming the offending fields", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["/api/v1/generate/image", { prompt: "" }, "/prompt"],
      ["/api/v1/generate/image", { prompt: "x".repeat(2001) }, "/prompt"],
      ["/api/v1/generate/image", { prompt: "x", numImages: 5 }, "/numImages"],
      ["/api/v1/generate/image", { prompt: "x", imageSize: { width: 100, height: 64 } }, "/imageSize/width"],
      ["/api/v1/generate/image", { prompt: "x", imageSize: "huge" }, "/imageSize"],
      ["/api/v1/generate/image", { prompt: "x", style: "anime" }, "/style"],
      ["/api/v1/generate/video", { prompt: "x" }, "/imageUrl"],
      ["/api/v1/generate/video", { prompt: "x", imageUrl: "upl_x", aspectRatio: "2:1" }, "/aspectRatio"],
      ["/api/v1/generate/video", { prompt: "x", imageUrl: "upl_x", duration: "10s" }, "/duration"],
      ["/api/v1/generate/video", { prompt: "x", imageUrl: "not a url" }, "/imageUrl"],
    ];
    for (const [url, body, pointer] of cases) {
      const res = await post(t, owner.key, url, body);
      expect(res.statusCode, `${url} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      const paths = res.json().error.details.map((d: { path: string }) => d.path);
      expect(paths, JSON.stringify(body).slice(0, 80)).toContain(pointer);
    }
  });

  it("refuses loopback, private, link-local, metadata and non-https image URLs (SSRF)", async () => {
    for (const imageUrl of [
      "https://127.0.0.1/still.png",
      "https://localhost/still.png",
      "https://[::1]/still.png",
      "https://10.1.2.3/still.png",
      "https://192.168.0.10/still.png",
      "https://169.254.169.254/latest/meta-data/",
      "http://example.com/still.png",
      "https://user:pw@93.184.216.34/still.png",
    ]) {
      const res = await post(t, owner.key, "/api/v1/generate/video", { prompt: "x", imageUrl });
      expect(res.statusCode, imageUrl).toBe(400);
      expect(res.json().error.details[0].path).toBe("/imageUrl");
    }
  });

  it("needs the write scope, hides other owners' generations (404) and refuses their uploads", async () => {
    const g = (
      await post(t, owner.key, "/api/v1/generate/image", { prompt: "mine", imageSize: "square" })
    ).json();
    const reader = await t.addKey(owner.userId, ["read"]);
    expect((await post(t, reader.key, "/api/v1/generate/image", { prompt: "x" })).statusCode).toBe(403);
    expect(
      (await post(t, reader.key, "/api/v1/generate/video", { prompt: "x", imageUrl: "upl_x" })).statusCode,
    ).toBe(403);
    const del = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/generations/${g.id}`,
      headers: bearer(reader.key),
    });
    expect(del.statusCode).toBe(403);
    expect(
      (await t.app.inject({ url: `/api/v1/generations/${g.id}`, headers: bearer(reader.key) })).statusCode,
    ).toBe(200);

    const stranger = await t.createAccount();
    expect(
      (await t.app.inject({ url: `/api/v1/generations/${g.id}`, headers: bearer(stranger.key) })).statusCode,
    ).toBe(404);
    const theirDelete = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/generations/${g.id}`,
      headers: bearer(stranger.key),
    });
    expect(theirDelete.statusCode).toBe(404);
    const borrowed = await post(t, stranger.key, "/api/v1/generate/video", {
      prompt: "x",
      imageUrl: g.outputs[0].id,
    });
    expect(borrowed.statusCode).toBe(400);
    expect(borrowed.json().error.details[0].path).toBe("/imageUrl");
    // Deleting a finished generation is a no-op answered with the resource.
    const done = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/generations/${g.id}`,
      headers: bearer(owner.key),
    });
    expect(done.statusCode).toBe(200);
    expect(done.json().status).toBe("succeeded");
  });
});

describe("offline still-to-video", () => {
  it("animates a still at the exact size, duration and 24 fps, with a smooth Ken Burns move", async () => {
    // A bright disc on black: its luminance centroid follows the move with sub-pixel precision
    // (a hard-edged shape, so that the encoder cannot skip its small per-frame shifts).
    const still = path.join(tmp.dir, "spot.png");
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "color=black:s=1280x720,format=gray",
      "-vf",
      "geq=lum='16+200*clip((80-hypot(X-384\\,Y-360))/2+0.5\\,0\\,1)'",
      "-frames:v",
      "1",
      still,
    ]);
    const upload = await uploadFile(t, owner.key, await readFile(still), "spot.png");
    const res = await post(t, owner.key, "/api/v1/generate/video", {
      prompt: "slow push-in",
      imageUrl: upload.id,
      duration: "4s",
      generateAudio: true,
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers["retry-after"]).toBeDefined();
    expect(res.json()).toMatchObject({
      status: "queued",
      model: { id: "offline/ken-burns-video", offline: true },
      params: { resolution: "720p", duration: "4s", aspectRatio: "auto", generateAudio: true },
      warnings: [{ code: "audio_unavailable_offline" }],
    });
    const g = await waitTerminal(t, owner.key, res.json().id);
    expect(g.status, JSON.stringify(g.error)).toBe("succeeded");
    const file = path.join(tmp.dir, "kb.mp4");
    await writeFile(file, await readSigned(t, g.outputs[0]?.url as string));
    const p = await probe(file, true);
    expect(p.video).toMatchObject({ width: 1280, height: 720, fps: 24, frames: 96 });
    expect(Math.abs(p.duration - 4)).toBeLessThanOrEqual(1 / 24);
    expect(p.audio).toBeUndefined();

    const c = await centroids(file, 1280, 720);
    expect(c).toHaveLength(96);
    const dx = c.slice(1).map((v, i) => v[0] - (c[i] as [number, number])[0]);
    const dy = c.slice(1).map((v, i) => v[1] - (c[i] as [number, number])[1]);
    const total = (c.at(-1) as [number, number])[0] - (c[0] as [number, number])[0];
    // It moves (zoom towards the right pushes a spot left of centre further left)…
    expect(total).toBeLessThan(-40);
    // …always the same way (no reversal)…
    for (const d of dx) expect(d).toBeLessThanOrEqual(0.05);
    // …and without steps: the per-frame shift changes gradually (whole-pixel snapping would jump by ~1 px).
    for (const series of [dx, dy]) {
      for (let i = 1; i < series.length; i++) {
        expect(Math.abs((series[i] as number) - (series[i - 1] as number))).toBeLessThan(0.25);
      }
    }
  });

  it("accepts the url the API returned for an image upload, and picks 9:16 for a portrait still with auto", async () => {
    const img = (
      await post(t, owner.key, "/api/v1/generate/image", { prompt: "tall", imageSize: "portrait_16_9" })
    ).json() as GenerationJson;
    const res = await post(t, owner.key, "/api/v1/generate/video", {
      prompt: "pan",
      imageUrl: img.outputs[0]?.url as string,
      duration: "4s",
    });
    expect(res.statusCode, res.body).toBe(202);
    const g = await waitTerminal(t, owner.key, res.json().id);
    expect(g.status).toBe("succeeded");
    expect(g.outputs[0]?.media).toMatchObject({ width: 720, height: 1280 });
    expect(Math.abs((g.outputs[0]?.media?.duration ?? 0) - 4)).toBeLessThanOrEqual(1 / 24);
  });
});
