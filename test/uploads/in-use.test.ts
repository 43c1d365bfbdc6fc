// An upload that compositions use: the upload says who uses it, a delete needs force, and the
// compositions stay editable with the clip marked missing until it is relinked or deleted.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas } from "../renders/helpers.ts";

let t: TestApp;
let api: ReturnType<typeof client>;
let other: ReturnType<typeof client>;
let dir: { dir: string; cleanup(): Promise<void> };
let cockatoo: string;
let parrot: string;
let still: string;

beforeAll(async () => {
  dir = await tempDir("cutroom-in-use-");
  cockatoo = path.join(dir.dir, "cockatoo.mp4");
  parrot = path.join(dir.dir, "parrot.mp4");
  still = path.join(dir.dir, "still.png");
  const video = (out: string) =>
    ffmpeg([
      ...["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=2"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", out],
    ]);
  await Promise.all([
    video(cockatoo),
    video(parrot),
    ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=160x90", "-frames:v", "1", still]),
  ]);
  t = await startTestApp({ worker: true });
  const base = await t.listen();
  api = client(base, (await t.createAccount()).key);
  other = client(base, (await t.createAccount()).key);
});
afterAll(async () => {
  await t?.close();
  await dir?.cleanup();
});

const ifMatch = (v: number) => ({ "if-match": `"${v}"` });

async function compositionWith(uploadId: string, name = "Birds") {
  return api.createComposition({
    name,
    canvas: tinyCanvas(25),
    tracks: [
      {
        kind: "video",
        clips: [
          { start: 0, duration: 2, asset: { type: "color", color: "#00ff00" } },
          { start: 6, duration: 1, asset: { type: "video", uploadId } },
          { start: 8, duration: 1, asset: { type: "video", uploadId } },
        ],
      },
    ],
  });
}

describe("an upload in use", () => {
  it("lists its users; a delete is a 409 naming them unless force=true", async () => {
    const [up] = await api.upload([cockatoo]);
    const comp = await compositionWith(up?.id ?? "", "Birds");
    const got = await api.json("GET", `/api/v1/uploads/${up?.id}`);
    expect(got.body.usedBy).toEqual([{ id: comp.id, name: "Birds", clips: 2 }]);

    const refused = await api.json("DELETE", `/api/v1/uploads/${up?.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("conflict");
    expect(refused.body.error.message).toMatch(
      /^cockatoo\.mp4 is used by the composition "Birds" \(2 clips\)/,
    );
    expect(refused.body.error.usedBy).toEqual([{ id: comp.id, name: "Birds", clips: 2 }]);
    expect((await api.json("GET", `/api/v1/uploads/${up?.id}`)).status).toBe(200);

    expect((await api.json("DELETE", `/api/v1/uploads/${up?.id}?force=true`)).status).toBe(204);
    expect((await api.json("GET", `/api/v1/uploads/${up?.id}`)).status).toBe(404);
  });

  it("an unused upload has no users and deletes without force", async () => {
    const [up] = await api.upload([still]);
    expect((await api.json("GET", `/api/v1/uploads/${up?.id}`)).body.usedBy).toEqual([]);
    expect((await api.json("DELETE", `/api/v1/uploads/${up?.id}`)).status).toBe(204);
  });
});

describe("a composition whose upload is gone", () => {
  async function degraded() {
    const [up] = await api.upload([cockatoo]);
    const comp = await compositionWith(up?.id ?? "");
    expect((await api.json("DELETE", `/api/v1/uploads/${up?.id}?force=true`)).status).toBe(204);
    const read = await api.json("GET", `/api/compositions/${comp.id}`);
    expect(read.status).toBe(200);
    return { uploadId: up?.id ?? "", comp: read.body };
  }

  it("reads with a warning per missing clip, named by file name and time", async () => {
    const { uploadId, comp } = await degraded();
    expect(comp.tracks[0].clips[1].name).toBe("cockatoo.mp4");
    expect(comp.warnings).toEqual([
      {
        code: "upload_missing",
        message:
          "cockatoo.mp4 at 0:06: its upload was deleted; relink the clip to another upload or delete it",
        path: "/tracks/0/clips/1",
        clipId: comp.tracks[0].clips[1].id,
        uploadId,
      },
      expect.objectContaining({
        path: "/tracks/0/clips/2",
        message: expect.stringMatching(/^cockatoo\.mp4 at 0:08:/),
      }),
    ]);
  });

  it("accepts writes that leave the missing clips as they are, and a PUT of what GET returned", async () => {
    const { comp } = await degraded();
    const patch = (ops: unknown[], v: number) =>
      api.json("PATCH", `/api/compositions/${comp.id}`, ops, {
        ...ifMatch(v),
        "content-type": "application/json-patch+json",
      });
    const renamed = await patch([{ op: "replace", path: "/name", value: "Birds, take 2" }], comp.version);
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const marked = await patch(
      [{ op: "add", path: "/markers", value: [{ time: 1, label: "cut" }] }],
      renamed.body.version,
    );
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    const removed = await patch([{ op: "remove", path: "/tracks/0/clips/2" }], marked.body.version);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.warnings).toHaveLength(1);
    const put = await api.json(
      "PUT",
      `/api/compositions/${comp.id}`,
      removed.body,
      ifMatch(removed.body.version),
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });

  it("still refuses a write that makes it newly wrong, naming clips by file name and time", async () => {
    const { comp } = await degraded();
    const overlap = await api.json(
      "PATCH",
      `/api/compositions/${comp.id}`,
      [{ op: "replace", path: "/tracks/0/clips/0/duration", value: 7 }],
      { ...ifMatch(comp.version), "content-type": "application/json-patch+json" },
    );
    expect(overlap.status).toBe(400);
    expect(overlap.body.error.message).toBe(
      "Composition is invalid: cockatoo.mp4 at 0:06 overlaps color clip at 0:00 on the same track (which ends at 7 s)",
    );
    expect(overlap.body.error.details[0]).toMatchObject({
      path: "/tracks/0/clips/1/start",
      clipId: comp.tracks[0].clips[1].id,
    });
    const unknown = await api.json(
      "PATCH",
      `/api/compositions/${comp.id}`,
      [
        {
          op: "add",
          path: "/tracks/0/clips/-",
          value: { start: 20, duration: 1, asset: { type: "video", uploadId: "upl_nope" } },
        },
      ],
      { ...ifMatch(comp.version), "content-type": "application/json-patch+json" },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      {
        path: "/tracks/0/clips/3/asset/uploadId",
        message: "upload upl_nope was not found",
        uploadId: "upl_nope",
      },
    ]);
  });

  it("relinks every clip of the missing upload to another upload of the caller, never to another account's", async () => {
    const { uploadId, comp } = await degraded();
    const [foreign] = await other.upload([parrot]);
    const refused = await api.json(
      "POST",
      `/api/compositions/${comp.id}/relink`,
      { from: uploadId, to: foreign?.id },
      ifMatch(comp.version),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^Cannot relink to upload /);
    expect(refused.body.error.details[0]).toMatchObject({ path: "/to", uploadId: foreign?.id });

    const [image] = await api.upload([still]);
    const wrongType = await api.json(
      "POST",
      `/api/compositions/${comp.id}/relink`,
      { from: uploadId, to: image?.id },
      ifMatch(comp.version),
    );
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details[0].message).toMatch(/still\.png is a image; expected a video upload/);

    const [replacement] = await api.upload([parrot]);
    const relinked = await api.json(
      "POST",
      `/api/compositions/${comp.id}/relink`,
      { from: uploadId, to: replacement?.id },
      ifMatch(comp.version),
    );
    expect(relinked.status, JSON.stringify(relinked.body)).toBe(200);
    expect(relinked.body.version).toBe(comp.version + 1);
    expect(relinked.body.warnings).toBeUndefined();
    expect(
      relinked.body.tracks[0].clips.map((c: { asset: { uploadId?: string } }) => c.asset.uploadId),
    ).toEqual([undefined, replacement?.id, replacement?.id]);
    const stale = await api.json(
      "POST",
      `/api/compositions/${comp.id}/relink`,
      { from: replacement?.id, to: uploadId },
      ifMatch(comp.version),
    );
    expect(stale.status).toBe(409);
    const unused = await api.json(
      "POST",
      `/api/compositions/${comp.id}/relink`,
      { from: uploadId, to: replacement?.id },
      ifMatch(relinked.body.version),
    );
    expect(unused.status).toBe(400);
    expect(unused.body.error.details).toEqual([{ path: "/from", message: "no clip uses this upload" }]);
  });

  it("a render fails naming the missing clip by file name and time", async () => {
    const { comp } = await degraded();
    const render = await api.startRender({ compositionId: comp.id });
    const history = await api.pollUntilTerminal(render.id);
    const last = history.at(-1);
    expect(last?.status).toBe("failed");
    expect(last?.error).toMatchObject({
      code: "ASSET_NOT_FOUND",
      message:
        "cockatoo.mp4 at 0:06: its upload was deleted; relink the clip to another upload (or upload the file again) or delete it",
      clipId: comp.tracks[0].clips[1].id,
    });
  });

  it("preflight names the missing clip by file name and time", async () => {
    const { comp } = await degraded();
    const check = await api.json("GET", `/api/compositions/${comp.id}/check`);
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    expect(check.body.ok).toBe(false);
    expect(check.body.problems[0]).toMatchObject({
      code: "ASSET_NOT_FOUND",
      message:
        "cockatoo.mp4 at 0:06: its upload was deleted; relink the clip to another upload (or upload the file again) or delete it",
      clipId: comp.tracks[0].clips[1].id,
    });
  });
});
