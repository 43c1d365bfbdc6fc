// The MLT export rendered by Debian's melt, frames compared with Cutroom's own render.
// postgres-pass: skip — checks the export's XML and melt's frames; the export route itself runs on
// PostgreSQL in test/compositions/interchange.test.ts.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allFrames, type Frame, ffmpeg, probe, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { assertWellFormedXml } from "../helpers/xml.ts";
import { client, download, onServer } from "../renders/helpers.ts";

const run = promisify(execFile);
/** Debian's melt (scripts/test.sh installs it); without it this file is skipped. */
const hasMelt = await run("melt", ["-version"]).then(
  () => true,
  () => false,
);

const W = 320;
const H = 180;
let t: TestApp;
let base: string;
let key: string;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-melt-"));
  t = await startTestApp({ worker: true });
  base = await t.listen();
  key = (await t.createAccount()).key;
});
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

/** Mean colour of a frame's central quarter. */
function meanColour(frame: Frame): [number, number, number] {
  let [r, g, b, n] = [0, 0, 0, 0];
  for (let y = Math.floor(H / 4); y < (3 * H) / 4; y += 4) {
    for (let x = Math.floor(W / 4); x < (3 * W) / 4; x += 4) {
      const [pr, pg, pb] = frame.pixel(x, y);
      r += pr;
      g += pg;
      b += pb;
      n++;
    }
  }
  return [r / n, g / n, b / n];
}

const colourDistance = (a: readonly number[], b: readonly number[]) =>
  Math.max(...a.map((v, i) => Math.abs(v - (b[i] ?? 0))));

describe.skipIf(!hasMelt)("MLT export rendered by melt", () => {
  it("renders to the same duration and the same pictures at the cuts as our own render (trims, a dissolve, speed, a fade)", async () => {
    // Three sources, 3 s at 25 fps, each a ramp in its own channel (40 + 60 × source seconds),
    // so that a wrong trim or cut point shows as a wrong level.
    const channels = { red: "r", lime: "g", blue: "b" } as const;
    await Promise.all(
      Object.entries(channels).map(([name, channel]) =>
        ffmpeg([
          "-f",
          "lavfi",
          "-i",
          `color=c=black:s=${W}x${H}:r=25:d=3,format=rgb24,geq=${(["r", "g", "b"] as const)
            .map((c) => `${c}='${c === channel ? "40+60*T" : "0"}'`)
            .join(":")}`,
          "-c:v",
          "libx264",
          "-preset",
          "ultrafast",
          "-pix_fmt",
          "yuv420p",
          path.join(dir, `${name}.mp4`),
        ]),
      ),
    );
    const api = client(base, key);
    const [red, lime, blue] = await api.upload(
      ["red", "lime", "blue"].map((n) => path.join(dir, `${n}.mp4`)),
    );
    // A hard cut at 1 s, a 0.4 s dissolve centred on 2 s, and a cut at 3 s to a clip at double speed.
    const comp = await api.createComposition({
      name: "melt check",
      canvas: { width: W, height: H, fps: 25, background: "#000000" },
      tracks: [
        {
          kind: "video",
          clips: [
            { start: 0, duration: 1, trim: 0.5, asset: { type: "video", uploadId: red?.id } },
            { start: 1, duration: 1, trim: 1, asset: { type: "video", uploadId: lime?.id } },
            {
              start: 2,
              duration: 1,
              trim: 0.5,
              asset: { type: "video", uploadId: blue?.id },
              transition: { type: "fade", duration: 0.4 },
            },
            {
              start: 3,
              duration: 1,
              trim: 0.5,
              speed: 2,
              fadeOut: 0.4,
              asset: { type: "video", uploadId: red?.id },
            },
          ],
        },
      ],
    });

    const started = await api.startRender({
      compositionId: comp.id,
      output: { format: "mp4", quality: "high" },
    });
    const history = await api.pollUntilTerminal(started.id, { timeoutMs: 120_000 });
    const done = history.at(-1);
    expect(done?.status, JSON.stringify(done?.error)).toBe("succeeded");
    const ours = path.join(dir, "ours.mp4");
    await download(onServer(base, done?.output?.url ?? ""), ours);

    const exported = await t.app.inject({
      method: "GET",
      url: `/api/compositions/${comp.id}/export?format=mlt&assets=paths`,
      headers: bearer(key),
    });
    expect(exported.statusCode, exported.body).toBe(200);
    assertWellFormedXml(exported.body);
    const mltFile = path.join(dir, "timeline.mlt");
    await writeFile(mltFile, exported.body);
    const melted = path.join(dir, "melt.mp4");
    await run(
      "melt",
      [
        "-quiet",
        mltFile,
        "-consumer",
        `avformat:${melted}`,
        "vcodec=libx264",
        "preset=ultrafast",
        "crf=10",
        "an=1",
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );

    const [pOurs, pMelt] = await Promise.all([probe(ours, true), probe(melted, true)]);
    expect(pMelt.video).toMatchObject({ width: W, height: H, fps: 25 });
    expect(pMelt.video?.frames).toBe(100);
    expect(pOurs.video?.frames).toBe(100);

    const [fOurs, fMelt] = await Promise.all([allFrames(ours, W, H), allFrames(melted, W, H)]);
    const at = (frames: Frame[], i: number) => meanColour(frames[i] as Frame);
    // Expected level of a clip's channel at timeline frame f: its source time is
    // trim + (f/25 − start) × speed.
    const clips = [
      { channel: 0, start: 0, trim: 0.5, speed: 1 },
      { channel: 1, start: 1, trim: 1, speed: 1 },
      { channel: 2, start: 2, trim: 0.5, speed: 1 },
      { channel: 0, start: 3, trim: 0.5, speed: 2 },
    ];
    // Frames either side of the cuts (24 | 25, 74 | 75), mid-clip, just outside the dissolve
    // (45..54), and through the double-speed clip before its fade.
    // Not frame 0: melt's avformat producer shows a slightly earlier source frame right after its
    // first seek, whatever the file says.
    for (const [frame, clipIndex] of [
      [1, 0],
      [12, 0],
      [24, 0],
      [25, 1],
      [40, 1],
      [44, 1],
      [55, 2],
      [70, 2],
      [74, 2],
      [75, 3],
      [87, 3],
    ] as const) {
      const clip = clips[clipIndex] as (typeof clips)[number];
      const expected = [0, 0, 0];
      expected[clip.channel] = 40 + 60 * (clip.trim + (frame / 25 - clip.start) * clip.speed);
      for (const [who, frames] of [
        ["ours", fOurs],
        ["melt", fMelt],
      ] as const) {
        const got = at(frames, frame);
        expect(colourDistance(got, expected), `${who}, frame ${frame}: ${got} vs ${expected}`).toBeLessThan(
          12,
        );
      }
    }
    // Inside the dissolve both are a mix of the lime and blue sources, and agree with each other.
    for (let frame = 45; frame < 55; frame++) {
      const [o, m] = [at(fOurs, frame), at(fMelt, frame)];
      if (frame >= 48 && frame <= 52) {
        expect(Math.min(o[1], o[2], m[1], m[2]), `frame ${frame}: ours ${o} melt ${m}`).toBeGreaterThan(10);
      }
      expect(colourDistance(o, m), `frame ${frame}: ours ${o} melt ${m}`).toBeLessThan(25);
    }
    // The last clip fades out over its last 10 frames (to the black background) in both.
    for (let frame = 89; frame < 100; frame++) {
      const [o, m] = [at(fOurs, frame), at(fMelt, frame)];
      expect(colourDistance(o, m), `fade, frame ${frame}: ours ${o} melt ${m}`).toBeLessThan(25);
    }
    expect(at(fOurs, 99)[0]).toBeLessThan(30);
    expect(at(fOurs, 94)[0]).toBeGreaterThan(50);
  });
});
