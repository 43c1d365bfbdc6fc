import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFramePreview } from "../../src/domain/preview/render-frame.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let key: string;
let userId: string;
let id: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ key, userId } = await t.createAccount());
  const res = await t.app.inject({
    method: "POST",
    url: "/api/compositions",
    headers: bearer(key),
    payload: {
      name: "Two colours",
      canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
      tracks: [
        {
          kind: "video",
          clips: [
            { start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } },
            { start: 1, duration: 1, asset: { type: "color", color: "#00ff00" } },
          ],
        },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  id = res.json().id;
});
afterAll(() => t.close());

/** The frame's size and mean colour. */
async function frameAt(time: number, width?: number) {
  const res = await t.app.inject({
    url: `/api/compositions/${id}/frame?t=${time}${width ? `&width=${width}` : ""}`,
    headers: bearer(key),
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers["content-type"]).toBe("image/jpeg");
  const img = sharp(res.rawPayload);
  const meta = await img.metadata();
  const stats = await img.stats();
  const [r, g, b] = stats.channels.map((c) => c.mean);
  return { res, width: meta.width, height: meta.height, r: r ?? 0, g: g ?? 0, b: b ?? 0 };
}

describe("GET /api/compositions/:id/frame", () => {
  it("draws the clip under the playhead at the asked width, canvas aspect kept", async () => {
    const red = await frameAt(0.5, 160);
    expect([red.width, red.height]).toEqual([160, 90]);
    expect(red.r).toBeGreaterThan(200);
    expect(red.g).toBeLessThan(60);
    expect(red.res.headers["x-composition-version"]).toBe("1");
    const green = await frameAt(1.5);
    expect(green.width).toBe(640);
    expect(green.g).toBeGreaterThan(200);
    expect(green.r).toBeLessThan(60);
  });

  it("answers 304 to its own ETag and a new frame after an edit", async () => {
    const first = await frameAt(0.5, 64);
    // The same URL shows the next version too: a browser must revalidate, never reuse it unasked.
    expect(first.res.headers["cache-control"]).toBe("private, no-cache");
    const again = await t.app.inject({
      url: `/api/compositions/${id}/frame?t=0.5&width=64`,
      headers: { ...bearer(key), "if-none-match": String(first.res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const patch = await t.app.inject({
      method: "PATCH",
      url: `/api/compositions/${id}`,
      headers: { ...bearer(key), "if-match": '"1"' },
      payload: [{ op: "replace", path: "/tracks/0/clips/0/asset/color", value: "#0000ff" }],
    });
    expect(patch.statusCode, patch.body).toBe(200);
    const blue = await frameAt(0.5, 64);
    expect(blue.res.headers["x-composition-version"]).toBe("2");
    expect(blue.res.headers.etag).not.toBe(first.res.headers.etag);
    expect(blue.b).toBeGreaterThan(200);
    expect(blue.r).toBeLessThan(60);
  });

  it("names t past the end, and hides other owners' compositions", async () => {
    const late = await t.app.inject({ url: `/api/compositions/${id}/frame?t=2`, headers: bearer(key) });
    expect(late.statusCode).toBe(400);
    expect(late.json().error.details[0].path).toBe("/t");
    const wide = await t.app.inject({
      url: `/api/compositions/${id}/frame?t=0&width=5000`,
      headers: bearer(key),
    });
    expect(wide.statusCode).toBe(400);
    const other = (await t.createAccount()).key;
    const foreign = await t.app.inject({ url: `/api/compositions/${id}/frame?t=0`, headers: bearer(other) });
    expect(foreign.statusCode).toBe(404);
  });
});

describe("frames of callers that went away", () => {
  const frames = () =>
    createFramePreview({
      db: t.database.db,
      store: t.runtime.store,
      workRoot: t.config.workDir,
      log: t.runtime.log,
      stallTimeoutMs: 20_000,
      concurrency: 2,
      maxWaiting: 8,
      cacheBytes: 1024 * 1024,
    });

  it("rejects with the signal's reason, and an identical request after it still gets its frame", async () => {
    const service = frames();
    const gone = new AbortController();
    const left = service.frame(userId, id, 0.5, 96, { signal: gone.signal });
    const reason = new Error("the client went away");
    setImmediate(() => gone.abort(reason));
    await expect(left).rejects.toBe(reason);
    const after = await service.frame(userId, id, 0.5, 96);
    expect(after.jpeg.length).toBeGreaterThan(0);
  });

  it("keeps rendering a shared frame for the callers still waiting", async () => {
    const service = frames();
    const gone = new AbortController();
    const left = service.frame(userId, id, 1.5, 96, { signal: gone.signal });
    const staying = service.frame(userId, id, 1.5, 96);
    setImmediate(() => gone.abort(new Error("the client went away")));
    await expect(left).rejects.toThrow("the client went away");
    const green = await sharp((await staying).jpeg).stats();
    expect(green.channels[1]?.mean).toBeGreaterThan(200);
  });
});
