import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client } from "../renders/helpers.ts";

// Defaults for the canvas size; the other limits lowered so that tests stay small.
let t: TestApp;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  t = await startTestApp({
    env: { RENDER_MAX_FPS: "30", RENDER_MAX_DURATION_SEC: "600", COMPOSITION_MAX_CLIPS: "3" },
  });
  api = client(await t.listen(), (await t.createAccount()).key);
});
afterAll(() => t.close());

const color = (start: number, duration = 1) => ({
  start,
  duration,
  asset: { type: "color", color: "#112233" },
});
const paths = (body: { error: { details: { path: string }[] } }) => body.error.details.map((d) => d.path);

describe("composition render cost limits", () => {
  it("refuses a 4096×4096, 60 fps, 86,400 s canvas with one detail per exceeded limit", async () => {
    const res = await api.json("POST", "/api/compositions", {
      name: "huge",
      canvas: { width: 4096, height: 4096, fps: 60, duration: 86_400, background: "#000000" },
      tracks: [{ kind: "video", clips: [color(0)] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(paths(res.body)).toEqual(
      expect.arrayContaining(["/canvas/width", "/canvas/height", "/canvas/fps", "/canvas/duration"]),
    );
    const byPath = new Map(
      res.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message]),
    );
    expect(byPath.get("/canvas/width")).toMatch(/3840 pixels/);
    expect(byPath.get("/canvas/fps")).toMatch(/30 frames per second/);
    expect(byPath.get("/canvas/duration")).toMatch(/600 s/);
  });

  it("refuses a frame over the total pixel limit even when each side is allowed (portrait 4K is fine)", async () => {
    const square = await api.json("POST", "/api/compositions", {
      name: "square",
      canvas: { width: 3840, height: 3840, fps: 30, background: "#000000" },
      tracks: [{ kind: "video", clips: [color(0)] }],
    });
    expect(square.status).toBe(400);
    expect(paths(square.body)).toEqual(["/canvas/height"]);
    expect(square.body.error.details[0].message).toMatch(/8294400/);
    const portrait = await api.json("POST", "/api/compositions", {
      name: "portrait",
      canvas: { width: 2160, height: 3840, fps: 30, background: "#000000" },
      tracks: [{ kind: "video", clips: [color(0)] }],
    });
    expect(portrait.status).toBe(201);
  });

  it("counts clips over all tracks and measures the timeline from the last clip's end", async () => {
    const many = await api.json("POST", "/api/compositions", {
      name: "many",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        { kind: "video", clips: [color(0), color(1)] },
        { kind: "video", clips: [color(0), color(1)] },
      ],
    });
    expect(many.status).toBe(400);
    expect(many.body.error.details).toEqual([{ path: "/tracks", message: "4 clips; at most 3 are allowed" }]);

    const long = await api.json("POST", "/api/compositions", {
      name: "long",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [{ kind: "video", clips: [color(599, 2)] }],
    });
    expect(long.status).toBe(400);
    expect(paths(long.body)).toEqual(["/tracks"]);
    expect(long.body.error.details[0].message).toMatch(/601 s long; at most 600 s/);
  });

  it("PUT and PATCH over a limit are refused and change nothing", async () => {
    const doc = {
      name: "ok",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [{ kind: "video", clips: [color(0)] }],
    };
    const created = await api.createComposition(doc);
    const put = await api.json("PUT", `/api/compositions/${created.id}`, {
      ...doc,
      version: created.version,
      canvas: { width: 160, height: 90, fps: 50, background: "#000000" },
    });
    expect(put.status).toBe(400);
    expect(paths(put.body)).toEqual(["/canvas/fps"]);

    const patch = await api.json(
      "PATCH",
      `/api/compositions/${created.id}`,
      [{ op: "add", path: "/tracks/0/clips/-", value: color(1, 600) }],
      { "content-type": "application/json-patch+json" },
    );
    expect(patch.status).toBe(400);
    expect(paths(patch.body)).toEqual(["/tracks"]);

    const after = await api.json("GET", `/api/compositions/${created.id}`);
    expect(after.body.version).toBe(created.version);
    expect(after.body.canvas.fps).toBe(25);
    expect(after.body.tracks[0].clips).toHaveLength(1);
  });
});
