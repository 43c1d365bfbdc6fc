import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import {
  type AssistantEvent,
  type CompositionInput,
  type CutroomClient,
  CutroomError,
  createCutroomClient,
  type Render,
  retryAfterMs,
} from "@cutroom/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaFixtures, makeMediaFixtures, probe, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { videoThenStill } from "../helpers/compositions.ts";

// The README's journey through the published client, against a listening server with its
// worker. No `as` anywhere: the generated types must carry every call and result.
let t: TestApp;
let base: string;
let key: string;
let media: MediaFixtures;
let dir: { dir: string; cleanup(): Promise<void> };
/** Assistant streams cut after their first event, to exercise the resume. */
let dropped = 0;
/** Resumes the client made (GET /api/assistant/runs/{runId}/events). */
const resumes: (string | null)[] = [];

/** A fetch that drops the first orchestrator stream after its first event, like a lost connection. */
const flakyFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  const url = new URL(request.url);
  if (url.pathname.endsWith("/events")) resumes.push(request.headers.get("last-event-id"));
  if (!url.pathname.endsWith("/api/assistant/orchestrator") || dropped > 0 || !response.body) return response;
  dropped++;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const cut = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += decoder.decode(value, { stream: true });
      const end = seen.indexOf("\n\n");
      if (end < 0) return controller.enqueue(value);
      controller.enqueue(new TextEncoder().encode(seen.slice(0, end + 2)));
      await reader.cancel();
      controller.error(new TypeError("terminated: other side closed"));
    },
  });
  return new Response(cut, { status: response.status, headers: response.headers });
};

let client: CutroomClient;

beforeAll(async () => {
  dir = await tempDir();
  media = await makeMediaFixtures(dir.dir);
  t = await startTestApp({ worker: true, assistant: { options: { renderFollowMs: 300, renderPollMs: 50 } } });
  base = await t.listen();
  ({ key } = await t.createAccount());
  client = createCutroomClient({ baseUrl: base, apiKey: key, fetch: flakyFetch });
}, 300_000);
afterAll(async () => {
  await t?.close();
  await dir?.cleanup();
});

describe("the TypeScript client against a live server", () => {
  it("runs the README journey: project, uploads, generation, composition, patch, render, download", async () => {
    const project = await client.POST("/api/v1/projects", { body: { name: "Client journey" } });
    expect(project.response.status).toBe(201);
    if (!project.data) throw new Error("no project");
    const projectId = project.data.id;

    const uploads = await client.uploadFiles({
      projectId,
      files: [
        media.video,
        { name: "still.png", stream: createReadStream(media.still) },
        { name: "captions.srt", blob: new Blob([await readFile(media.srt)]) },
      ],
    });
    expect(uploads.map((u) => [u.name, u.type, u.projectId])).toEqual([
      ["video.mp4", "video", projectId],
      ["still.png", "image", projectId],
      ["captions.srt", "subtitle", projectId],
    ]);
    const [video, still] = uploads;
    if (!video || !still) throw new Error("uploads missing");
    expect(video.media?.duration).toBeCloseTo(3, 0);

    const generated = await client.POST("/api/v1/generate/image", {
      body: { prompt: "A lighthouse at dusk", imageSize: "landscape_16_9", projectId },
    });
    expect(generated.response.status).toBe(201);
    expect(generated.response.headers.get("location")).toBe(`/api/v1/generations/${generated.data?.id}`);
    const image = generated.data?.outputs[0];
    expect(image?.type).toBe("image");

    const created = await client.POST("/api/compositions", {
      body: videoThenStill({ name: "Client cut", projectId, videoId: video.id, stillId: still.id }),
    });
    expect(created.response.status).toBe(201);
    if (!created.data) throw new Error(`composition refused: ${created.error?.error.message}`);
    const compositionId = created.data.id;
    const etag = created.response.headers.get("etag");
    expect(etag).toBe('"1"');

    const patched = await client.PATCH("/api/compositions/{id}", {
      params: { path: { id: compositionId }, header: { "if-match": etag ?? undefined } },
      headers: { "content-type": "application/json-patch+json" },
      body: [{ op: "replace", path: "/name", value: "Final cut" }],
    });
    expect(patched.data?.name).toBe("Final cut");
    expect(patched.data?.version).toBe(2);
    expect(patched.response.headers.get("etag")).toBe('"2"');

    // A stale If-Match: the error extras are typed.
    const stale = await client.PATCH("/api/compositions/{id}", {
      params: { path: { id: compositionId }, header: { "if-match": '"1"' } },
      headers: { "content-type": "application/json-patch+json" },
      body: [{ op: "replace", path: "/name", value: "Lost update" }],
    });
    expect(stale.response.status).toBe(409);
    expect(stale.error?.error.code).toBe("version_conflict");
    expect(stale.error?.error.currentVersion).toBe(2);

    const seen: Render["status"][] = [];
    const render = await client.renderAndWait(
      compositionId,
      { format: "mp4", quality: "draft" },
      { onProgress: (r) => seen.push(r.status) },
    );
    expect(render.status).toBe("succeeded");
    expect(render.compositionVersion).toBe(2);
    expect(seen.at(-1)).toBe("succeeded");
    expect(seen[0]).toBe("queued");
    if (!render.output) throw new Error("no output");

    // The signed URL names the configured PUBLIC_URL; the test server listens on a random port.
    const signed = new URL(render.output.url);
    const download = await fetch(new URL(`${signed.pathname}${signed.search}`, base));
    expect(download.status).toBe(200);
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(render.output.sha256);
    const file = `${dir.dir}/out.mp4`;
    await writeFile(file, bytes);
    const facts = await probe(file);
    expect(facts.duration).toBeCloseTo(2.5, 1);
  });

  it("renders an inline composition in one call and reports API refusals as CutroomError", async () => {
    const render = await client.renderAndWait(
      {
        name: "Inline",
        canvas: { width: 160, height: 90, fps: 25, background: "#102030" },
        tracks: [
          { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] },
        ],
      },
      { format: "png", frameAt: 0.5 },
    );
    expect(render.output?.format).toBe("png");
    expect(render.compositionId).toBeNull();

    const refused = await client.renderAndWait("cmp_does_not_exist").catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CutroomError);
    expect(refused).toMatchObject({ status: 404, code: "not_found" });
  });

  it("renderAndWait waits out a 429 while polling, and stops waiting when its signal aborts", async () => {
    // A stand-in for a busy server: the first poll is answered 429 with Retry-After.
    const polls: number[] = [];
    const busyOnce: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "GET" && new URL(request.url).pathname.startsWith("/api/render/")) {
        polls.push(polls.length);
        if (polls.length === 1) {
          return Response.json(
            { error: { code: "rate_limited", message: "Slow down", requestId: "req_test" } },
            { status: 429, headers: { "retry-after": "1" } },
          );
        }
      }
      return fetch(request);
    };
    const busy = createCutroomClient({ baseUrl: base, apiKey: key, fetch: busyOnce });
    const inline = {
      name: "Red second",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] },
      ],
    } satisfies CompositionInput;
    const render = await busy.renderAndWait(inline, { format: "png", frameAt: 0 });
    expect(render.status).toBe("succeeded");
    expect(polls.length).toBeGreaterThan(1);

    const controller = new AbortController();
    const waiting = client.renderAndWait(
      inline,
      { format: "mp4", quality: "draft" },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
  });

  it("iterates an assistant run and resumes a dropped stream with Last-Event-ID", async () => {
    const session = await client.POST("/api/assistant/session", { body: {} });
    if (!session.data) throw new Error("no session");
    const events: AssistantEvent[] = [];
    for await (const event of client.assistant.run({
      sessionId: session.data.id,
      message: "add a title 'Hello' at 0s for 2 seconds",
    })) {
      events.push(event);
    }
    expect(dropped).toBe(1);
    expect(resumes).toEqual(["1"]);
    expect(events.map((e) => e.type)).toEqual([
      "session",
      "tool_start",
      "patch",
      "tool_result",
      ...events.filter((e) => e.type === "text").map(() => "text"),
      "done",
    ]);
    const last = events.at(-1);
    expect(last?.type === "done" && last.reason).toBe("stop");

    const composition = await client.GET("/api/compositions/{id}", {
      params: { path: { id: session.data.compositionId } },
    });
    expect(composition.data?.tracks[0]?.clips[0]?.asset).toMatchObject({ type: "text", text: "Hello" });
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3", 1000)).toBe(3000);
    expect(retryAfterMs(null, 1000)).toBe(1000);
    expect(
      retryAfterMs("Wed, 21 Oct 2026 07:28:05 GMT", 1000, Date.parse("Wed, 21 Oct 2026 07:28:00 GMT")),
    ).toBe(5000);
    expect(retryAfterMs("soon", 750)).toBe(750);
  });
});
