import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRow, type RowResult, renderCsv } from "../../scripts/render-csv.ts";
import { findRenderById } from "../../src/db/repositories/renders.ts";
import { ffmpeg, frameAt } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer, tinyCanvas } from "./helpers.ts";

// Compositions with {{placeholders}} filled by a render's merge values.
let t: TestApp;
let base: string;
let api: ReturnType<typeof client>;
let key: string;
let dir: string;

/** A template: background colour, title text, caption cue and a remote video URL are placeholders. */
const template = () => ({
  name: "personalised",
  canvas: tinyCanvas(25),
  tracks: [
    {
      kind: "video",
      clips: [{ id: "bg", start: 0, duration: 1, asset: { type: "color", color: "{{brand}}" } }],
    },
    {
      kind: "video",
      clips: [
        {
          id: "title",
          start: 0,
          duration: 1,
          asset: {
            type: "text",
            text: "Hello {{ firstName }}, you are #{{rank}}",
            style: { family: "sans", size: 10, color: "{{ink}}" },
          },
          transform: { x: 0.5, y: 0.9, width: 0.9, height: 0.15 },
        },
      ],
    },
    {
      kind: "video",
      clips: [
        {
          id: "cap",
          start: 0,
          duration: 1,
          asset: {
            type: "caption",
            style: { family: "sans", size: 8 },
            source: { cues: [{ start: 0, end: 1, text: "Bye {{firstName}}" }] },
          },
          transform: { x: 0.5, y: 0.1, width: 0.9, height: 0.15 },
        },
      ],
    },
  ],
});

const withVideo = () => {
  const doc = template();
  doc.tracks.push({
    kind: "video",
    clips: [
      {
        id: "clip",
        start: 1,
        duration: 1,
        asset: { type: "video", src: "{{video}}" },
      } as never,
    ],
  });
  return doc;
};

const values = { brand: "#ff0000", firstName: "Ada", rank: 1, ink: "#ffffff" };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-templates-"));
  t = await startTestApp({ worker: true });
  base = await t.listen();
  key = (await t.createAccount()).key;
  api = client(base, key);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("composition templates", () => {
  it("stores a composition with placeholders in text, captions, colours and a whole-string src", async () => {
    const comp = await api.createComposition(withVideo());
    const got = await api.json("GET", `/api/compositions/${comp.id}`);
    expect(got.body.tracks[0].clips[0].asset.color).toBe("{{brand}}");
    expect(got.body.tracks[3].clips[0].asset.src).toBe("{{video}}");
  });

  it("refuses placeholders in src or colours unless they are the whole value", async () => {
    const doc = template();
    (doc.tracks[0]?.clips[0]?.asset as { color: string }).color = "#{{hex}}";
    const badColor = await api.json("POST", "/api/compositions", doc);
    expect(badColor.status).toBe(400);
    expect(badColor.body.error.details.map((d: { path: string }) => d.path)).toContain(
      "/tracks/0/clips/0/asset/color",
    );
    const badSrc = withVideo();
    (badSrc.tracks[3]?.clips[0]?.asset as unknown as { src: string }).src = "videos/{{video}}.mp4";
    const res = await api.json("POST", "/api/compositions", badSrc);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(
      "/tracks/3/clips/0/asset/src",
    );
  });

  it("a template rendered without merge is a 400 listing its placeholders", async () => {
    const comp = await api.createComposition(template());
    const res = await api.json("POST", "/api/render", { compositionId: comp.id });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('"brand"');
    expect(res.body.error.details).toEqual([
      { path: "/merge", message: 'no value for placeholder "brand" (used at /tracks/0/clips/0/asset/color)' },
      {
        path: "/merge",
        message:
          'no value for placeholder "firstName" (used at /tracks/1/clips/0/asset/text, /tracks/2/clips/0/asset/source/cues/0/text)',
      },
      { path: "/merge", message: 'no value for placeholder "rank" (used at /tracks/1/clips/0/asset/text)' },
      {
        path: "/merge",
        message: 'no value for placeholder "ink" (used at /tracks/1/clips/0/asset/style/color)',
      },
    ]);
  });

  it("missing and unknown merge names are one 400 listing both", async () => {
    const comp = await api.createComposition(template());
    const res = await api.json("POST", "/api/render", {
      compositionId: comp.id,
      merge: { brand: "#000000", firstName: "A", rank: 2, colour: "#ffffff", extra: "x" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        path: "/merge",
        message: 'no value for placeholder "ink" (used at /tracks/1/clips/0/asset/style/color)',
      },
      { path: "/merge/colour", message: 'the composition has no placeholder "colour"' },
      { path: "/merge/extra", message: 'the composition has no placeholder "extra"' },
    ]);
    const plain = await api.createComposition({ ...template(), tracks: [template().tracks[1]] });
    const noPlaceholders = await api.json("POST", "/api/render", {
      compositionId: plain.id,
      merge: { firstName: "A", rank: 1, ink: "#ffffff", nope: "x" },
    });
    expect(noPlaceholders.status).toBe(400);
    expect(noPlaceholders.body.error.details).toEqual([
      { path: "/merge/nope", message: 'the composition has no placeholder "nope"' },
    ]);
    const badName = await api.json("POST", "/api/render", { compositionId: comp.id, merge: { "1st": "x" } });
    expect(badName.status).toBe(400);
  });

  it("a colour value that is not a colour is a 400 naming its merge field; the filled composition is validated", async () => {
    const comp = await api.createComposition(template());
    const res = await api.json("POST", "/api/render", {
      compositionId: comp.id,
      merge: { ...values, brand: "red" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('The merge value of "brand" must be a colour: #rrggbb or #rrggbbaa');
    expect(res.body.error.details).toEqual([
      { path: "/merge/brand", message: "must be a colour: #rrggbb or #rrggbbaa" },
    ]);
    // What only the filled composition shows: paths point into the stored composition.
    const long = await api.json("POST", "/api/render", {
      compositionId: comp.id,
      merge: { ...values, firstName: "a".repeat(10_000) },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("The composition filled with the merge values is invalid");
    expect(long.body.error.details).toContainEqual(
      expect.objectContaining({ path: "/tracks/1/clips/0/asset/text" }),
    );
    const stillPlaceholder = await api.json("POST", "/api/render", {
      compositionId: comp.id,
      merge: { ...values, brand: "{{other}}" },
    });
    expect(stillPlaceholder.status).toBe(400);
    expect(stillPlaceholder.body.error.details).toEqual([
      {
        path: "/tracks/0/clips/0/asset/color",
        message: 'is still a placeholder after merging ("{{other}}")',
      },
    ]);
  });

  it("renders a stored template with merge values: colours and text filled in the frozen copy and the picture", async () => {
    const comp = await api.createComposition(template());
    const started = await api.startRender({
      compositionId: comp.id,
      merge: values,
      output: { format: "png" },
    });
    expect(started).toMatchObject({ compositionId: comp.id, compositionVersion: 1 });
    const row = await findRenderById(t.database.db, started.id);
    const [bg, title, cap] = (row?.composition.tracks ?? []).map((track) => track.clips[0]?.asset);
    expect(bg).toEqual({ type: "color", color: "#ff0000" });
    expect(title).toMatchObject({ text: "Hello Ada, you are #1", style: { color: "#ffffff" } });
    expect(cap).toMatchObject({ source: { cues: [{ start: 0, end: 1, text: "Bye Ada" }] } });
    // The stored composition is still the template.
    const stored = await api.json("GET", `/api/compositions/${comp.id}`);
    expect(stored.body.tracks[0].clips[0].asset.color).toBe("{{brand}}");

    const end = (await api.pollUntilTerminal(started.id, { timeoutMs: 30_000 })).at(-1);
    expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
    const file = path.join(dir, "merged.png");
    await download(onServer(base, end?.output?.url as string), file);
    const [r, g, b] = (await frameAt(file, 0, 160, 90)).pixel(80, 45);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(40);
    expect(b).toBeLessThan(40);
  });

  it("fills an inline template, including a whole-string src, before validating it", async () => {
    const url = "https://media.example.test/clips/ada.mp4";
    const res = await api.json("POST", "/api/render", {
      composition: withVideo(),
      merge: { ...values, video: url },
      output: { format: "mp4", quality: "draft" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.compositionId).toBeNull();
    const row = await findRenderById(t.database.db, res.body.id);
    expect(row?.composition.tracks[3]?.clips[0]?.asset).toEqual({ type: "video", src: url });
    await api.json("DELETE", `/api/render/${res.body.id}`);

    const notHttps = await api.json("POST", "/api/render", {
      composition: withVideo(),
      merge: { ...values, video: "ftp://x/y.mp4" },
    });
    expect(notHttps.status).toBe(400);
    expect(notHttps.body.error.details).toEqual([
      { path: "/merge/video", message: "must be an upload id or an https URL" },
    ]);
    const missing = await api.json("POST", "/api/render", { composition: withVideo(), merge: values });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([
      {
        path: "/merge",
        message: 'no value for placeholder "video" (used at /composition/tracks/3/clips/0/asset/src)',
      },
    ]);
  });

  it("a media placeholder takes the caller's upload id or a signed URL of their upload, checked as an uploadId", async () => {
    const blue = path.join(dir, "blue.mp4");
    await ffmpeg(["-f", "lavfi", "-i", "color=c=blue:s=160x90:r=25:d=2", "-pix_fmt", "yuv420p", blue]);
    const [upload] = await api.upload([blue]);
    const id = upload?.id as string;
    const signed = (await api.json("GET", `/api/v1/uploads/${id}`)).body.url as string;
    expect(signed).toContain(`/files/uploads/${id}/`);
    const stored = await api.createComposition(withVideo());

    // By id, on a stored template: the frozen clip is the upload, and the picture shows it.
    const byId = await api.startRender({
      compositionId: stored.id,
      merge: { ...values, video: id },
      output: { format: "png", frameAt: 1.5 },
    });
    expect((await findRenderById(t.database.db, byId.id))?.composition.tracks[3]?.clips[0]?.asset).toEqual({
      type: "video",
      uploadId: id,
    });
    const done = (await api.pollUntilTerminal(byId.id)).at(-1);
    expect(done?.status, JSON.stringify(done?.error)).toBe("succeeded");
    const file = path.join(dir, "by-id.png");
    await download(onServer(base, done?.output?.url as string), file);
    const [r, g, b] = (await frameAt(file, 0, 160, 90)).pixel(80, 45);
    expect(b, `rgb ${r},${g},${b}`).toBeGreaterThan(150);
    expect(r).toBeLessThan(80);

    // By signed URL, inline: the same upload.
    const bySigned = await api.startRender({
      composition: withVideo(),
      merge: { ...values, video: signed },
      output: { format: "png", frameAt: 1.5 },
    });
    expect(
      (await findRenderById(t.database.db, bySigned.id))?.composition.tracks[3]?.clips[0]?.asset,
    ).toEqual({ type: "video", uploadId: id });
    const preflight = await api.json("POST", "/api/render/check", {
      compositionId: stored.id,
      merge: { ...values, video: signed },
      output: { format: "png", frameAt: 1.5 },
    });
    expect(preflight.status, JSON.stringify(preflight.body)).toBe(200);
    expect(preflight.body.ok).toBe(true);

    // Another account's upload, by id or by its signed URL, is not found, as its uploadId would be.
    const other = client(base, (await t.createAccount()).key);
    for (const video of [id, signed]) {
      const refused = await other.json("POST", "/api/render", {
        composition: withVideo(),
        merge: { ...values, video },
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.details).toContainEqual(
        expect.objectContaining({ path: "/composition/tracks/3/clips/0/asset/uploadId" }),
      );
    }
    // A URL of this server that is not an upload's, and a value that is neither.
    const output = done?.output?.url as string;
    for (const [video, message] of [
      [output, "is a URL of this server, but not of an upload"],
      ["upl_", "must be an upload id or an https URL"],
      ["clips/ada.mp4", "must be an upload id or an https URL"],
    ] as const) {
      const refused = await api.json("POST", "/api/render", {
        compositionId: stored.id,
        merge: { ...values, video },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual([{ path: "/merge/video", message }]);
    }
    await api.json("DELETE", `/api/render/${bySigned.id}`);

    // render-csv: a column of upload ids and signed URLs renders; a bad value is one readable line.
    const csv = `brand,firstName,rank,ink,video\n#ff0000,Ada,1,#ffffff,${id}\n#ff0000,Grace,2,#ffffff,"${signed}"\n#ff0000,Kate,3,#ffffff,ftp://x/y.mp4\n`;
    const rows = await renderCsv({
      base,
      key,
      csv,
      template: stored.id,
      output: { format: "png", frameAt: 1.5 },
    });
    expect(rows.map((row) => row.status)).toEqual(["succeeded", "succeeded", "refused"]);
    expect(describeRow(rows[2] as RowResult)).toBe("row 3: `video` must be an upload id or an https URL");
  });

  it("scripts/render-csv.ts renders one personalised file per CSV row; a bad row is refused, the others render", async () => {
    const card = {
      name: "card",
      canvas: tinyCanvas(25),
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "{{brand}}" } }] },
        {
          kind: "video",
          clips: [
            {
              start: 0,
              duration: 1,
              asset: { type: "text", text: "Hi {{firstName}}", style: { family: "sans", size: 10 } },
              transform: { x: 0.5, y: 0.9, width: 0.9, height: 0.15 },
            },
          ],
        },
      ],
    };
    const comp = await api.createComposition(card);
    const csv = 'firstName,brand\n"Lovelace, Ada",#ff0000\nGrace,red\nKatherine,#0000ff\n';
    const results = await renderCsv({
      base,
      key,
      csv,
      template: comp.id,
      output: { format: "png" },
      parallel: 2,
    });
    expect(results.map((r) => [r.row, r.status])).toEqual([
      [1, "succeeded"],
      [2, "refused"],
      [3, "succeeded"],
    ]);
    // The printed line says which column, and why, in one line.
    const refused = results[1] as RowResult;
    expect(refused.details).toEqual([
      { path: "/merge/brand", message: "must be a colour: #rrggbb or #rrggbbaa" },
    ]);
    expect(describeRow(refused)).toBe("row 2: `brand` must be a colour: #rrggbb or #rrggbbaa");
    expect(describeRow(results[0] as RowResult)).toMatch(/^row 1\tsucceeded\thttp/);
    // No server at the URL: the error names the URL it tried.
    await expect(
      renderCsv({ base: "http://127.0.0.1:9", key, csv, template: comp.id, output: { format: "png" } }),
    ).rejects.toThrow("Could not reach http://127.0.0.1:9/api/render");
    const frozen = await findRenderById(t.database.db, results[0]?.renderId as string);
    expect(frozen?.composition.tracks[1]?.clips[0]?.asset).toMatchObject({ text: "Hi Lovelace, Ada" });
    for (const [i, expected] of [
      [0, [255, 0, 0]],
      [2, [0, 0, 255]],
    ] as const) {
      const file = path.join(dir, `row-${i}.png`);
      await download(onServer(base, results[i]?.url as string), file);
      const pixel = (await frameAt(file, 0, 160, 90)).pixel(80, 30);
      for (const [c, v] of pixel.entries()) expect(Math.abs(v - (expected[c] ?? 0))).toBeLessThan(40);
    }
    // Run again: the Idempotency-Keys return the same renders instead of starting new ones.
    const again = await renderCsv({ base, key, csv, template: comp.id, output: { format: "png" } });
    expect(again.map((r) => r.renderId)).toEqual(results.map((r) => r.renderId));
  });
});
