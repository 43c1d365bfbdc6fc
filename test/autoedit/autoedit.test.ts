import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectWellFormed, ofType } from "../assistant/helpers.ts";
import { requestStream } from "../assistant/sse-client.ts";
import { tempDir } from "../fixtures/render/media.ts";
import { speechTrack, talkingHeadVideo, utteranceFile } from "../fixtures/speech.ts";
import { uploadFile } from "../generation/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

// The auto-edit through HTTP on a talking-head recording: three LibriVox utterances with 1.2 s
// of silence around each, under a 320×180 test picture, transcribed by the offline engine.

interface Candidate {
  uploadId: string;
  start: number;
  end: number;
  score: number;
  title: string;
  reasons: string[];
}
interface AutoeditJson {
  id: string;
  status: string;
  stage: string | null;
  progress: number | null;
  transcriptionIds: string[];
  candidates: Candidate[];
  compositions: {
    id: string;
    candidate: number;
    steps: { step: string; version: number | null; summary: string; reasons: string[] }[];
    estimate: { renderSeconds: number };
  }[];
  renders: { id: string; compositionId: string }[];
  skipped: { option: string; reason: string }[];
  error: { code: string; message: string } | null;
}
interface Clip {
  id: string;
  start: number;
  duration: number;
  trim?: number;
  fit?: string;
  asset: { type: string; uploadId?: string; mode?: string; source?: { transcriptionId?: string } };
}
interface CompositionJson {
  audio?: unknown;
  id: string;
  name: string;
  version: number;
  canvas: { width: number; height: number; fps: number };
  tracks: { id: string; name?: string; kind: string; clips: Clip[] }[];
}

let t: TestApp;
let base: string;
let tmp: { dir: string; cleanup: () => Promise<void> };
let video: Buffer;
let owner: { key: string; userId: string };
let uploadId: string;
/** The finished auto-edit of the first test, shared by the later ones. */
let done: AutoeditJson;

const REQUEST = { target: { aspectRatio: "9:16", maxDuration: 12, count: 2 }, captions: true };

async function call(key: string, method: "GET" | "POST" | "DELETE", url: string, payload?: unknown) {
  const res = await t.app.inject({
    method,
    url,
    headers: bearer(key),
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON of many shapes
  return { status: res.statusCode, body: res.json() as any, headers: res.headers };
}

async function waitAutoedit(
  key: string,
  id: string,
  until = (a: AutoeditJson) => a.status !== "queued" && a.status !== "running",
) {
  for (;;) {
    const res = await call(key, "GET", `/api/v1/autoedits/${id}`);
    expect(res.status).toBe(200);
    if (until(res.body)) return res.body as AutoeditJson;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A composition without its ids and server fields: what two runs on the same input must share. */
function shape(c: CompositionJson) {
  return {
    name: c.name,
    canvas: c.canvas,
    tracks: c.tracks.map(({ id: _id, ...track }) => ({
      ...track,
      clips: track.clips.map(({ id: _c, ...clip }) => clip),
    })),
  };
}

beforeAll(async () => {
  tmp = await tempDir("cutroom-autoedit-");
  const audio = await speechTrack(
    ["0880", "0890", "0930"].map(utteranceFile),
    path.join(tmp.dir, "talk.wav"),
    1.2,
    true,
  );
  video = await readFile(await talkingHeadVideo(audio, path.join(tmp.dir, "talk.mp4")));
  t = await startTestApp({ worker: true });
  base = await t.listen();
  // Unlimited quota: polling jobs through a slow transcription would use up a plan's daily calls.
  owner = await t.createAccount({ plan: "admin" });
  uploadId = (await uploadFile(t, owner.key, video, "talk.mp4")).id;
}, 300_000);
afterAll(async () => {
  await t?.close();
  await tmp?.cleanup();
});

describe("POST /api/v1/autoedit", () => {
  it("ranks candidates on sentence boundaries and builds one composition per candidate, one version per step", async () => {
    const created = await call(owner.key, "POST", "/api/v1/autoedit", { uploadIds: [uploadId], ...REQUEST });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.headers.location).toBe(`/api/v1/autoedits/${created.body.id}`);
    expect(created.body).toMatchObject({ status: "queued", candidates: [], compositions: [] });
    done = await waitAutoedit(owner.key, created.body.id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    // Every option was carried out (fillers and loudness by default).
    expect(done.skipped).toEqual([]);

    // Candidates: ranked, at most maxDuration, cut where the transcript's sentences start and end.
    const trn = await call(owner.key, "GET", `/api/v1/transcriptions/${done.transcriptionIds[0]}`);
    const segments = trn.body.segments as { words: { start: number; end: number }[] }[];
    const starts = segments.map((s) => Math.round((s.words[0]?.start ?? -1) * 1000) / 1000);
    const ends = segments.map((s) => Math.round((s.words.at(-1)?.end ?? -1) * 1000) / 1000);
    expect(done.candidates.length).toBeGreaterThanOrEqual(2);
    for (const [i, c] of done.candidates.entries()) {
      expect(c.uploadId).toBe(uploadId);
      expect(c.end - c.start).toBeLessThanOrEqual(12);
      expect(starts).toContain(c.start);
      expect(ends).toContain(c.end);
      expect(c.reasons.length).toBeGreaterThan(2);
      expect(c.title.length).toBeGreaterThan(0);
      if (i > 0) expect(c.score).toBeLessThanOrEqual((done.candidates[i - 1] as Candidate).score);
    }

    expect(done.compositions).toHaveLength(2);
    expect(done.compositions.map((c) => c.candidate)).toEqual([0, 1]);
    for (const made of done.compositions) {
      const candidate = done.candidates[made.candidate] as Candidate;
      expect(made.steps.map((s) => s.step)).toEqual(["cut", "reframe", "captions", "silences", "loudness"]);
      expect(made.estimate.renderSeconds).toBeGreaterThan(0);
      // Each step that changed something is one version, with its summary and author.
      const written = made.steps.filter((s) => s.version !== null);
      expect(written.map((s) => s.version)).toEqual(written.map((_, i) => i + 1));
      const versions = await call(owner.key, "GET", `/api/compositions/${made.id}/versions`);
      expect(versions.status).toBe(200);
      const listed = (
        versions.body.data as { version: number; summary: string; author: { kind: string; runId?: string } }[]
      )
        .slice()
        .reverse();
      expect(listed.map((v) => [v.version, v.summary])).toEqual(written.map((s) => [s.version, s.summary]));
      for (const v of listed) expect(v.author).toEqual({ kind: "autoedit", runId: done.id });

      const c = (await call(owner.key, "GET", `/api/compositions/${made.id}`)).body as CompositionJson;
      expect(c.canvas).toMatchObject({ width: 100, height: 180 });
      // The loudness step sets the target every render of the composition meets.
      expect(c.audio).toEqual({ loudness: { integrated: -14, truePeak: -1 } });
      const picture = c.tracks.find((tr) => tr.name === "Video")?.clips ?? [];
      const captions = c.tracks.find((tr) => tr.name === "Captions")?.clips ?? [];
      expect(picture.length).toBeGreaterThan(0);
      // Reframed: each picture clip carries the window that follows the face (or the centre).
      for (const clip of picture) {
        expect(clip).toMatchObject({ asset: { type: "video", uploadId } });
        expect((clip as { reframe?: { keyframes: unknown[] } }).reframe?.keyframes.length).toBeGreaterThan(0);
      }
      // Captions stay in step with the picture through the silence cut.
      expect(captions.map((x) => [x.start, x.duration, x.trim])).toEqual(
        picture.map((x) => [x.start, x.duration, x.trim]),
      );
      for (const x of captions) {
        expect(x.asset).toMatchObject({
          type: "caption",
          mode: "karaoke",
          source: { transcriptionId: done.transcriptionIds[0] },
        });
      }
      const length = picture.reduce((n, x) => Math.max(n, x.start + x.duration), 0);
      const silences = made.steps.find((s) => s.step === "silences");
      if (silences?.version) {
        // "removed N silences, X s": the timeline is that much shorter than the candidate.
        const removed = Number(/, ([\d.]+) s$/.exec(silences.summary)?.[1]);
        expect(removed).toBeGreaterThan(0.5);
        // The summary gives the seconds to 0.1 s.
        expect(Math.abs(length - (candidate.end - candidate.start - removed))).toBeLessThanOrEqual(0.051);
      } else {
        expect(length).toBeCloseTo(candidate.end - candidate.start, 2);
      }
    }
    // The best candidate has at least two sentences and so a 1.2 s pause inside it.
    expect(done.compositions.some((c) => c.steps.find((s) => s.step === "silences")?.version)).toBe(true);
  }, 600_000);

  it("reverts one step: the silence cut undone, the captions kept", async () => {
    const made = done.compositions.find((c) => c.steps.find((s) => s.step === "silences")?.version);
    const silences = made?.steps.find((s) => s.step === "silences")?.version as number;
    const latest = made?.steps.findLast((s) => s.version)?.version as number;
    const before = (await call(owner.key, "GET", `/api/compositions/${made?.id}/versions/${silences - 1}`))
      .body;
    const res = await t.app.inject({
      method: "POST",
      url: `/api/compositions/${made?.id}/revert`,
      headers: { ...bearer(owner.key), "if-match": `"${latest}"` },
      payload: { version: silences - 1 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json() as CompositionJson;
    expect(after.version).toBe(latest + 1);
    expect(shape(after)).toEqual(shape(before));
    expect(after.tracks.find((tr) => tr.name === "Captions")?.clips).toHaveLength(1);
    expect(after.tracks.find((tr) => tr.name === "Video")?.clips).toHaveLength(1);
  });

  it("the MCP tool and the assistant build the same compositions as the endpoint", async () => {
    const client = new Client({ name: "cutroom-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: bearer(owner.key) },
      }),
    );
    try {
      const result = (await client.callTool({
        name: "auto_edit",
        arguments: { body: { uploadIds: [uploadId], ...REQUEST } },
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
      const viaMcp = await waitAutoedit(owner.key, (result.structuredContent as { id: string }).id);
      expect(viaMcp.status).toBe("succeeded");
      expect(viaMcp.candidates).toEqual(done.candidates);
      expect(viaMcp.compositions.map((c) => c.steps)).toEqual(done.compositions.map((c) => c.steps));
      for (const [i, c] of viaMcp.compositions.entries()) {
        const a = (await call(owner.key, "GET", `/api/compositions/${c.id}`)).body;
        const b = (
          await call(
            owner.key,
            "GET",
            `/api/compositions/${done.compositions[i]?.id}/versions/${done.compositions[i]?.steps.findLast((s) => s.version)?.version}`,
          )
        ).body;
        expect(shape(a)).toEqual(shape(b));
      }
    } finally {
      await client.close();
    }

    // The offline assistant understands the request in plain words.
    const reference = await call(owner.key, "POST", "/api/v1/autoedit", {
      uploadIds: [uploadId],
      target: { aspectRatio: "9:16", maxDuration: 12, count: 1 },
      captions: true,
    });
    const viaApi = await waitAutoedit(owner.key, reference.body.id);
    expect(viaApi.status).toBe("succeeded");
    const session = await call(owner.key, "POST", "/api/assistant/session", {});
    expect(session.status).toBe(201);
    const answer = await requestStream(`${base}/api/assistant/orchestrator`, {
      method: "POST",
      headers: bearer(owner.key),
      body: { sessionId: session.body.id, message: "make a 12 s vertical clip with captions" },
    });
    expect(answer.status).toBe(200);
    expectWellFormed(answer.events);
    const results = ofType(answer.events, "tool_result").map((e) => e.data);
    expect(results.map((r) => [r.name, r.ok])).toEqual([["auto_edit", true]]);
    const made = (results[0]?.output as { compositions: { id: string }[] } | undefined)?.compositions ?? [];
    expect(made).toHaveLength(1);
    const fromAssistant = (await call(owner.key, "GET", `/api/compositions/${made[0]?.id}`)).body;
    const fromApi = (await call(owner.key, "GET", `/api/compositions/${viaApi.compositions[0]?.id}`)).body;
    expect(shape(fromAssistant)).toEqual(shape(fromApi));
  }, 600_000);

  it("refuses a read-only key and another account's upload", async () => {
    const reader = await t.createAccount({ scopes: ["read"] });
    expect((await call(reader.key, "POST", "/api/v1/autoedit", { uploadIds: [uploadId] })).status).toBe(403);
    const other = await t.createAccount();
    const foreign = await call(other.key, "POST", "/api/v1/autoedit", { uploadIds: [uploadId] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toContain(uploadId);
    expect((await call(other.key, "GET", `/api/v1/autoedits/${done.id}`)).status).toBe(404);
    expect((await call(other.key, "DELETE", `/api/v1/autoedits/${done.id}`)).status).toBe(404);
    const list = await call(other.key, "GET", "/api/v1/autoedits");
    expect(list.body.data).toEqual([]);
    // Bad input names the item.
    const audioOnly = await call(owner.key, "POST", "/api/v1/autoedit", { uploadIds: [uploadId, uploadId] });
    expect(audioOnly.status).toBe(400);
    expect(audioOnly.body.error.details).toEqual([
      { path: "/uploadIds/1", message: expect.stringContaining("second time") },
    ]);
  });

  it("cancels mid-job: nothing is left, the transcription it started is cancelled too", async () => {
    const user = await t.createAccount({ plan: "admin" });
    const upload = await uploadFile(t, user.key, video, "talk.mp4");
    const created = await call(user.key, "POST", "/api/v1/autoedit", { uploadIds: [upload.id], ...REQUEST });
    expect(created.status).toBe(202);
    await waitAutoedit(
      user.key,
      created.body.id,
      (a) => a.status === "running" && a.stage === "transcribing",
    );
    const cancelled = await call(user.key, "DELETE", `/api/v1/autoedits/${created.body.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    // The worker stops: the transcription it was waiting for is cancelled, no composition stays.
    for (let i = 0; ; i++) {
      const trn = await call(user.key, "GET", `/api/v1/transcriptions?uploadId=${upload.id}`);
      if (trn.body.data[0]?.status === "cancelled") break;
      expect(i).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await call(user.key, "GET", "/api/compositions")).body.data).toEqual([]);
    const again = await call(user.key, "GET", `/api/v1/autoedits/${created.body.id}`);
    expect(again.body).toMatchObject({ status: "cancelled", compositions: [] });
    // Cancelling again changes nothing.
    expect((await call(user.key, "DELETE", `/api/v1/autoedits/${created.body.id}`)).body.status).toBe(
      "cancelled",
    );
  }, 300_000);
});
