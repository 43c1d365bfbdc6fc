import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRenderById } from "../../src/db/repositories/renders.ts";
import { frameAt } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, tinyCanvas } from "./helpers.ts";

// Renders of a composition sent with the render request (not stored as a composition).
let t: TestApp;
let base: string;
let api: ReturnType<typeof client>;
let other: ReturnType<typeof client>;
let dir: string;

const inline = (color = "#ff0000") => ({
  name: "one call",
  canvas: tinyCanvas(25),
  tracks: [
    {
      kind: "video",
      clips: [{ id: "bg", start: 0, duration: 1, asset: { type: "color", color } }],
    },
    {
      kind: "video",
      clips: [
        {
          start: 0,
          duration: 1,
          asset: { type: "text", text: "Hi", style: { family: "sans", size: 12 } },
          transform: { x: 0.9, y: 0.9, width: 0.1, height: 0.1 },
        },
      ],
    },
  ],
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-inline-"));
  t = await startTestApp({ worker: true, env: { RENDER_MAX_WIDTH: "1920" } });
  base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  other = client(base, (await t.createAccount()).key);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("inline renders", () => {
  it("renders a composition sent with the request; the render has no compositionId and lists and filters", async () => {
    const started = await api.startRender({ composition: inline("#00ff00"), output: { format: "png" } });
    expect(started).toMatchObject({ compositionId: null, compositionVersion: null, status: "queued" });
    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 30_000 })).at(-1);
    expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
    expect(end).toMatchObject({ compositionId: null, compositionVersion: null });
    expect(end?.output).toMatchObject({ format: "png", width: 160, height: 90 });

    const file = path.join(dir, "inline.png");
    await download(onServer(base, end?.output?.url as string), file);
    const [r, g, b] = (await frameAt(file, 0, 160, 90)).pixel(20, 20);
    expect(g).toBeGreaterThan(200);
    expect(r).toBeLessThan(40);
    expect(b).toBeLessThan(40);

    // The frozen copy is the normalised document: ids assigned, the given id kept, no composition stored.
    const row = await findRenderById(t.database.db, started.id);
    expect(row?.composition.tracks[0]?.clips.map((c) => c.id)).toEqual(["bg"]);
    expect(row?.composition.tracks[1]?.clips[0]?.id).toEqual(expect.any(String));
    expect(row?.composition).toMatchObject({ name: "one call" });
    const stored = await api.json("GET", "/api/compositions");
    expect(stored.body.data).toEqual([]);

    const list = await api.json("GET", "/api/render");
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(started.id);
    const filtered = await api.json("GET", "/api/render?compositionId=cmp_none");
    expect(filtered.body.data).toEqual([]);
    const bySucceeded = await api.json("GET", "/api/render?status=succeeded");
    expect(bySucceeded.body.data.map((x: { id: string }) => x.id)).toContain(started.id);
    expect((await other.getRender(started.id)).status).toBe(404);
  });

  it("needs exactly one of compositionId and composition", async () => {
    const comp = await api.createComposition(inline());
    const both = await api.json("POST", "/api/render", { compositionId: comp.id, composition: inline() });
    expect(both.status).toBe(400);
    expect(both.body.error.details).toEqual([
      { path: "/composition", message: "not allowed with compositionId" },
    ]);
    const neither = await api.json("POST", "/api/render", { output: { format: "mp4" } });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details).toEqual([
      { path: "/compositionId", message: "required unless composition is sent" },
    ]);
    const versioned = await api.json("POST", "/api/render", { composition: inline(), compositionVersion: 1 });
    expect(versioned.status).toBe(400);
    expect(versioned.body.error.details[0].path).toBe("/compositionVersion");
  });

  it("validates the inline composition as a create does, with paths under /composition", async () => {
    const doc = inline();
    const bad = {
      ...doc,
      tracks: [
        {
          kind: "video",
          clips: [
            { id: "a", start: 0, duration: 1, asset: { type: "color", color: "#000000" } },
            { id: "b", start: 0.5, duration: 1, asset: { type: "image", uploadId: "upl_nope" } },
          ],
        },
      ],
    };
    const viaRender = await api.json("POST", "/api/render", { composition: bad });
    const viaCreate = await api.json("POST", "/api/compositions", bad);
    expect(viaRender.status).toBe(400);
    expect(viaCreate.status).toBe(400);
    expect(viaRender.body.error.details).toEqual(
      viaCreate.body.error.details.map((d: { path: string; message: string }) => ({
        ...d,
        path: `/composition${d.path}`,
      })),
    );
    expect(viaRender.body.error.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining([
        "/composition/tracks/0/clips/1/start",
        "/composition/tracks/0/clips/1/asset/uploadId",
      ]),
    );

    // Structure is checked at the edge like the create body.
    const unknownField = await api.json("POST", "/api/render", { composition: { ...doc, extra: 1 } });
    expect(unknownField.status).toBe(400);
    const noName = await api.json("POST", "/api/render", { composition: { ...doc, name: undefined } });
    expect(noName.status).toBe(400);

    // Another account's upload is not found, exactly as in a create.
    const [font] = await other.upload([
      path.join(process.cwd(), "node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf"),
    ]);
    const foreign = await api.json("POST", "/api/render", {
      composition: {
        ...doc,
        tracks: [
          { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "image", uploadId: font?.id } }] },
        ],
      },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toEqual([
      { path: "/composition/tracks/0/clips/0/asset/uploadId", message: `upload ${font?.id} was not found` },
    ]);
  });

  it("keeps to the render cost limits, naming the inline composition's field", async () => {
    const wide = { ...inline(), canvas: { ...tinyCanvas(25), width: 2000, height: 16 } };
    const res = await api.json("POST", "/api/render", { composition: wide });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: "/composition/canvas/width", message: "must be at most 1920 pixels" },
    ]);
    const empty = await api.json("POST", "/api/render", { composition: { ...inline(), tracks: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toEqual([
      { path: "/composition", message: "composition has zero duration" },
    ]);
  });

  it("refuses a composition shorter than one frame at create and at render start", async () => {
    // 0.03 s at 25 fps is less than one 0.04 s frame: it would render to no frame at all.
    const short = {
      ...inline(),
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 0.03, asset: { type: "color", color: "#000000" } }] },
      ],
    };
    const created = await api.json("POST", "/api/compositions", short);
    expect(created.status).toBe(400);
    expect(created.body.error.details).toContainEqual({
      path: "/tracks",
      message: "the timeline is 0.03 s long, shorter than one frame (0.0400 s at 25 fps)",
    });
    const inlineShort = await api.json("POST", "/api/render", { composition: short });
    expect(inlineShort.status).toBe(400);
    expect(JSON.stringify(inlineShort.body.error.details)).toContain("shorter than one frame");
    // A composition stored before the rule: refused at render start, before any job exists.
    const stored = await api.json("POST", "/api/compositions", inline());
    expect(stored.status).toBe(201);
    await t.database.db.execute(
      sql`update compositions set document = jsonb_set(document, '{canvas,duration}', '0.01') where id = ${stored.body.id}`,
    );
    const render = await api.json("POST", "/api/render", { compositionId: stored.body.id });
    expect(render.status).toBe(400);
    expect(render.body.error.message).toBe(
      "The composition is shorter than one frame: lengthen a clip or canvas.duration",
    );
    expect(render.body.error.details).toEqual([
      {
        path: "/compositionId",
        message: "the timeline is 0.01 s long, shorter than one frame (0.0400 s at 25 fps)",
      },
    ]);
  });

  it("an Idempotency-Key replays an inline render with the same body and refuses another", async () => {
    const key = { "idempotency-key": `inline-${Date.now()}` };
    const first = await api.json("POST", "/api/render", { composition: inline("#0000ff") }, key);
    expect(first.status).toBe(202);
    const again = await api.json("POST", "/api/render", { composition: inline("#0000ff") }, key);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const changed = await api.json("POST", "/api/render", { composition: inline("#ffffff") }, key);
    expect(changed.status).toBe(409);
    await api.pollUntilTerminal(first.body.id, { timeoutMs: 30_000 });
  });
});
