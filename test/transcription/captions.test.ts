// Caption clips that take their cues from a transcription: validated at save and at preflight
// (naming the field), rendered, and in karaoke mode lit word by word at the spoken words' times.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frameAt, tempDir } from "../fixtures/render/media.ts";
import type { TestApp } from "../helpers/app.ts";
import type { FalStandIn } from "../helpers/fal-stand-in.ts";
import { client, download, onServer } from "../renders/helpers.ts";
import { BURSTS, startFalTranscriptionApp, toneBursts, waitTranscribed } from "./helpers.ts";

let t: TestApp;
let fal: FalStandIn;
let stack: Awaited<ReturnType<typeof startFalTranscriptionApp>>;
let base = "";
let api: ReturnType<typeof client>;
let other: ReturnType<typeof client>;
let tmp: { dir: string; cleanup: () => Promise<void> };
let audioId = "";
let transcriptionId = "";
let key = "";

const WIDTH = 320;
const HEIGHT = 180;

/** A composition with one karaoke caption clip reading `source`. */
const captioned = (source: Record<string, unknown>) => ({
  name: "captions from speech",
  canvas: { width: WIDTH, height: HEIGHT, fps: 25, background: "#000000", duration: 5 },
  tracks: [
    {
      kind: "video",
      clips: [
        {
          start: 0,
          duration: 5,
          asset: {
            type: "caption",
            mode: "karaoke",
            style: { family: "DejaVu Sans", size: 28, color: "#ffffff", highlightColor: "#ffff00" },
            source,
          },
        },
      ],
    },
  ],
});

beforeAll(async () => {
  stack = await startFalTranscriptionApp();
  ({ t, fal } = stack);
  base = await t.listen();
  const owner = await t.createAccount();
  api = client(base, owner.key);
  other = client(base, (await t.createAccount()).key);
  tmp = await tempDir("cutroom-trn-captions-");
  const [audio] = await api.upload([await toneBursts(path.join(tmp.dir, "speech.wav"))]);
  audioId = audio?.id as string;
  const created = await api.json("POST", "/api/v1/transcriptions", { uploadId: audioId });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  transcriptionId = created.body.id;
  expect((await waitTranscribed(t, owner.key, transcriptionId)).status).toBe("succeeded");
  key = owner.key;
}, 60_000);

afterAll(async () => {
  await stack.close();
  await tmp.cleanup();
});

describe("caption clips from a transcription", () => {
  it("refuses an unknown, another account's or an unfinished transcription, naming the field", async () => {
    const field = "/tracks/0/clips/0/asset/source/transcriptionId";
    const unknown = await api.json("POST", "/api/compositions", captioned({ transcriptionId: "trn_nope" }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      { path: field, message: "transcription trn_nope was not found" },
    ]);
    const foreign = await other.json("POST", "/api/compositions", captioned({ transcriptionId }));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toEqual([
      { path: field, message: `transcription ${transcriptionId} was not found` },
    ]);
    // An inline composition at render start and at preflight: the same check, under /composition.
    const inline = await other.json("POST", "/api/render/check", {
      composition: captioned({ transcriptionId }),
    });
    expect(inline.status).toBe(400);
    expect(inline.body.error.details).toEqual([
      { path: `/composition${field}`, message: `transcription ${transcriptionId} was not found` },
    ]);
    // One still running at fal.
    fal.behaviourFor = () => "never_finishes";
    const running = await api.json("POST", "/api/v1/transcriptions", { uploadId: audioId });
    fal.behaviourFor = () => "normal";
    const pending = await api.json(
      "POST",
      "/api/compositions",
      captioned({ transcriptionId: running.body.id }),
    );
    expect(pending.status).toBe(400);
    expect(pending.body.error.details).toEqual([
      {
        path: field,
        message: expect.stringMatching(
          new RegExp(
            `^transcription ${running.body.id} is (queued|running); captions need it to have succeeded`,
          ),
        ),
      },
    ]);
    expect((await api.json("DELETE", `/api/v1/transcriptions/${running.body.id}`)).status).toBe(200);
  });

  it("renders karaoke captions lit word by word at the spoken words' times", async () => {
    const comp = await api.createComposition(captioned({ transcriptionId }));
    const check = await api.json("GET", `/api/compositions/${comp.id}/check`);
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    expect(check.body.ok, JSON.stringify(check.body.problems)).toBe(true);

    /** Mean x of the highlighted (yellow) pixels of the frame at `time`; null when none. */
    const litX = async (time: number): Promise<number | null> => {
      const started = await api.startRender({
        compositionId: comp.id,
        output: { format: "png", frameAt: time },
      });
      const [end] = (await api.pollUntilTerminal(started.id)).slice(-1);
      expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
      const file = path.join(tmp.dir, `frame-${time}.png`);
      await download(onServer(base, end?.output?.url as string), file);
      const frame = await frameAt(file, 0, WIDTH, HEIGHT);
      let sum = 0;
      let n = 0;
      for (let y = 0; y < HEIGHT; y++)
        for (let x = 0; x < WIDTH; x++) {
          const [r, g, b] = frame.pixel(x, y);
          if (r > 180 && g > 180 && b < 90) {
            sum += x;
            n += 1;
          }
        }
      return n > 20 ? sum / n : null;
    };
    // The first cue is "word1 word2 word3." (the stand-in hears the tone bursts as words):
    // word1 0.5–1.1 s, word2 1.6–2.0 s, word3 2.9–3.7 s. Each word is lit from its spoken
    // start until the next word starts, so at 2.6 s (after word2, before word3) word2 still is;
    // spreading the cue over its words by length would have lit word3 from 2.5 s.
    const [w1, w2, w3] = BURSTS as [[number, number], [number, number], [number, number]];
    expect(await litX(0.2)).toBeNull();
    const first = await litX((w1[0] + w1[1]) / 2);
    const pause = await litX(2.6);
    const third = await litX((w3[0] + w3[1]) / 2);
    expect(first).not.toBeNull();
    expect(pause).not.toBeNull();
    expect(third).not.toBeNull();
    expect(w2[1]).toBeLessThan(2.6);
    expect(first as number).toBeLessThan(pause as number);
    expect(pause as number).toBeLessThan(third as number);
  }, 120_000);

  it("fails a render whose transcription has gone, naming the clip and the field", async () => {
    // Saved while it existed, then the upload (and with it its transcription) deleted.
    const [audio] = await api.upload([await toneBursts(path.join(tmp.dir, "gone.wav"))]);
    const created = await api.json("POST", "/api/v1/transcriptions", { uploadId: audio?.id });
    expect((await waitTranscribed(t, key, created.body.id)).status).toBe("succeeded");
    const comp = await api.createComposition(captioned({ transcriptionId: created.body.id }));
    expect((await api.json("DELETE", `/api/v1/uploads/${audio?.id}`)).status).toBe(204);
    const check = await api.json("GET", `/api/compositions/${comp.id}/check`);
    expect(check.body.ok).toBe(false);
    expect(check.body.problems).toEqual([
      {
        code: "ASSET_NOT_FOUND",
        message: expect.stringContaining(
          `asset.source.transcriptionId: transcription ${created.body.id} no longer exists`,
        ),
        retryable: false,
        clipId: (comp.tracks[0] as { clips: { id: string }[] }).clips[0]?.id,
      },
    ]);
  });
});
