import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EdlEvent, parseEdl } from "../../src/domain/interchange/edl.ts";
import { allFrames, type Frame, ffmpeg, probe, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { client, download, onServer } from "../renders/helpers.ts";

// Written by hand in the layouts Premiere Pro (29.97 drop-frame, record from 00:00:00;00,
// FROM/TO CLIP NAME comments) and DaVinci Resolve (24 fps non-drop, record from 01:00:00:00)
// export: cuts, a dissolve, a wipe, an M2 speed change, a fade from black and one to black, an
// audio event, a locator.
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
* LOC: 01:00:04:00 RED     Logo reveal

003  AX       V     C        00:00:02:00 00:00:02:00 01:00:05:00 01:00:05:00
003  BL       V     D    012 00:00:00:00 00:00:00:12 01:00:05:00 01:00:05:12

004  AX       AA    C        00:00:00:00 00:00:05:00 01:00:00:00 01:00:05:00
* FROM CLIP NAME: music.wav
`;

let t: TestApp;
let base: string;
let key: string;
let dir: string;
let cleanup: () => Promise<void>;

/** Each source a solid colour of its own, so a rendered frame shows which one it came from. */
const COLOURS = {
  "interview.mov": [255, 0, 0],
  "broll.mov": [0, 255, 0],
  "opening.mov": [0, 0, 255],
  "product.mov": [255, 255, 0],
} as const;
const W = 64;
const H = 36;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-edl-"));
  const hex = (rgb: readonly number[]) => `0x${rgb.map((v) => v.toString(16).padStart(2, "0")).join("")}`;
  const [app] = await Promise.all([
    startTestApp({ worker: true }),
    // 20 s: long enough for every source range of the EDLs below.
    ...Object.entries(COLOURS).map(([name, rgb]) =>
      ffmpeg([
        ...`-f lavfi -i color=c=${hex(rgb)}:s=${W}x${H}:r=30:d=20 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -f mp4`.split(
          " ",
        ),
        `${dir}/${name}`,
      ]),
    ),
    ffmpeg([..."-f lavfi -i sine=f=440:sample_rate=8000:d=6 -f wav".split(" "), `${dir}/music.wav`]),
  ]);
  t = app;
  base = await t.listen();
  key = (await t.createAccount()).key;
  const form = new FormData();
  for (const name of [...Object.keys(COLOURS), "music.wav"])
    form.append("file", new Blob([await readFile(`${dir}/${name}`)]), name);
  const res = await fetch(`${base}/api/v1/uploads`, { method: "POST", headers: bearer(key), body: form });
  expect(res.status, await res.clone().text()).toBe(201);
}, 180_000);
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

/**
 * Events as an editor reads them: channel (`AA` is `A`), clip, edit, source and record relative
 * to the first record in; and the locators.
 */
function cutList(edl: string, fps: number) {
  const { events, locators } = parseEdl(edl, fps);
  const origin = Math.min(...events.map((e) => e.recIn));
  return {
    events: events.map((e: EdlEvent) => ({
      channel: /V/.test(e.channels) ? "V" : e.channels.replace(/^AA$/, "A"),
      clip: e.clipName,
      edit: e.edit,
      from: e.fromReel === "BL" ? "BL" : e.fromReel ? "clip" : null,
      src: [e.srcIn, e.srcOut],
      rec: [e.recIn - origin, e.recOut - origin],
      motion: e.motionFps,
    })),
    locators: locators.map((l) => ({ at: l.frame - origin, label: l.label })),
  };
}

/** Mean colour of a frame's centre. */
function meanColour(frame: Frame): number[] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = H / 4; y < (3 * H) / 4; y += 2)
    for (let x = W / 4; x < (3 * W) / 4; x += 2) {
      frame.pixel(x, y).forEach((v, i) => {
        sum[i] = (sum[i] ?? 0) + v;
      });
      n++;
    }
  return sum.map((v) => v / n);
}

/** The source whose colour a frame shows (or "black"). */
function sourceOf(frame: Frame): string {
  const c = meanColour(frame);
  const candidates: [string, readonly number[]][] = [...Object.entries(COLOURS), ["black", [0, 0, 0]]];
  const distance = (rgb: readonly number[]) => Math.max(...rgb.map((v, i) => Math.abs(v - (c[i] ?? 0))));
  return candidates.sort((a, b) => distance(a[1]) - distance(b[1]))[0]?.[0] ?? "";
}

/**
 * Imports an EDL at a small canvas, renders it, and checks the file: as many frames as the
 * EDL's record duration, and at each video event's midpoint the picture of its source.
 */
async function renderChecks(edl: string, fps: number) {
  const api = client(base, key);
  const imported = await api.json("POST", "/api/compositions/import", {
    edl,
    fps,
    canvas: { width: W, height: H },
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  const started = await api.startRender({ compositionId: imported.body.id, output: { format: "mp4" } });
  const done = (await api.pollUntilTerminal(started.id, { timeoutMs: 240_000 })).at(-1);
  expect(done?.status, JSON.stringify(done?.error)).toBe("succeeded");
  const file = `${dir}/render-${started.id}.mp4`;
  await download(onServer(base, done?.output?.url ?? ""), file);
  const { events } = parseEdl(edl, fps);
  const origin = Math.min(...events.map((e) => e.recIn));
  const recordFrames = Math.max(...events.map((e) => e.recOut)) - origin;
  const probed = await probe(file, true);
  expect(probed.video?.frames).toBe(recordFrames);
  expect(probed.duration).toBeCloseTo(recordFrames / fps, 1);
  const frames = await allFrames(file, W, H);
  const seen = events
    .filter((e) => /V/.test(e.channels) && e.reel !== "BL")
    .map((e) => {
      const mid = Math.floor((e.recIn + e.recOut) / 2) - origin;
      return { event: e.number, mid, shows: sourceOf(frames[mid] as Frame) };
    });
  expect(seen).toEqual(
    events
      .filter((e) => /V/.test(e.channels) && e.reel !== "BL")
      .map((e) => ({ event: e.number, mid: expect.any(Number), shows: e.clipName })),
  );
  return { frames, recordFrames };
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

  it("renders Premiere's drop-frame EDL: its record duration, each event's source at its midpoint", async () => {
    await renderChecks(PREMIERE, 29.97);
  }, 300_000);

  it("renders Resolve's EDL: wipe, fades from and to black, its record duration, each event's source", async () => {
    const { frames, recordFrames } = await renderChecks(RESOLVE, 24);
    // The fade to black: the last frame nearly black, darker than the one where the fade starts.
    const level = (f: number) => meanColour(frames[f] as Frame).reduce((a, b) => a + b, 0);
    expect(sourceOf(frames[recordFrames - 1] as Frame)).toBe("black");
    expect(level(recordFrames - 1)).toBeLessThan(level(recordFrames - 13) / 4);
  }, 300_000);

  it("imports Resolve's non-drop layout (fades from and to black, wipe, audio, locator) and exports the same events", async () => {
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
    // The dissolve to black: the clip runs under it (to 5.5 s), fading out.
    expect(clips[1]).toMatchObject({ duration: expect.closeTo(5.5 - (3 + 5 / 24), 5), fadeOut: 0.5 });
    expect(c.tracks[1]).toMatchObject({
      kind: "audio",
      name: "A1",
      clips: [{ start: 0, duration: 5, asset: { type: "audio" }, name: "music.wav" }],
    });
    expect(c.markers).toEqual([{ id: expect.any(String), time: 4, label: "Logo reveal" }]);
    expect(c.warnings).toEqual([]);
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
