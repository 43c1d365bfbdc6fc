// The recut tools through the assistant's HTTP run endpoint with the offline command model:
// "cut clip 1 at scene changes", "remove silences longer than 1 second" (one patch each, the
// patches replaying to what GET returns), and captions from speech in plain words.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { startTranscriptionServer } from "../helpers/openai-transcription-server.ts";
import { type AssistantClient, assistantClient, chatTurn, ofType } from "./helpers.ts";

let t: TestApp;
let c: AssistantClient;
let server: Awaited<ReturnType<typeof startTranscriptionServer>>;
let tmp: { dir: string; cleanup: () => Promise<void> };

/** talk.mp4: red then blue (a cut at 2 s); a tone over 0–1 s and 2.6–4 s, silence between. */
async function talk(file: string): Promise<string> {
  await ffmpeg([
    "-y",
    ...["-f", "lavfi", "-i", "color=c=red:s=160x90:r=25:d=2"],
    ...["-f", "lavfi", "-i", "color=c=blue:s=160x90:r=25:d=2"],
    ...[
      "-f",
      "lavfi",
      "-i",
      "aevalsrc=exprs='0.3*sin(2*PI*440*t)*(between(t,0,1)+between(t,2.6,4))':s=48000:d=4",
    ],
    ...["-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2:a"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", file],
  ]);
  return file;
}

/** outro.mp4: 2 s of test picture with a steady tone. */
async function outro(file: string): Promise<string> {
  await ffmpeg([
    "-y",
    ...[
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=160x90:r=25:d=2",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=330:duration=2",
    ],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", file],
  ]);
  return file;
}

beforeAll(async () => {
  server = await startTranscriptionServer();
  t = await startTestApp({
    worker: true,
    env: { TRANSCRIPTION_ENGINE: "openai-compatible:whisper-1", TRANSCRIPTION_BASE_URL: server.url },
  });
  const base = await t.listen();
  c = await assistantClient(t, base);
  tmp = await tempDir("cutroom-recut-tools-");
  const form = new FormData();
  for (const file of [
    await talk(path.join(tmp.dir, "talk.mp4")),
    await outro(path.join(tmp.dir, "outro.mp4")),
  ])
    form.append("file", new Blob([await readFile(file)]), path.basename(file));
  const res = await fetch(`${base}/api/v1/uploads`, { method: "POST", headers: bearer(c.key), body: form });
  expect(res.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t.close();
  await server.close();
  await tmp.cleanup();
});

interface ClipJson {
  id: string;
  start: number;
  duration: number;
  trim?: number;
  asset: { type: string; uploadId?: string; mode?: string; source?: { transcriptionId?: string } };
}

/** A chat turn ({@link chatTurn}) whose tool calls all succeed. */
async function turn(s: { id: string; compositionId: string }, message: string) {
  const { events, after } = await chatTurn(c, s, message);
  const results = ofType(events, "tool_result").map((e) => e.data);
  expect(
    results.every((r) => r.ok),
    JSON.stringify(results),
  ).toBe(true);
  return { events, tracks: after.tracks as { clips: ClipJson[] }[] };
}

describe("recut tools by chat with the offline command model", () => {
  it("cuts a clip at its scene change, then removes the long silence and ripples the outro left", async () => {
    const s = await c.session();
    let r = await turn(s, "add talk, add outro");
    expect(r.tracks[0]?.clips.map((x) => [x.start, x.duration])).toEqual([
      [0, expect.closeTo(4, 1)],
      [expect.closeTo(4, 1), expect.closeTo(2, 1)],
    ]);
    const outroLength = r.tracks[0]?.clips[1]?.duration as number;
    const talkLength = r.tracks[0]?.clips[0]?.duration as number;

    r = await turn(s, "cut clip 1 at scene changes");
    expect(ofType(r.events, "patch")).toHaveLength(1);
    expect(ofType(r.events, "tool_progress").map((e) => e.data.message)).toEqual(["analysing talk.mp4"]);
    // Red → blue at 2 s: two clips that play 0–2 s and 2–4 s of talk.mp4, back to back.
    let clips = r.tracks[0]?.clips ?? [];
    expect(clips).toHaveLength(3);
    const [red, blue] = clips as [ClipJson, ClipJson];
    expect(red.start).toBe(0);
    expect(red.duration).toBeCloseTo(2, 1);
    expect(blue.start).toBeCloseTo(red.duration, 3);
    expect(blue.trim).toBeCloseTo(red.duration, 3);
    expect(red.duration + blue.duration).toBeCloseTo(talkLength, 3);
    expect(blue.asset.uploadId).toBe(red.asset.uploadId);

    r = await turn(s, "remove silences longer than 1 second");
    expect(ofType(r.events, "patch")).toHaveLength(1);
    // The silence 1–2.6 s less 0.15 s at each end goes: 1.15–2 s of the red clip and 2–2.45 s
    // of the blue one; the outro moves left by as much and keeps its length.
    clips = r.tracks[0]?.clips ?? [];
    expect(clips).toHaveLength(3);
    const [red2, blue2, outro2] = clips as [ClipJson, ClipJson, ClipJson];
    expect(red2.id).toBe(red.id);
    expect(red2.duration).toBeCloseTo(1.15, 1);
    expect(blue2.start).toBeCloseTo(red2.duration, 3);
    expect(blue2.trim).toBeCloseTo(2.45, 1);
    expect(blue2.trim as number).toBeGreaterThan(2);
    expect(blue2.duration).toBeCloseTo(talkLength - (blue2.trim as number), 3);
    expect(outro2.start).toBeCloseTo(blue2.start + blue2.duration, 3);
    expect(outro2.duration).toBe(outroLength);
    const result = ofType(r.events, "tool_result")[0]?.data as { output?: { removedSeconds?: number } };
    expect(result.output?.removedSeconds).toBeCloseTo(1.3, 1);
  });

  it("captions the speech in karaoke mode from the transcription, in step with the clip, also after cutting its silence", async () => {
    const s = await c.session();
    await turn(s, "add talk at 1s");
    const r = await turn(s, "add karaoke captions from the speech of talk");
    const talkClip = r.tracks[0]?.clips[0] as ClipJson;
    const caption = r.tracks[1]?.clips[0] as ClipJson;
    expect(caption.asset).toMatchObject({ type: "caption", mode: "karaoke" });
    expect(caption.asset.source?.transcriptionId).toMatch(/^trn_/);
    expect([caption.start, caption.duration]).toEqual([talkClip.start, talkClip.duration]);
    expect(server.requests).toHaveLength(1);
    // Cutting at the scene change and removing the silence cut the captions the same way, so
    // they stay in step piece by piece.
    const place = (x: ClipJson) => [x.start, x.duration, x.trim ?? 0];
    const split = await turn(s, "cut clip 1 at scene changes");
    expect(split.tracks[1]?.clips.map(place)).toEqual(split.tracks[0]?.clips.map(place));
    expect(split.tracks[1]?.clips).toHaveLength(2);
    const cut = await turn(s, "remove silences longer than 1 second");
    const media = cut.tracks[0]?.clips ?? [];
    const captions = cut.tracks[1]?.clips ?? [];
    expect(media).toHaveLength(2);
    expect(captions.map(place)).toEqual(media.map(place));
    expect(
      captions.every((x) => x.asset.source?.transcriptionId === caption.asset.source?.transcriptionId),
    ).toBe(true);
  });

  it("names the clip to cut when several could be meant", async () => {
    const s = await c.session();
    await turn(s, "add talk, add outro");
    const answer = await c.send(s.id, "cut at scene changes");
    const [result] = ofType(answer.events, "tool_result").map((e) => e.data);
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).toContain("name the clip to cut");
  });
});
