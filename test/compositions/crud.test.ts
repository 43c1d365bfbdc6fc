import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.createAccount()).key;
});
afterAll(() => t.close());

const body = () => ({
  name: "Teaser",
  canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start: 2, duration: 2, asset: { type: "color", color: "#ff0000" } },
        { start: 0, duration: 2, asset: { type: "color", color: "#00ff00" } },
      ],
    },
  ],
});

async function create(k = key) {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/compositions",
    headers: bearer(k),
    payload: body(),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res;
}

describe("compositions", () => {
  it("creates with server-assigned ids, sorted clips, version 1 and an ETag", async () => {
    const res = await create();
    const c = res.json();
    expect(c.id).toMatch(/^cmp_/);
    expect(c.version).toBe(1);
    expect(c.schemaVersion).toBe(1);
    expect(res.headers.etag).toBe('"1"');
    expect(c.tracks[0].id).toMatch(/^trk_/);
    expect(c.tracks[0].clips.map((x: { start: number }) => x.start)).toEqual([0, 2]);
    expect(c.tracks[0].clips[0].id).toMatch(/^clp_/);
    const got = await t.app.inject({ url: `/api/compositions/${c.id}`, headers: bearer(key) });
    expect(got.json()).toEqual(c);
  });

  it("rejects overlapping clips and bad references with JSON Pointer paths, storing nothing", async () => {
    const bad = body();
    const clips = bad.tracks[0]?.clips as unknown[];
    clips.push({ start: 1, duration: 2, asset: { type: "color", color: "#0000ff" } });
    clips.push({
      start: 9,
      duration: 1,
      asset: { type: "video", uploadId: "upl_missing" },
    });
    const before = (await t.app.inject({ url: "/api/compositions?limit=100", headers: bearer(key) })).json()
      .data.length;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/compositions",
      headers: bearer(key),
      payload: bad,
    });
    expect(res.statusCode).toBe(400);
    const paths = res.json().error.details.map((d: { path: string }) => d.path);
    expect(paths.some((p: string) => p.startsWith("/tracks/0/clips/2"))).toBe(true);
    expect(paths).toContain("/tracks/0/clips/3/asset/uploadId");
    const after = (await t.app.inject({ url: "/api/compositions?limit=100", headers: bearer(key) })).json()
      .data.length;
    expect(after).toBe(before);
  });

  it("PUT needs the base version; a stale one is a 409 carrying the current version", async () => {
    const c = (await create()).json();
    const noVersion = await t.app.inject({
      method: "PUT",
      url: `/api/compositions/${c.id}`,
      headers: bearer(key),
      payload: { ...c, version: undefined },
    });
    expect(noVersion.statusCode).toBe(400);
    const ok = await t.app.inject({
      method: "PUT",
      url: `/api/compositions/${c.id}`,
      headers: { ...bearer(key), "if-match": '"1"' },
      payload: { ...c, name: "v2" },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ name: "v2", version: 2 });
    expect(ok.headers.etag).toBe('"2"');
    const stale = await t.app.inject({
      method: "PUT",
      url: `/api/compositions/${c.id}`,
      headers: bearer(key),
      payload: { ...c, name: "lost update", version: 1 },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error).toMatchObject({ code: "version_conflict", currentVersion: 2 });
    const now = (await t.app.inject({ url: `/api/compositions/${c.id}`, headers: bearer(key) })).json();
    expect(now.name).toBe("v2");
  });

  it("concurrent PUTs on one version: exactly one wins", async () => {
    const c = (await create()).json();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.app.inject({
          method: "PUT",
          url: `/api/compositions/${c.id}`,
          headers: bearer(key),
          payload: { ...c, name: `w${i}`, version: 1 },
        }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(7);
  });

  it("JSON Patch applies atomically, re-validates and honours If-Match and test", async () => {
    const c = (await create()).json();
    const patch = (ops: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: "PATCH",
        url: `/api/compositions/${c.id}`,
        headers: { ...bearer(key), "content-type": "application/json-patch+json", ...headers },
        payload: JSON.stringify(ops),
      });
    const ok = await patch([
      { op: "test", path: "/name", value: "Teaser" },
      { op: "replace", path: "/name", value: "Patched" },
      { op: "replace", path: "/tracks/0/clips/1/duration", value: 3 },
    ]);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ name: "Patched", version: 2 });
    expect(ok.json().tracks[0].clips[1].duration).toBe(3);

    const overlap = await patch([{ op: "replace", path: "/tracks/0/clips/1/start", value: 1 }]);
    expect(overlap.statusCode).toBe(400);
    const failedTest = await patch([
      { op: "test", path: "/name", value: "nope" },
      { op: "remove", path: "/tracks" },
    ]);
    expect(failedTest.statusCode).toBe(409);
    const unresolvable = await patch([{ op: "replace", path: "/tracks/7/name", value: "x" }]);
    expect(unresolvable.statusCode).toBe(400);
    expect(unresolvable.json().error.details[0].path).toBe("/0");
    const readOnly = await patch([{ op: "replace", path: "/version", value: 99 }]);
    expect(readOnly.statusCode).toBe(400);
    for (const root of [
      { op: "replace", path: "", value: null },
      { op: "remove", path: "" },
      { op: "add", path: "", value: [] },
    ]) {
      const res = await patch([{ op: "test", path: "/name", value: "Patched" }, root]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(/^Operation 1 would (replace|remove) the whole composition/);
      expect(res.json().error.details).toEqual([
        { path: "/1/path", message: 'must not be the document root ("")' },
      ]);
    }
    const stale = await patch([{ op: "replace", path: "/name", value: "x" }], { "if-match": '"1"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe("version_conflict");
    const final = (await t.app.inject({ url: `/api/compositions/${c.id}`, headers: bearer(key) })).json();
    expect(final).toMatchObject({ name: "Patched", version: 2 });
  });

  it("lists newest first with a projectId filter; another owner's composition is a 404; delete is idempotent", async () => {
    const other = await t.createAccount();
    const project = (
      await t.app.inject({
        method: "POST",
        url: "/api/v1/projects",
        headers: bearer(key),
        payload: { name: "P" },
      })
    ).json();
    const inProject = await t.app.inject({
      method: "POST",
      url: "/api/compositions",
      headers: bearer(key),
      payload: { ...body(), projectId: project.id },
    });
    expect(inProject.statusCode).toBe(201);
    const foreignProject = await t.app.inject({
      method: "POST",
      url: "/api/compositions",
      headers: bearer(other.key),
      payload: { ...body(), projectId: project.id },
    });
    expect(foreignProject.statusCode).toBe(404);
    const list = (
      await t.app.inject({ url: `/api/compositions?projectId=${project.id}`, headers: bearer(key) })
    ).json();
    expect(list.data.map((x: { id: string }) => x.id)).toEqual([inProject.json().id]);

    const id = inProject.json().id;
    for (const method of ["GET", "PUT", "DELETE"] as const) {
      const res = await t.app.inject({
        method,
        url: `/api/compositions/${id}`,
        headers: bearer(other.key),
        payload: method === "PUT" ? { ...body(), version: 1 } : undefined,
      });
      expect(res.statusCode, method).toBe(method === "DELETE" ? 204 : 404);
    }
    expect((await t.app.inject({ url: `/api/compositions/${id}`, headers: bearer(key) })).statusCode).toBe(
      200,
    );
    for (let i = 0; i < 2; i++) {
      expect(
        (await t.app.inject({ method: "DELETE", url: `/api/compositions/${id}`, headers: bearer(key) }))
          .statusCode,
      ).toBe(204);
    }
    expect((await t.app.inject({ url: `/api/compositions/${id}`, headers: bearer(key) })).statusCode).toBe(
      404,
    );
  });
});

/** A composition whose one clip has `start` and `trim` written as raw JSON number text. */
const raw = (start: string, trim = "0") =>
  `{"name":"limits","canvas":{"width":320,"height":180,"fps":30,"background":"#000000"},"tracks":[{"kind":"video","clips":[{"start":${start},"trim":${trim},"duration":2,"asset":{"type":"color","color":"#ff0000"}}]}]}`;

const post = (payload: string) =>
  t.app.inject({
    method: "POST",
    url: "/api/compositions",
    headers: { ...bearer(key), "content-type": "application/json" },
    payload,
  });

describe("composition time limits", () => {
  it.each([
    ["2^64", "18446744073709551616"],
    ["1e308", "1e308"],
    ["one day and a second", "86401"],
  ])("a clip start of %s is a 400 naming the field", async (_name, start) => {
    const res = await post(raw(start));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain("/tracks/0/clips/0/start");
  });

  it("a trim (source in-point) beyond one day is a 400 too; one day exactly is accepted", async () => {
    const res = await post(raw("0", "1e308"));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain("/tracks/0/clips/0/trim");
    expect((await post(raw("0", "86398"))).statusCode).toBe(201);
  });
});
