import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/render/media.ts";
import { uploadFile } from "../generation/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { startTranscriptionServer } from "../helpers/openai-transcription-server.ts";
import { BURSTS, toneBursts } from "../transcription/helpers.ts";
import { type AssistantClient, assistantClient, expectWellFormed, ofType } from "./helpers.ts";
import { scriptedModel, textStep, toolCallStep } from "./scripted-model.ts";

const scripted = scriptedModel();
let t: TestApp;
let c: AssistantClient;
let server: Awaited<ReturnType<typeof startTranscriptionServer>>;
let tmp: { dir: string; cleanup: () => Promise<void> };
/** The upload as the user names it. */
const audioName = "interview";

beforeAll(async () => {
  server = await startTranscriptionServer();
  t = await startTestApp({
    worker: true,
    env: { TRANSCRIPTION_ENGINE: "openai-compatible:whisper-1", TRANSCRIPTION_BASE_URL: server.url },
    assistant: {
      languageModel: scripted.model,
      options: { heartbeatMs: 100, staleMs: 10_000, sweepMs: 200, pollMs: 200, pingMs: 100 },
    },
  });
  c = await assistantClient(t, await t.listen());
  tmp = await tempDir("cutroom-speech-tools-");
  const file = await toneBursts(path.join(tmp.dir, "interview.wav"));
  await uploadFile(t, c.key, await readFile(file), "interview.wav");
}, 60_000);
afterAll(async () => {
  await t.close();
  await server.close();
  await tmp.cleanup();
});

describe("assistant speech tools", () => {
  it("captions the speech of an upload and makes chapter markers, transcribing it once", async () => {
    const s = await c.session({});
    scripted.script([
      async () => toolCallStep("call_1", "add_captions_from_speech", { upload: audioName }),
      async () => toolCallStep("call_2", "make_chapters", { upload: audioName }),
      async () => textStep("Captioned and chaptered."),
    ]);
    const { events } = await c.send(s.id, "caption the interview and make chapters");
    expectWellFormed(events);
    const results = ofType(events, "tool_result").map((e) => e.data);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(ofType(events, "tool_progress").length).toBeGreaterThan(0);
    const comp = (await c.composition(s.compositionId)) as unknown as {
      tracks: {
        name?: string;
        clips: {
          start: number;
          duration: number;
          asset: { type: string; source: { transcriptionId: string } };
        }[];
      }[];
      markers?: { time: number; label: string }[];
    };
    const caption = comp.tracks.flatMap((tr) => tr.clips).find((cl) => cl.asset.type === "caption");
    // The caption clip takes its cues from the transcription (the composition names it) and
    // lasts until the last recognised word ends.
    const transcriptionId = caption?.asset.source.transcriptionId ?? "";
    expect(transcriptionId).toMatch(/^trn_/);
    const trn = await t.app.inject({
      url: `/api/v1/transcriptions/${transcriptionId}`,
      headers: bearer(c.key),
    });
    const words = (
      trn.json() as { segments: { words: { start: number; end: number; text: string }[] }[] }
    ).segments.flatMap((seg) => seg.words);
    expect(words.map((w) => w.text).join(" ")).toBe("word1 word2 word3 word4");
    expect(words[0]?.start).toBeCloseTo((BURSTS[0] as [number, number])[0], 1);
    expect(caption?.start).toBe(0);
    expect(caption?.duration).toBeCloseTo(words.at(-1)?.end ?? 0, 3);
    expect(comp.markers?.length).toBeGreaterThanOrEqual(1);
    expect(comp.markers?.[0]?.time).toBeCloseTo(0, 0);
    // The second tool reused the first one's transcript: one request to the engine.
    expect(server.requests).toHaveLength(1);
  });
});
