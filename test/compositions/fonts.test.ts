import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploads } from "../../src/db/schema/uploads.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas } from "../renders/helpers.ts";

// Text and caption font families are checked when a composition is written, against the fonts
// the renderer has: the bundled families and the caller's uploaded fonts.
let t: TestApp;
let dir: string;
let brandFont: string;
let base: string;

/** DejaVu Sans renamed "Brandy Sans" in its name table (ASCII and UTF-16BE records, same length). */
async function renamedFont(target: string): Promise<string> {
  const require = createRequire(import.meta.url);
  const source = path.join(
    path.dirname(require.resolve("dejavu-fonts-ttf/package.json")),
    "ttf/DejaVuSans.ttf",
  );
  const bytes = await readFile(source);
  for (const [from, to] of [
    [Buffer.from("DejaVu Sans"), Buffer.from("Brandy Sans")],
    [Buffer.from("DejaVu Sans", "utf16le").swap16(), Buffer.from("Brandy Sans", "utf16le").swap16()],
  ] as const) {
    let at = bytes.indexOf(from);
    while (at >= 0) {
      to.copy(bytes, at);
      at = bytes.indexOf(from, at + to.length);
    }
  }
  await writeFile(target, bytes);
  return target;
}

const textDoc = (family: string, id = "title") => ({
  name: "fonts",
  canvas: tinyCanvas(25),
  tracks: [
    {
      kind: "video",
      clips: [
        { id, start: 0, duration: 1, asset: { type: "text", text: "Hi", style: { family, size: 12 } } },
      ],
    },
  ],
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-fonts-"));
  [t, brandFont] = await Promise.all([
    startTestApp({ worker: true }),
    renamedFont(path.join(dir, "brandy.ttf")),
  ]);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("font families at write time", () => {
  it("refuses an unknown family with a 400 naming the clip; bundled names and aliases pass", async () => {
    const api = client(base, (await t.createAccount()).key);
    const res = await api.json("POST", "/api/compositions", textDoc("Comic Sans"));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        path: "/tracks/0/clips/0/asset/style/family",
        message: expect.stringMatching(
          /^text "Hi" at 0:00: font family "Comic Sans" is neither bundled \(DejaVu Sans, .*\) nor one of your uploaded fonts$/,
        ),
        clipId: "title",
      },
    ]);
    for (const family of ["DejaVu Serif", "dejavu sans mono", "sans-serif", "Emoji"]) {
      expect((await api.json("POST", "/api/compositions", textDoc(family))).status, family).toBe(201);
    }
    // Captions too, and on PUT/PATCH and inline renders alike.
    const comp = await api.createComposition(textDoc("sans"));
    const patch = await api.json("PATCH", `/api/compositions/${comp.id}`, [
      { op: "replace", path: "/tracks/0/clips/0/asset/style/family", value: "Nope" },
    ]);
    expect(patch.status).toBe(400);
    expect(patch.body.error.details[0].message).toContain('text "Hi" at 0:00: font family "Nope"');
    const inline = await api.json("POST", "/api/render", { composition: textDoc("Nope") });
    expect(inline.status).toBe(400);
    expect(inline.body.error.details[0].path).toBe("/composition/tracks/0/clips/0/asset/style/family");
  });

  it("accepts the family of a font the caller uploaded, for that caller only", async () => {
    const owner = await t.createAccount();
    const api = client(base, owner.key);
    const other = client(base, (await t.createAccount()).key);
    const [font] = await api.upload([brandFont]);
    const [row] = await t.database.db
      .select()
      .from(uploads)
      .where(eq(uploads.id, font?.id as string));
    expect(row?.fontFamilies).toEqual(["Brandy Sans"]);
    expect(font).toMatchObject({ type: "font", media: null, fontFamilies: ["Brandy Sans"] });

    expect((await api.json("POST", "/api/compositions", textDoc("brandy sans"))).status).toBe(201);
    const foreign = await other.json("POST", "/api/compositions", textDoc("Brandy Sans"));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0].path).toBe("/tracks/0/clips/0/asset/style/family");
  });

  it("a font stored before families were recorded leaves other families to the render", async () => {
    const api = client(base, (await t.createAccount()).key);
    const [font] = await api.upload([brandFont]);
    await t.database.db
      .update(uploads)
      .set({ fontFamilies: null })
      .where(eq(uploads.id, font?.id as string));
    expect((await api.json("POST", "/api/compositions", textDoc("Unknown Family"))).status).toBe(201);
    // The render reads the family from the font file itself.
    expect(await renderStatus(api, textDoc("Brandy Sans"))).toBe("succeeded");
  });

  it("renders text in an uploaded font, found by the family recorded at upload", async () => {
    const api = client(base, (await t.createAccount()).key);
    await api.upload([brandFont]);
    expect(await renderStatus(api, textDoc("Brandy Sans"))).toBe("succeeded");
  });
});

/** Renders `doc` inline to one PNG frame; the render's final status. */
async function renderStatus(api: ReturnType<typeof client>, doc: unknown): Promise<string | undefined> {
  const started = await api.startRender({ composition: doc, output: { format: "png" } });
  const render = (await api.pollUntilTerminal(started.id)).at(-1);
  if (render?.status !== "succeeded") expect(render?.error).toBeNull();
  return render?.status;
}
