import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EdlEvent, parseEdl } from "../../src/domain/interchange/edl.ts";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

// Written by hand in the layouts Premiere Pro (29.97 drop-frame, record from 00:00:00;00,
// FROM/TO CLIP NAME comments) and DaVinci Resolve (24 fps non-drop, record from 01:00:00:00)
// export: cuts, a dissolve, a wipe, an M2 speed change, a fade from black.
const PREMIERE = `TITLE: Sequence 01
FCM: DROP FRAME

001  AX       V     C        00:00:00;00 00:00:03;00 00:00:00;00 00:00:03;00
* FROM CLIP NAME: interview.mov

002  AX       V     C        00:00:05;00 00:00:05;00 00:00:03;00 00:00:03;00
002  AX       V     D    030 00:00:10;00 00:00:14;00 00:00:03;00 00:00:07;00
* FROM CLIP NAME: interview.mov
* TO CLIP NAME: broll.mov

003  AX       V     C        00:00:02;00 00:00:06;00 00:00:07;00 00:00:09;00
M2   AX       059.9                00:00:02;00
* FROM CLIP NAME: broll.mov
`;

const RESOLVE = `TITLE: Timeline 1
FCM: NON-DROP FRAME

001  BL       V     C        00:00:00:00 00:00:00:00 01:00:00:00 01:00:00:00
001  AX       V     D    012 00:00:01:00 00:00:04:00 01:00:00:00 01:00:03:00
* TO CLIP NAME: opening.mov

002  AX       V     C        00:00:04:00 00:00:04:00 01:00:03:00 01:00:03:00
002  AX       V     W001 010 00:00:00:00 00:00:02:00 01:00:03:00 01:00:05:00
* TO CLIP NAME: product.mov

003  AX       AA    C        00:00:00:00 00:00:05:00 01:00:00:00 01:00:05:00
* FROM CLIP NAME: music.wav
`;

let t: TestApp;
let key: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const tmp = await tempDir("cutroom-edl-");
  cleanup = tmp.cleanup;
  const video = `${tmp.dir}/v.mp4`;
  const [app] = await Promise.all([
    startTestApp(),
    // 20 s: long enough for every source range of the EDLs below.
    ffmpeg([
      ..."-f lavfi -i testsrc2=s=64x36:r=30:d=20 -c:v libx264 -preset ultrafast -pix_fmt yuv420p".split(" "),
      video,
    ]),
  ]);
  t = app;
  const url = await t.listen();
  key = (await t.createAccount()).key;
  const { readFile } = await import("node:fs/promises");
  const bytes = await readFile(video);
  const form = new FormData();
  for (const name of ["interview.mov", "broll.mov", "opening.mov", "product.mov"])
    form.append("file", new Blob([bytes]), name);
  const res = await fetch(`${url}/api/v1/uploads`, { method: "POST", headers: bearer(key), body: form });
  expect(res.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

const importText = (edl: string, query = "") =>
  t.app.inject({
    method: "POST",
    url: `/api/compositions/import${query}`,
    headers: { ...bearer(key), "content-type": "text/plain" },
    payload: edl,
  });

/** Events as an editor reads them: clip, edit, source and record relative to the first record in. */
function cutList(edl: string, fps: number) {
  const { events } = parseEdl(edl, fps);
  const origin = Math.min(...events.map((e) => e.recIn));
  return events
    .filter((e) => /V/.test(e.channels))
    .map((e: EdlEvent) => ({
      clip: e.clipName,
      edit: e.edit,
      from: e.fromReel === "BL" ? "BL" : e.fromReel ? "clip" : null,
      src: [e.srcIn, e.srcOut],
      rec: [e.recIn - origin, e.recOut - origin],
      motion: e.motionFps,
    }));
}

describe("CMX 3600 EDL", () => {
  it("imports Premiere's drop-frame layout (cut, dissolve, M2) and exports the same events", async () => {
    const res = await importText(PREMIERE);
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c.canvas.fps).toBe(29.97);
    const clips = c.tracks[0].clips;
    expect(clips).toHaveLength(3);
    expect(clips[1].transition).toEqual({ type: "dissolve", duration: expect.closeTo(30 / 29.97, 5) });
    expect(clips[2].speed).toBeCloseTo(59.9 / 29.97, 4);
    const out = await t.app.inject({
      method: "GET",
      url: `/api/compositions/${c.id}/export?format=edl`,
      headers: bearer(key),
    });
    expect(out.statusCode, out.body).toBe(200);
    expect(out.headers["content-type"]).toMatch(/^text\/plain/);
    expect(out.body).toContain("FCM: DROP FRAME");
    expect(cutList(out.body, 29.97)).toEqual(cutList(PREMIERE, 29.97));
  });

  it("imports Resolve's non-drop layout (fade from black, wipe), warns about audio, exports the same video events", async () => {
    const res = await importText(RESOLVE, "?fps=24");
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c.canvas.fps).toBe(24);
    const clips = c.tracks[0].clips;
    // The wipe is centred: the outgoing clip runs 5 frames (half of 10) past the EDL's record in.
    expect(clips[0]).toMatchObject({
      start: 0,
      duration: expect.closeTo(3 + 5 / 24, 5),
      trim: 1,
      fadeIn: 0.5,
    });
    expect(clips[1].transition).toMatchObject({ type: "wipeleft" });
    expect(c.warnings).toEqual([{ path: "event 003", message: expect.stringContaining("audio-only") }]);
    const out = await t.app.inject({
      method: "GET",
      url: `/api/compositions/${c.id}/export?format=edl`,
      headers: bearer(key),
    });
    expect(cutList(out.body, 24)).toEqual(cutList(RESOLVE, 24));
  });

  it("names the event of an error, needs fps for non-drop EDLs, and asks for a track when several have clips", async () => {
    const bad = await importText(
      RESOLVE.replace("01:00:03:00 01:00:05:00", "01:00:03:00 01:00:02:99"),
      "?fps=24",
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^event 002: /);
    // A composition rule the EDL breaks is named by its event: a dissolve longer than its clip.
    const long = await importText(RESOLVE.replace("W001 010", "W001 090"), "?fps=24");
    expect(long.statusCode).toBe(400);
    expect(long.json().error.details).toContainEqual({
      path: "event 002",
      message: expect.stringMatching(/^event 002: transition\/duration: /),
    });
    const noFps = await importText(RESOLVE);
    expect(noFps.statusCode).toBe(400);
    expect(noFps.json().error.message).toMatch(/fps/);
    const json = await t.app.inject({
      method: "POST",
      url: "/api/compositions/import",
      headers: bearer(key),
      payload: { edl: PREMIERE.replace("interview.mov", "missing.mov"), fps: 29.97 },
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error.details[0]).toMatchObject({ path: "event 001" });

    const two = await t.app.inject({
      method: "POST",
      url: "/api/compositions",
      headers: bearer(key),
      payload: {
        name: "Two",
        canvas: { width: 64, height: 36, fps: 25, background: "#000000" },
        tracks: [
          { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] },
          {
            kind: "video",
            name: "Top",
            clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#00ff00" } }],
          },
        ],
      },
    });
    expect(two.statusCode, two.body).toBe(201);
    const refused = await t.app.inject({
      method: "GET",
      url: `/api/compositions/${two.json().id}/export?format=edl`,
      headers: bearer(key),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toContain("?track=");
    const picked = await t.app.inject({
      method: "GET",
      url: `/api/compositions/${two.json().id}/export?format=edl&track=1`,
      headers: bearer(key),
    });
    expect(picked.statusCode).toBe(200);
  });
});
