import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { post, uploadFile } from "../generation/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type TranscriptionJson, talkingHead, UTTERANCES, waitTranscribed } from "./helpers.ts";

let t: TestApp;
let owner: { userId: string; key: string };
let tmp: { dir: string; cleanup: () => Promise<void> };
let video: { id: string };
let done: TranscriptionJson;

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  owner = await t.createAccount();
  tmp = await tempDir("cutroom-trn-");
  const file = await talkingHead(tmp.dir, ["0870", "0880"], 1.5);
  video = await uploadFile(t, owner.key, await readFile(file), "talk.mp4");
  const res = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: video.id });
  expect(res.statusCode, res.body).toBe(202);
  done = await waitTranscribed(t, owner.key, res.json().id);
}, 120_000);
afterAll(async () => {
  await t.close();
  await tmp.cleanup();
});

const words = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);

describe("offline transcription (PocketSphinx)", () => {
  it("transcribes a talking-head video with word times, marked as offline draft quality", () => {
    expect(done).toMatchObject({
      status: "succeeded",
      uploadId: video.id,
      engine: { provider: "offline", model: "pocketsphinx-en-us", offline: true },
      quality: "draft",
      language: "en",
      progress: 1,
      error: null,
    });
    expect(done.duration).toBeGreaterThan(12);
    // Two utterances separated by silence: two segments, each inside its utterance's span.
    expect(done.segments.length).toBeGreaterThanOrEqual(2);
    const all = done.segments.flatMap((s) => s.words);
    const heard = new Set(all.map((w) => w.text));
    const expected = words(`${UTTERANCES["0870"]} ${UTTERANCES["0880"]}`);
    const hits = expected.filter((w) => heard.has(w)).length;
    expect(hits / expected.length).toBeGreaterThan(0.5);
    let last = 0;
    for (const s of done.segments) {
      expect(s.text).toBe(s.words.map((w) => w.text).join(" "));
      for (const w of s.words) {
        expect(w.start).toBeGreaterThanOrEqual(last - 1e-9);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
        expect(w.confidence).toBeGreaterThanOrEqual(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
        last = w.end;
      }
    }
    // The first word comes after the leading 1.5 s of silence; the last before the end.
    expect(all[0]?.start).toBeGreaterThan(1.2);
    expect(last).toBeLessThanOrEqual(done.duration as number);
    // "he was not" opens the second utterance, after the first one and its gap.
    const he = done.segments.find((s) => s.text.startsWith("he "));
    expect(he?.start).toBeGreaterThan(9.5);
  });

  it("exports SRT, WebVTT and plain text", async () => {
    const get = (format: string) =>
      t.app.inject({
        url: `/api/v1/transcriptions/${done.id}/export?format=${format}`,
        headers: bearer(owner.key),
      });
    const srt = await get("srt");
    expect(srt.statusCode).toBe(200);
    expect(srt.headers["content-type"]).toMatch(/^application\/x-subrip/);
    expect(srt.body).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\r?\n/);
    const vtt = await get("vtt");
    expect(vtt.headers["content-type"]).toMatch(/^text\/vtt/);
    expect(vtt.body.startsWith("WEBVTT")).toBe(true);
    // Every cue at most 42 characters.
    const cueLines = vtt.body
      .split(/\r?\n/)
      .filter((l) => l && !l.includes("-->") && !/^\d+$/.test(l) && l !== "WEBVTT");
    for (const line of cueLines) expect(line.length).toBeLessThanOrEqual(42);
    const txt = await get("txt");
    expect(txt.body).toBe(`${done.segments.map((s) => s.text).join("\n")}\n`);
    expect((await get("docx")).statusCode).toBe(400);
  });

  it("gives a transcript that chapters/detect accepts unchanged", async () => {
    expect(done.transcript).toEqual(done.segments.map(({ start, end, text }) => ({ start, end, text })));
    const res = await post(t, owner.key, "/api/v1/chapters/detect", {
      transcript: done.transcript,
      duration: done.duration,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().chapters.length).toBeGreaterThanOrEqual(1);
  });

  it("refuses another language, an upload without audio and unknown uploads, naming the field", async () => {
    const fr = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: video.id, language: "fr" });
    expect(fr.statusCode).toBe(400);
    expect(fr.json().error.details[0].path).toBe("/language");
    const png = path.join(tmp.dir, "still.png");
    await ffmpeg(["-y", "-f", "lavfi", "-i", "color=red:size=32x32", "-frames:v", "1", png]);
    const image = await uploadFile(t, owner.key, await readFile(png), "still.png");
    const silent = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: image.id });
    expect(silent.statusCode).toBe(400);
    expect(silent.json().error.details[0].path).toBe("/uploadId");
    const missing = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: "upl_nope" });
    expect(missing.statusCode).toBe(404);
    const other = await t.createAccount();
    expect((await post(t, other.key, "/api/v1/transcriptions", { uploadId: video.id })).statusCode).toBe(404);
    expect(
      (await t.app.inject({ url: `/api/v1/transcriptions/${done.id}`, headers: bearer(other.key) }))
        .statusCode,
    ).toBe(404);
  });

  it("lists by upload, cancels idempotently and refuses to export an unfinished one", async () => {
    const list = await t.app.inject({
      url: `/api/v1/transcriptions?uploadId=${video.id}`,
      headers: bearer(owner.key),
    });
    expect(list.json().data.map((d: TranscriptionJson) => d.id)).toContain(done.id);
    const created = await post(t, owner.key, "/api/v1/transcriptions", { uploadId: video.id });
    const id = created.json().id as string;
    const del = () =>
      t.app.inject({ method: "DELETE", url: `/api/v1/transcriptions/${id}`, headers: bearer(owner.key) });
    const first = await del();
    expect(first.statusCode).toBe(200);
    // Cancelled at once unless the worker already finished it.
    expect(["cancelled", "succeeded"]).toContain(first.json().status);
    expect((await del()).json().status).toBe(first.json().status);
    if (first.json().status === "cancelled") {
      const exp = await t.app.inject({
        url: `/api/v1/transcriptions/${id}/export?format=srt`,
        headers: bearer(owner.key),
      });
      expect(exp.statusCode).toBe(409);
    }
    // A finished one stays finished.
    const again = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/transcriptions/${done.id}`,
      headers: bearer(owner.key),
    });
    expect(again.json().status).toBe("succeeded");
  });
});
