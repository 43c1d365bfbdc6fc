import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { filesUnder } from "../helpers/files.ts";
import { postMultipart } from "../uploads/helpers.ts";

let t: TestApp;
let key: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.createAccount()).key;
  base = await t.listen();
});
afterAll(() => t.close());

const SRT = Buffer.from("1\n00:00:00,000 --> 00:00:01,000\nHello\n");

async function project(name = "Trip") {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/projects",
    headers: bearer(key),
    payload: { name },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; name: string; description: string; updatedAt: string };
}

/** A project holding one subtitle upload and one composition; returns their ids. */
async function filledProject() {
  const p = await project();
  const up = await postMultipart(
    base,
    [
      { field: "projectId", value: p.id },
      { filename: "words.srt", contentType: "application/x-subrip", data: SRT },
    ],
    { key },
  );
  expect(up.status, up.text).toBe(201);
  const uploadId = up.body.data?.[0]?.id as string;
  const comp = await t.app.inject({
    method: "POST",
    url: "/api/compositions",
    headers: bearer(key),
    payload: {
      name: "Cut",
      projectId: p.id,
      canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] },
      ],
    },
  });
  expect(comp.statusCode, comp.body).toBe(201);
  return { projectId: p.id, uploadId, compositionId: comp.json().id as string };
}

const get = (url: string) => t.app.inject({ url, headers: bearer(key) });
const del = (url: string) => t.app.inject({ method: "DELETE", url, headers: bearer(key) });

describe("projects", () => {
  it("renames and re-describes a project, naming a bad field in a 400", async () => {
    const p = await project();
    const res = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/projects/${p.id}`,
      headers: bearer(key),
      payload: { name: "Trip (final)", description: "Summer 2026" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: p.id, name: "Trip (final)", description: "Summer 2026" });
    expect((await get(`/api/v1/projects/${p.id}`)).json().name).toBe("Trip (final)");
    const bad = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/projects/${p.id}`,
      headers: bearer(key),
      payload: { name: "" },
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().error)).toContain("name");
    const other = (await t.createAccount()).key;
    const foreign = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/projects/${p.id}`,
      headers: bearer(other),
      payload: { name: "Mine" },
    });
    expect(foreign.statusCode).toBe(404);
  });

  it("deletes an empty project outright and answers 404 after", async () => {
    const p = await project();
    expect((await del(`/api/v1/projects/${p.id}`)).statusCode).toBe(204);
    expect((await get(`/api/v1/projects/${p.id}`)).statusCode).toBe(404);
    expect((await del(`/api/v1/projects/${p.id}`)).statusCode).toBe(404);
  });

  it("refuses to delete a non-empty project without a choice, listing what it holds", async () => {
    const { projectId } = await filledProject();
    const res = await del(`/api/v1/projects/${projectId}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.contents).toMatchObject({ uploads: 1, compositions: 1, generations: 0 });
    expect((await get(`/api/v1/projects/${projectId}`)).statusCode).toBe(200);
  });

  it("contents=keep keeps the uploads and compositions in the account, outside any project", async () => {
    const { projectId, uploadId, compositionId } = await filledProject();
    expect((await del(`/api/v1/projects/${projectId}?contents=keep`)).statusCode).toBe(204);
    const upload = await get(`/api/v1/uploads/${uploadId}`);
    expect(upload.statusCode).toBe(200);
    expect(upload.json().projectId).toBeNull();
    const comp = await get(`/api/compositions/${compositionId}`);
    expect(comp.statusCode).toBe(200);
    expect(comp.json().projectId).toBeNull();
  });

  it("contents=delete removes the uploads with their stored files and the compositions", async () => {
    const { projectId, uploadId, compositionId } = await filledProject();
    const blobs = path.join(t.config.dataDir, "blobs");
    expect((await filesUnder(blobs)).some((f) => f.includes(uploadId))).toBe(true);
    expect((await del(`/api/v1/projects/${projectId}?contents=delete`)).statusCode).toBe(204);
    expect((await get(`/api/v1/uploads/${uploadId}`)).statusCode).toBe(404);
    expect((await get(`/api/compositions/${compositionId}`)).statusCode).toBe(404);
    expect((await filesUnder(blobs)).some((f) => f.includes(uploadId))).toBe(false);
  });

  it("rejects an unknown contents choice naming the field", async () => {
    const p = await project();
    const res = await del(`/api/v1/projects/${p.id}?contents=drop`);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error)).toContain("contents");
  });
});
