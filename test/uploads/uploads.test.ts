// Upload routes over HTTP on the local-disk driver: multipart upload (several files, all or
// nothing, aborts, refusals), real media metadata, parallel uploads, list/fetch/delete.
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fixtures, makeFixtures, paddedMp4Stream } from "../../src/domain/uploads/test-fixtures.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import {
  type ApiBody,
  eventually,
  type FormPart,
  postMultipart,
  storedFiles,
  type UploadJson,
  uploadRowCount,
} from "./helpers.ts";

let t: TestApp;
let base: string;
let dir: string;
let fx: Fixtures;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-upl-"));
  fx = await makeFixtures(dir);
  t = await startTestApp();
  base = await t.listen();
});
afterAll(async () => {
  // A failed assertion can leave a response unread, keeping its connection busy: don't wait for it.
  t?.app.server.closeAllConnections();
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Signed URLs carry PUBLIC_URL (default http://127.0.0.1:3000); the test server listens on a
 * random port, so requests go there with the URL's path and query unchanged.
 */
const reach = (url: string | null): string => {
  expect(url?.startsWith(`${t.config.publicUrl}/files/`), String(url)).toBe(true);
  return `${base}${(url as string).slice(t.config.publicUrl.length)}`;
};
/** GETs `url` without a key, reading the whole body; returns the status. */
const statusOf = async (url: string): Promise<number> => {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status;
};
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const filePart = async (file: string, filename = path.basename(file)): Promise<FormPart> => ({
  filename,
  data: await readFile(file),
});

/** Rows and stored files now, to check later that a refused request left nothing behind. */
async function snapshot(): Promise<{ rows: number; files: string[] }> {
  return { rows: await uploadRowCount(t), files: await storedFiles(t) };
}

async function expectNothingLeft(before: { rows: number; files: string[] }): Promise<void> {
  await eventually(async () => JSON.stringify(await snapshot()) === JSON.stringify(before));
  expect(await snapshot()).toEqual(before);
}

/** GET with the key; the body as a list page or an error (or, with `T`, the resource). */
async function getJson<T = Required<ApiBody>>(
  url: string,
  key: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${url}`, { headers: bearer(key) });
  return { status: res.status, body: (await res.json()) as T };
}

describe("POST /api/v1/uploads", () => {
  it("stores several files of one request in the order sent, typed and probed from their bytes", async () => {
    const a = await t.createAccount();
    const files = [fx.video, fx.mp3, fx.png, fx.srt];
    const res = await postMultipart(
      base,
      // Declared types are ignored: the bytes decide.
      await Promise.all(files.map(async (f) => ({ ...(await filePart(f)), contentType: "text/plain" }))),
      { key: a.key },
    );
    expect(res.status, res.text).toBe(201);
    const data = res.body.data as UploadJson[];
    expect(data.map((u) => u.name)).toEqual(["video.mp4", "audio.mp3", "image.png", "subs.srt"]);
    for (const [i, u] of data.entries()) {
      const bytes = await readFile(files[i] as string);
      expect(u).toMatchObject({ projectId: null, size: bytes.length, sha256: sha256(bytes) });
      expect(u.id).toMatch(/^upl_[0-9A-Z]{26}$/);
      expect(Date.parse(u.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    }
    const [video, audio, image, srt] = data as [UploadJson, UploadJson, UploadJson, UploadJson];

    expect(video).toMatchObject({ type: "video", mimeType: "video/mp4" });
    expect(video.media).toMatchObject({
      width: 320,
      height: 240,
      fps: 25,
      videoCodec: "h264",
      audioCodec: "aac",
      hasAudio: true,
    });
    expect(video.media?.duration).toBeCloseTo(1, 1);

    expect(audio).toMatchObject({ type: "audio", mimeType: "audio/mpeg", posterUrl: null });
    expect(audio.media).toMatchObject({
      width: null,
      height: null,
      fps: null,
      videoCodec: null,
      audioCodec: "mp3",
      hasAudio: true,
    });
    expect(audio.media?.duration).toBeCloseTo(1, 1);

    expect(image).toMatchObject({
      type: "image",
      mimeType: "image/png",
      media: {
        duration: null,
        width: 1200,
        height: 800,
        fps: null,
        videoCodec: null,
        audioCodec: null,
        hasAudio: false,
      },
    });
    expect(srt).toMatchObject({
      type: "subtitle",
      mimeType: "application/x-subrip",
      media: null,
      fontFamilies: null,
      posterUrl: null,
    });

    // Posters: a JPEG no larger than 640 px, for video and image only.
    for (const u of [video, image]) {
      expect(u.posterUrl).toMatch(/\/files\/uploads\/upl_\w+\/poster\.jpg\?/);
      const poster = await fetch(reach(u.posterUrl));
      const jpeg = Buffer.from(await poster.arrayBuffer());
      expect(poster.status).toBe(200);
      expect(poster.headers.get("content-type")).toBe("image/jpeg");
      expect(jpeg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
    // Originals and posters are on disk, nothing else (no temp files).
    const stored = await storedFiles(t);
    for (const u of data) expect(stored).toContain(`uploads/${u.id}/original`);
    expect(stored.filter((f) => f.includes("poster"))).toHaveLength(2);
    expect(stored.every((f) => !path.basename(f).startsWith("."))).toBe(true);
  });

  it("is all or nothing: one bad file among good ones leaves no row and no object", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    // A file that claims to be MP4 but does not probe, after two good ones (stored by then).
    const bad = await postMultipart(
      base,
      [await filePart(fx.video), await filePart(fx.srt), await filePart(fx.brokenMp4)],
      { key: a.key },
    );
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request" });
    expect(bad.body.error?.message).toContain('"broken.mp4"');
    await expectNothingLeft(before);

    // An unsupported type after good ones: 415 naming the file.
    const refused = await postMultipart(base, [await filePart(fx.png), await filePart(fx.random, "x.srt")], {
      key: a.key,
    });
    expect(refused.status).toBe(415);
    expect(refused.body.error?.message).toContain('"x.srt"');
    await expectNothingLeft(before);
  });

  it("refuses 21 files with 400 before any is probed or kept: no row, no object", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    const png = await filePart(fx.png);
    const parts = Array.from({ length: 21 }, (_, i) => ({ ...png, filename: `p${i}.png` }));
    const res = await postMultipart(base, parts, { key: a.key });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request" });
    expect(res.body.error?.message).toContain("at most 20");
    await expectNothingLeft(before);
  });

  it("refuses a disguised executable (ELF named .mp4) with 415", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    const res = await postMultipart(
      base,
      [{ ...(await filePart(fx.elfAsMp4, "holiday.mp4")), contentType: "video/mp4" }],
      { key: a.key },
    );
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({
      code: "unsupported_media_type",
      message: expect.stringContaining('"holiday.mp4"'),
      requestId: expect.stringMatching(/^req_/),
    });
    await expectNothingLeft(before);
  });

  it("answers 400 for malformed multipart and for a request without any file", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    const cases: { name: string; parts?: FormPart[]; raw?: string; contentType?: string }[] = [
      { name: "no part at all", raw: "--b\r\n--b--\r\n", contentType: "multipart/form-data; boundary=b" },
      { name: "fields only", parts: [{ field: "note", value: "hello" }] },
      { name: "garbage", raw: "this is not multipart", contentType: "multipart/form-data; boundary=b" },
      {
        name: "truncated part",
        raw: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.srt"\r\n\r\n1\r\n00:00',
        contentType: "multipart/form-data; boundary=b",
      },
      { name: "no boundary", raw: "--b--\r\n", contentType: "multipart/form-data" },
    ];
    for (const c of cases) {
      const res = await postMultipart(base, c.parts ?? [], {
        key: a.key,
        ...(c.raw !== undefined ? { rawBody: Buffer.from(c.raw) } : {}),
        ...(c.contentType ? { contentType: c.contentType } : {}),
      });
      expect(res.status, `${c.name}: ${res.text}`).toBe(400);
      expect(res.body.error?.code, c.name).toBe("invalid_request");
    }
    // Not multipart at all: 415.
    const json = await fetch(`${base}/api/v1/uploads`, {
      method: "POST",
      headers: { ...bearer(a.key), "content-type": "application/json" },
      body: JSON.stringify({ file: "x" }),
    });
    expect(json.status).toBe(415);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
    await expectNothingLeft(before);
  });

  it("refuses a read-only key with 403 and no key with 401, storing nothing", async () => {
    const reader = await t.createAccount({ scopes: ["read"] });
    const before = await snapshot();
    const res = await postMultipart(base, [await filePart(fx.png)], { key: reader.key });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe("insufficient_scope");
    const anonymous = await postMultipart(base, [await filePart(fx.png)]);
    expect(anonymous.status).toBe(401);
    await expectNothingLeft(before);
  });

  it("keeps the caller's projectId, and answers 404 for another owner's project, storing nothing", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const created = await fetch(`${base}/api/v1/projects`, {
      method: "POST",
      headers: { ...bearer(a.key), "content-type": "application/json" },
      body: JSON.stringify({ name: "A's project" }),
    });
    const projectId = ((await created.json()) as { id: string }).id;

    const own = await postMultipart(
      base,
      [{ field: "projectId", value: projectId }, await filePart(fx.srt)],
      {
        key: a.key,
      },
    );
    expect(own.status).toBe(201);
    expect(own.body.data?.[0]?.projectId).toBe(projectId);

    const before = await snapshot();
    for (const parts of [
      // projectId first (checked before any file is stored) …
      [{ field: "projectId", value: projectId }, await filePart(fx.png)],
      // … or after the files (which are then discarded).
      [await filePart(fx.png), { field: "projectId", value: projectId }],
      [{ field: "projectId", value: "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C" }, await filePart(fx.srt)],
    ] as FormPart[][]) {
      const res = await postMultipart(base, parts, { key: b.key });
      expect(res.status, res.text).toBe(404);
      expect(res.body.error?.code).toBe("not_found");
    }
    await expectNothingLeft(before);
  });

  it("answers 400 naming the field for a NUL in a field or file name, storing nothing", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    for (const [parts, path] of [
      [[{ field: "projectId", value: "prj_\u0000" }, await filePart(fx.srt)], "/projectId"],
      [[await filePart(fx.png), { field: "projectId", value: "\u0000" }], "/projectId"],
      [[await filePart(fx.srt, "cues\u0000.srt")], "/file/filename"],
    ] as [FormPart[], string][]) {
      const res = await postMultipart(base, parts, { key: a.key });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error?.code).toBe("invalid_request");
      expect(res.text).toContain(path);
    }
    await expectNothingLeft(before);
  });

  it("keeps nothing when the client aborts mid-upload", async () => {
    const a = await t.createAccount();
    const before = await snapshot();
    const video = await readFile(fx.video);
    // The first file arrives whole and is stored; the connection dies 3 MB into the second one.
    async function* second(): AsyncGenerator<Buffer> {
      const firstStored = async () =>
        (await storedFiles(t)).some((f) => f.endsWith("/original") && !before.files.includes(f));
      await eventually(firstStored);
      expect(await firstStored()).toBe(true);
      yield* paddedMp4Stream(video, 64 * 1024 * 1024);
    }
    const res = await postMultipart(
      base,
      [
        { filename: "first.mp4", data: video },
        { filename: "second.mp4", data: Readable.from(second()) },
      ],
      { key: a.key, abortAfterBytes: video.length + 3 * 1024 * 1024 },
    );
    expect(res.status).toBe(0);
    expect(res.finished).toBe(false);
    await expectNothingLeft(before);
    // The server is still fine.
    const after = await postMultipart(base, [await filePart(fx.srt)], { key: a.key });
    expect(after.status).toBe(201);
  });

  it("accepts 10 uploads in parallel", async () => {
    const a = await t.createAccount();
    const kinds = [fx.video, fx.png, fx.mp3, fx.srt, fx.jpeg];
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) =>
        postMultipart(base, [await filePart(kinds[i % kinds.length] as string, `f${i}`)], { key: a.key }),
      ),
    );
    console.info(`10 parallel uploads in ${Math.round(performance.now() - started)} ms`);
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const uploads = results.map((r) => r.body.data?.[0] as UploadJson);
    expect(new Set(uploads.map((u) => u.id)).size).toBe(10);
    expect(uploads.map((u) => u.name)).toEqual(Array.from({ length: 10 }, (_, i) => `f${i}`));
    for (const [i, u] of uploads.entries()) {
      const bytes = await readFile(kinds[i % kinds.length] as string);
      const got = Buffer.from(await (await fetch(reach(u.url))).arrayBuffer());
      expect(sha256(got)).toBe(sha256(bytes));
    }
    const list = await getJson("/api/v1/uploads?limit=100", a.key);
    expect(list.body.data).toHaveLength(10);
  });
});

describe("GET / DELETE /api/v1/uploads", () => {
  it("lists newest first with cursor pages, filtered by project and type; never another owner's", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const project = await fetch(`${base}/api/v1/projects`, {
      method: "POST",
      headers: { ...bearer(a.key), "content-type": "application/json" },
      body: JSON.stringify({ name: "P" }),
    });
    const projectId = ((await project.json()) as { id: string }).id;
    const first = await postMultipart(
      base,
      [
        { field: "projectId", value: projectId },
        await filePart(fx.png),
        await filePart(fx.srt, "1.srt"),
        await filePart(fx.vtt),
      ],
      { key: a.key },
    );
    const second = await postMultipart(base, [await filePart(fx.srt, "2.srt"), await filePart(fx.mp3)], {
      key: a.key,
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    await postMultipart(base, [await filePart(fx.srt)], { key: b.key });
    const created = [...(first.body.data ?? []), ...(second.body.data ?? [])].map((u) => u.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/api/v1/uploads?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await getJson(url, a.key);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((u) => u.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());

    const ids = async (query: string) =>
      (await getJson(`/api/v1/uploads?${query}`, a.key)).body.data.map((u) => u.name);
    expect(await ids(`projectId=${projectId}`)).toEqual(["subs.vtt", "1.srt", "image.png"]);
    expect(await ids("type=subtitle")).toEqual(["2.srt", "subs.vtt", "1.srt"]);
    expect(await ids(`type=subtitle&projectId=${projectId}&limit=1`)).toEqual(["subs.vtt"]);
    expect(await ids("type=audio")).toEqual(["audio.mp3"]);
    expect(await ids("type=font")).toEqual([]);
    expect((await getJson(`/api/v1/uploads?projectId=${projectId}`, b.key)).body.data).toEqual([]);
    for (const bad of ["type=document", "limit=0", "limit=101", "cursor=nope"]) {
      const res = await getJson(`/api/v1/uploads?${bad}`, a.key);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("fetch returns the upload with freshly signed URLs; another owner's upload is a 404", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const up = (await postMultipart(base, [await filePart(fx.png)], { key: a.key })).body
      .data?.[0] as UploadJson;
    await new Promise((r) => setTimeout(r, 1100)); // expiries have one-second resolution
    const got = await getJson<UploadJson>(`/api/v1/uploads/${up.id}`, a.key);
    expect(got.status).toBe(200);
    const { url, urlExpiresAt, posterUrl, ...rest } = got.body;
    const { url: _u, urlExpiresAt: _e, posterUrl: _p, ...restCreated } = up;
    expect(rest).toEqual({ ...restCreated, usedBy: [] });
    expect(url).not.toBe(up.url);
    expect(Date.parse(urlExpiresAt)).toBeGreaterThan(Date.parse(up.urlExpiresAt));
    expect(Date.parse(urlExpiresAt)).toBeGreaterThanOrEqual(Date.now() + 24 * 3600_000 - 5_000);
    expect(posterUrl).not.toBe(up.posterUrl);
    expect(await statusOf(reach(url))).toBe(200);
    expect(await statusOf(reach(posterUrl))).toBe(200);

    for (const [key, id] of [
      [b.key, up.id],
      [a.key, "upl_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"],
    ] as const) {
      const res = await getJson(`/api/v1/uploads/${id}`, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
  });

  it("delete removes the row and the stored objects, is idempotent (204) and never touches another owner's", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount({ scopes: ["read", "write"] });
    const reader = await t.addKey(a.userId, ["read"]);
    const up = (await postMultipart(base, [await filePart(fx.video)], { key: a.key })).body
      .data?.[0] as UploadJson;
    const objects = async () => (await storedFiles(t)).filter((f) => f.startsWith(`uploads/${up.id}/`));
    expect(await objects()).toEqual([`uploads/${up.id}/original`, `uploads/${up.id}/poster.jpg`]);

    const del = (key: string) =>
      fetch(`${base}/api/v1/uploads/${up.id}`, { method: "DELETE", headers: bearer(key) });
    // Another owner: 204 like any absent upload, and nothing happens.
    expect((await del(b.key)).status).toBe(204);
    expect(await statusOf(reach(up.url))).toBe(200);
    expect((await del(reader.key)).status).toBe(403);
    expect(await objects()).toHaveLength(2);

    const first = await del(a.key);
    expect(first.status).toBe(204);
    expect(await first.text()).toBe("");
    expect(await objects()).toEqual([]);
    expect((await getJson(`/api/v1/uploads/${up.id}`, a.key)).status).toBe(404);
    expect(await statusOf(reach(up.url))).toBe(404);
    expect(await statusOf(reach(up.posterUrl))).toBe(404);
    expect((await del(a.key)).status).toBe(204);
    expect((await getJson("/api/v1/uploads", a.key)).body.data).toEqual([]);
  });
});
