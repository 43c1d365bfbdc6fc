import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { uploadFile } from "../generation/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let owner: { userId: string; key: string };
let tmp: { dir: string; cleanup: () => Promise<void> };

/** Shots of 25 fps footage: [source, seconds]; cuts fall where one ends. */
const SHOTS: [string, number][] = [
  ["testsrc2=s=320x180:r=25", 2.2],
  ["smptebars=s=320x180:r=25", 1.6],
  ["mandelbrot=s=320x180:r=25", 2.4],
  ["rgbtestsrc=s=320x180:r=25", 1.8],
];
/** Audio: [tone Hz or 0 for silence, seconds]; amplitude 1/8 (−18.06 dBFS). */
const AUDIO: [number, number][] = [
  [440, 1.3],
  [0, 0.9],
  [660, 2.35],
  [0, 1.25],
  [550, 2.2],
];

/** Writes the footage with its known cuts and silences. */
async function footage(dir: string): Promise<string> {
  const out = path.join(dir, "cuts.mp4");
  const inputs = [
    ...SHOTS.flatMap(([src, d]) => ["-f", "lavfi", "-i", `${src},trim=duration=${d}`]),
    ...AUDIO.flatMap(([hz, d]) => [
      "-f",
      "lavfi",
      "-i",
      hz ? `sine=f=${hz}:r=48000:d=${d}` : `anullsrc=r=48000:cl=mono:d=${d}`,
    ]),
  ];
  const v = SHOTS.map((_, i) => `[${i}:v]`).join("");
  const a = AUDIO.map((_, i) => `[${SHOTS.length + i}:a]`).join("");
  await ffmpeg([
    "-y",
    ...inputs,
    "-filter_complex",
    `${v}concat=n=${SHOTS.length}:v=1:a=0[v];${a}concat=n=${AUDIO.length}:v=0:a=1[a]`,
    ...["-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-c:a", "pcm_s16le", out.replace(".mp4", ".mov")],
  ]);
  return out.replace(".mp4", ".mov");
}

const cumulative = (parts: [unknown, number][]) =>
  parts.map((_, i) => parts.slice(0, i + 1).reduce((s, [, d]) => s + d, 0));

let uploadId: string;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount();
  tmp = await tempDir("cutroom-analysis-");
  uploadId = (await uploadFile(t, owner.key, await readFile(await footage(tmp.dir)), "cuts.mov")).id;
}, 60_000);
afterAll(async () => {
  await t.close();
  await tmp.cleanup();
});

const analysis = (query = "") =>
  t.app.inject({ url: `/api/v1/uploads/${uploadId}/analysis${query}`, headers: bearer(owner.key) });

describe("GET /api/v1/uploads/:id/analysis", () => {
  it("finds every cut of generated footage to the frame, and nothing else", async () => {
    const res = await analysis();
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const truth = cumulative(SHOTS).slice(0, -1);
    expect(body.scenes.threshold).toBe(0.3);
    expect(body.scenes.cuts).toHaveLength(truth.length);
    body.scenes.cuts.forEach((c: { time: number; score: number }, i: number) => {
      expect(Math.abs(c.time - (truth[i] as number))).toBeLessThanOrEqual(1 / 25 + 1e-6);
      expect(c.score).toBeGreaterThan(0.3);
    });
  });

  it("finds the silences within 50 ms, and honours the threshold and minimum length", async () => {
    const body = (await analysis()).json();
    const ends = cumulative(AUDIO);
    const truth = AUDIO.flatMap(([hz], i) =>
      hz === 0 ? [{ start: ends[i - 1] as number, end: ends[i] as number }] : [],
    );
    expect(body.silences).toMatchObject({ thresholdDb: -35, minDuration: 0.5 });
    expect(body.silences.ranges).toHaveLength(truth.length);
    body.silences.ranges.forEach((r: { start: number; end: number }, i: number) => {
      expect(Math.abs(r.start - (truth[i]?.start as number))).toBeLessThanOrEqual(0.05);
      expect(Math.abs(r.end - (truth[i]?.end as number))).toBeLessThanOrEqual(0.05);
    });
    // Only silences of at least a second: the 0.9 s one is left out.
    const long = (await analysis("?silenceMinDuration=1")).json();
    expect(long.silences.ranges).toHaveLength(1);
    // A threshold above the tones' level: everything is silent.
    const loud = (await analysis("?silenceThreshold=-10")).json();
    expect(loud.silences.ranges).toEqual([{ start: 0, end: expect.closeTo(body.duration, 1) }]);
  });

  it("measures loudness and waveform peaks", async () => {
    const body = (await analysis()).json();
    // Sines at amplitude 1/8: true peak −18.1 dBTP.
    expect(body.loudness.truePeak).toBeCloseTo(-18.1, 0);
    expect(body.loudness.integrated).toBeLessThan(-18);
    expect(body.loudness.integrated).toBeGreaterThan(-30);
    expect(body.loudness.shortTerm).toHaveLength(Math.floor(body.duration));
    expect(body.peaks.rate).toBe(20);
    // One value per 50 ms bucket of the audio (its last bucket may fall short of the container).
    expect(Math.abs(body.peaks.values.length - body.duration * 20)).toBeLessThanOrEqual(1);
    // During a tone ≈ 0.125, inside a silence 0.
    expect(body.peaks.values[10]).toBeCloseTo(0.125, 2);
    expect(body.peaks.values[Math.round(1.75 * 20)]).toBe(0);
  });

  it("answers from the cache the second time, and refuses bad parameters and non-media uploads", async () => {
    const [a, b] = [await analysis(), await analysis()];
    expect(b.json()).toEqual(a.json());
    const bad = await analysis("?sceneThreshold=2");
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().error.details)).toContain("sceneThreshold");
    expect(
      (await t.app.inject({ url: "/api/v1/uploads/upl_nope/analysis", headers: bearer(owner.key) }))
        .statusCode,
    ).toBe(404);
    const srt = await uploadFile(
      t,
      owner.key,
      Buffer.from("1\n00:00:00,000 --> 00:00:01,000\nhi\n"),
      "a.srt",
    );
    const res = await t.app.inject({ url: `/api/v1/uploads/${srt.id}/analysis`, headers: bearer(owner.key) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toBe("/id");
  });
});
