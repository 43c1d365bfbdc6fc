import fc from "fast-check";
import jsonPatch from "fast-json-patch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertVersion } from "../../src/db/repositories/composition-versions.ts";
import { pruneCompositionVersions } from "../../src/domain/composition/prune-versions.ts";
import { setPassword } from "../console/helpers.ts";
import { bearer, fakeClock, startTestApp, type TestApp } from "../helpers/app.ts";

// Composition versions through HTTP on a real database: every write is a version with its
// author, versions are listed, read, diffed and reverted to, and the patch log rebuilds them.
const clock = fakeClock("2026-01-01T10:00:00Z");
let t: TestApp;
let key: string;
let keyId: string;
let userId: string;
let readKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp({ clock });
  ({ key, keyId, userId } = await t.createAccount());
  readKey = (await t.addKey(userId, ["read"])).key;
  otherKey = (await t.createAccount()).key;
});
afterAll(() => t.close());

type Resource = Record<string, unknown> & { id: string; version: number };

const SLOT = 10;
const body = (clips = 3) => ({
  name: "Versions",
  canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: Array.from({ length: clips }, (_, i) => ({
        start: i * SLOT,
        duration: 2,
        asset: { type: "color", color: "#ff0000" },
      })),
    },
    { kind: "video", clips: [] },
  ],
});

async function create(k = key): Promise<Resource> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/compositions",
    headers: bearer(k),
    payload: body(),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function patch(id: string, ops: unknown[], headers: Record<string, string> = bearer(key)) {
  const res = await t.app.inject({
    method: "PATCH",
    url: `/api/compositions/${id}`,
    headers: { ...headers, "content-type": "application/json-patch+json" },
    payload: JSON.stringify(ops),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Resource;
}

const get = (url: string, k = key) => t.app.inject({ url, headers: bearer(k) });

/** Every version of a composition, oldest first, read page by page. */
async function allVersions(id: string, limit = 100) {
  const out: {
    version: number;
    patch: jsonPatch.Operation[];
    author: Record<string, unknown>;
    summary: string;
  }[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(
      `/api/compositions/${id}/versions?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out.reverse();
}

/** The resource without its server fields: what a version's patches build. */
function versionedPart(resource: Resource) {
  const { id: _i, version: _v, schemaVersion: _s, createdAt: _c, updatedAt: _u, ...rest } = resource;
  return rest;
}

/** Replays every listed patch from an empty document; the state after each version. */
function replay(versions: { version: number; patch: jsonPatch.Operation[] }[]) {
  const states = new Map<number, unknown>();
  let doc: unknown = {};
  for (const v of versions) {
    doc = jsonPatch.applyPatch(doc, structuredClone(v.patch), true, false).newDocument;
    states.set(v.version, structuredClone(doc));
  }
  return states;
}

describe("composition versions", () => {
  it("records every kind of write with its author and a summary", async () => {
    const c = await create();
    await patch(c.id, [{ op: "replace", path: "/name", value: "Renamed" }]);
    const clips = (c.tracks as { clips: { id: string }[] }[])[0]?.clips ?? [];
    await patch(c.id, [{ op: "replace", path: "/tracks/0/clips/1/start", value: 12.5 }]);
    const put = await t.app.inject({
      method: "PUT",
      url: `/api/compositions/${c.id}`,
      headers: { ...bearer(key), "if-match": '"3"' },
      payload: { ...body(), name: "Put" },
    });
    expect(put.statusCode, put.body).toBe(200);
    const login = await setPassword(t, userId, "correct horse battery staple");
    const studio = await t.app.inject({
      method: "PATCH",
      url: `/api/compositions/${c.id}`,
      headers: { ...login.write, "content-type": "application/json-patch+json" },
      payload: JSON.stringify([
        { op: "replace", path: "/canvas/background", value: "#112233" },
        { op: "replace", path: "/name", value: "Studio" },
      ]),
    });
    expect(studio.statusCode, studio.body).toBe(200);
    const versions = await allVersions(c.id);
    expect(versions.map((v) => [v.version, v.author, v.summary])).toEqual([
      [1, { kind: "api", keyId }, "created"],
      [2, { kind: "api", keyId }, 'renamed to "Renamed"'],
      [3, { kind: "api", keyId }, `moved clip ${clips[1]?.id} to 12.5 s`],
      [4, { kind: "api", keyId }, expect.stringMatching(/^\d+ changes to name and tracks$/)],
      [5, { kind: "console" }, "2 changes to name and canvas"],
    ]);

    const otio = {
      OTIO_SCHEMA: "Timeline.1",
      name: "Imported",
      tracks: {
        OTIO_SCHEMA: "Stack.1",
        children: [
          {
            OTIO_SCHEMA: "Track.1",
            kind: "Video",
            children: [
              {
                OTIO_SCHEMA: "Gap.1",
                source_range: {
                  OTIO_SCHEMA: "TimeRange.1",
                  start_time: { OTIO_SCHEMA: "RationalTime.1", rate: 24, value: 0 },
                  duration: { OTIO_SCHEMA: "RationalTime.1", rate: 24, value: 24 },
                },
              },
            ],
          },
        ],
      },
    };
    const imported = await t.app.inject({
      method: "POST",
      url: "/api/compositions/import",
      headers: bearer(key),
      payload: { otio },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    const importedVersions = await allVersions(imported.json().id);
    expect(importedVersions.map((v) => [v.version, v.author, v.summary])).toEqual([
      [1, { kind: "import", keyId }, "imported"],
    ]);
  });

  it("pages newest first with a cursor, and reads, diffs and reverts versions", async () => {
    const c = await create();
    const written: Resource[] = [c];
    for (let i = 1; i <= 6; i++) {
      written.push(
        await patch(c.id, [{ op: "replace", path: "/tracks/0/clips/0/duration", value: 2 + i / 4 }]),
      );
    }
    const first = await get(`/api/compositions/${c.id}/versions?limit=3`);
    expect(first.json().data.map((v: { version: number }) => v.version)).toEqual([7, 6, 5]);
    const second = await get(`/api/compositions/${c.id}/versions?limit=3&cursor=${first.json().nextCursor}`);
    expect(second.json().data.map((v: { version: number }) => v.version)).toEqual([4, 3, 2]);
    const third = await get(`/api/compositions/${c.id}/versions?limit=3&cursor=${second.json().nextCursor}`);
    expect(third.json()).toMatchObject({ data: [{ version: 1 }], nextCursor: null });

    for (const w of written) {
      const res = await get(`/api/compositions/${c.id}/versions/${w.version}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(w);
    }
    expect((await get(`/api/compositions/${c.id}/versions/99`)).statusCode).toBe(404);

    for (const [from, to] of [
      [2, 6],
      [6, 2],
      [1, 7],
    ] as const) {
      const res = await get(`/api/compositions/${c.id}/versions/${to}/diff?from=${from}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ from, to });
      const base = versionedPart(written[from - 1] as Resource);
      const applied = jsonPatch.applyPatch(structuredClone(base), res.json().patch, true, false).newDocument;
      expect(applied).toEqual(versionedPart(written[to - 1] as Resource));
    }

    const revert = (version: number, ifMatch: string | undefined, k = key) =>
      t.app.inject({
        method: "POST",
        url: `/api/compositions/${c.id}/revert`,
        headers: { ...bearer(k), ...(ifMatch ? { "if-match": ifMatch } : {}) },
        payload: { version },
      });
    expect((await revert(3, '"6"')).json()).toMatchObject({
      error: { code: "version_conflict", currentVersion: 7 },
    });
    expect((await revert(3, '"6"')).statusCode).toBe(409);
    expect((await revert(3, undefined)).statusCode).toBe(400);
    expect((await revert(3, '"7"', readKey)).statusCode).toBe(403);
    expect((await revert(3, '"7"', otherKey)).statusCode).toBe(404);
    expect((await get(`/api/compositions/${c.id}/versions`, otherKey)).statusCode).toBe(404);
    expect((await get(`/api/compositions/${c.id}/versions/1`, otherKey)).statusCode).toBe(404);
    expect((await get(`/api/compositions/${c.id}/versions/2/diff?from=1`, otherKey)).statusCode).toBe(404);
    expect((await get(`/api/compositions/${c.id}/versions`, readKey)).statusCode).toBe(200);
    expect((await revert(42, '"7"')).statusCode).toBe(404);

    const reverted = await revert(3, '"7"');
    expect(reverted.statusCode, reverted.body).toBe(200);
    expect(reverted.headers.etag).toBe('"8"');
    expect(versionedPart(reverted.json())).toEqual(versionedPart(written[2] as Resource));
    const latest = (await get(`/api/compositions/${c.id}/versions?limit=1`)).json().data[0];
    expect(latest).toMatchObject({
      version: 8,
      author: { kind: "revert", keyId },
      summary: "reverted to version 3",
    });
  });

  it("replaying the patch log from version 1 reproduces every version a write returned", async () => {
    const hex = fc.constantFrom("#ff0000", "#00ff00", "#0000ff", "#123456", "#abcdef");
    const clipIndex = fc.integer({ min: 0, max: 2 });
    const op = fc.oneof(
      fc
        .string({ minLength: 1, maxLength: 30 })
        .map((name) => [{ op: "replace", path: "/name", value: name }]),
      fc
        .tuple(clipIndex, fc.integer({ min: 0, max: 14 }))
        .map(([i, k]) => [{ op: "replace", path: `/tracks/0/clips/${i}/start`, value: i * SLOT + k / 2 }]),
      fc
        .tuple(clipIndex, fc.integer({ min: 1, max: 6 }))
        .map(([i, d]) => [{ op: "replace", path: `/tracks/0/clips/${i}/duration`, value: d / 2 }]),
      fc
        .tuple(clipIndex, hex)
        .map(([i, color]) => [{ op: "replace", path: `/tracks/0/clips/${i}/asset/color`, value: color }]),
      hex.map((color) => [{ op: "replace", path: "/canvas/background", value: color }]),
      fc.subarray([0, 1, 2, 3, 4]).map((slots) => [
        {
          op: "replace",
          path: "/tracks/1/clips",
          value: slots.map((s) => ({
            start: s * SLOT,
            duration: 1,
            asset: { type: "text", text: `Title ${s}` },
          })),
        },
      ]),
      fc
        .dictionary(fc.constantFrom("a", "b", "c"), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })))
        .map((metadata) => [{ op: "add", path: "/metadata", value: metadata }]),
    );
    const patchOf = fc.array(op, { minLength: 1, maxLength: 3 }).map((ops) => ops.flat());
    await fc.assert(
      fc.asyncProperty(fc.array(patchOf, { minLength: 1, maxLength: 12 }), async (patches) => {
        const c = await create();
        const written = new Map<number, Resource>([[1, c]]);
        for (const ops of patches) {
          const res = await t.app.inject({
            method: "PATCH",
            url: `/api/compositions/${c.id}`,
            headers: { ...bearer(key), "content-type": "application/json-patch+json" },
            payload: JSON.stringify(ops),
          });
          // An edit may make two clips of the title track overlap: refused, and no version.
          if (res.statusCode === 200) written.set(res.json().version, res.json());
          else expect(res.statusCode, res.body).toBe(400);
        }
        const versions = await allVersions(c.id, 5);
        expect(versions.map((v) => v.version)).toEqual([...written.keys()]);
        const states = replay(versions);
        for (const [version, resource] of written) {
          expect(states.get(version)).toEqual(versionedPart(resource));
          expect((await get(`/api/compositions/${c.id}/versions/${version}`)).json()).toEqual(resource);
        }
      }),
      { numRuns: 6 },
    );
  });

  it("writes the composition and its version in one transaction: a failed version insert keeps the old one", async () => {
    const c = await create();
    // A row already at version 2 makes the version insert of the next write fail (unique index).
    await insertVersion(t.database.db, {
      compositionId: c.id,
      userId,
      version: 2,
      createdAt: clock.now(),
      authorKind: "api",
      authorKeyId: null,
      authorRunId: null,
      summary: "in the way",
      patch: [],
      snapshot: null,
    });
    const res = await t.app.inject({
      method: "PATCH",
      url: `/api/compositions/${c.id}`,
      headers: { ...bearer(key), "content-type": "application/json-patch+json" },
      payload: JSON.stringify([{ op: "replace", path: "/name", value: "Lost" }]),
    });
    expect(res.statusCode).toBe(500);
    expect((await get(`/api/compositions/${c.id}`)).json()).toEqual(c);
  });

  it("rebuilds versions across snapshots", async () => {
    const c = await create();
    const written: Resource[] = [c];
    for (let i = 1; i <= 120; i++) {
      written.push(await patch(c.id, [{ op: "replace", path: "/name", value: `Take ${i}` }]));
    }
    const states = replay(await allVersions(c.id));
    for (const w of written) expect(states.get(w.version)).toEqual(versionedPart(w));
    for (const v of [1, 49, 50, 51, 52, 100, 101, 102, 121]) {
      expect((await get(`/api/compositions/${c.id}/versions/${v}`)).json()).toEqual(written[v - 1]);
    }
  });

  it("prunes to one version a day after 30 days, keeping the current one and every kept version readable", async () => {
    const at = (iso: string) => clock.set(iso);
    at("2026-01-01T10:00:00Z");
    const c = await create();
    const written = new Map<number, Resource>([[1, c]]);
    const write = async (iso: string, name: string) => {
      at(iso);
      const r = await patch(c.id, [{ op: "replace", path: "/name", value: name }]);
      written.set(r.version, r);
    };
    await write("2026-01-01T11:00:00Z", "v2");
    await write("2026-01-01T12:00:00Z", "v3"); // last of 1 January
    await write("2026-01-02T09:00:00Z", "v4");
    await write("2026-01-02T23:00:00Z", "v5"); // last of 2 January
    await write("2026-02-15T08:00:00Z", "v6"); // within 30 days
    await write("2026-02-16T08:00:00Z", "v7"); // current
    at("2026-02-20T00:00:00Z");
    const pruned = await pruneCompositionVersions(t.database.db, clock);
    expect(pruned.before.toISOString()).toBe("2026-01-21T00:00:00.000Z");
    expect(pruned.deleted).toBeGreaterThanOrEqual(3);
    const versions = await allVersions(c.id);
    expect(versions.map((v) => v.version)).toEqual([3, 5, 6, 7]);
    const states = replay(versions);
    for (const v of [3, 5, 6, 7]) {
      expect(states.get(v)).toEqual(versionedPart(written.get(v) as Resource));
      expect((await get(`/api/compositions/${c.id}/versions/${v}`)).json()).toEqual(written.get(v));
    }
    for (const v of [1, 2, 4])
      expect((await get(`/api/compositions/${c.id}/versions/${v}`)).statusCode).toBe(404);
    expect((await pruneCompositionVersions(t.database.db, clock)).deleted).toBe(0);

    // Years later only the current version is left of the last day it was written.
    at("2029-01-01T00:00:00Z");
    await pruneCompositionVersions(t.database.db, clock);
    expect((await allVersions(c.id)).map((v) => v.version)).toEqual([3, 5, 6, 7]);
    const next = await patch(c.id, [{ op: "replace", path: "/name", value: "v8" }]);
    expect((await get(`/api/compositions/${c.id}/versions/8`)).json()).toEqual(next);
    expect((await get(`/api/compositions/${c.id}/versions/8/diff?from=3`)).json().patch).toEqual([
      { op: "replace", path: "/name", value: "v8" },
    ]);
  });
});
