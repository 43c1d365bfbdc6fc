import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findGenerationById, generationRows, outputsOf } from "../../src/db/repositories/generations.ts";
import { createImageGeneration } from "../../src/domain/generation/create.ts";
import { runGenerationAttempt } from "../../src/domain/generation/generation-job.ts";
import { AttemptLostError, runGenerationPipeline } from "../../src/domain/generation/pipeline.ts";
import { createFalProvider } from "../../src/domain/generation/providers/fal.ts";
import { createDiscardOutputs, createStoreOutputs } from "../../src/domain/generation/store-outputs.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type FalStandIn, startFalStandIn } from "../helpers/fal-stand-in.ts";
import { type GenerationJson, post, readSigned, uploadFile, waitTerminal } from "./helpers.ts";

const KEY = "fal-http-test-key-9f8e7d6c5b4a";
let standIn: FalStandIn;
let t: TestApp;
let owner: { userId: string; key: string };
beforeAll(async () => {
  standIn = await startFalStandIn();
  t = await startTestApp({ worker: true, env: { FAL_KEY: KEY, FAL_QUEUE_URL: standIn.url } });
  owner = await t.createAccount();
});
afterAll(async () => {
  await t.close();
  await standIn.close();
});

describe("generation on fal.ai (queue stand-in)", () => {
  it("runs on the preferred image model, stores the vendor's exact bytes, and follows a preference switch", async () => {
    const res = await post(t, owner.key, "/api/v1/generate/image", {
      prompt: "a red kite",
      imageSize: "square_hd",
      seed: 5,
    });
    expect(res.statusCode, res.body).toBe(201);
    const g = res.json() as GenerationJson;
    expect(g.model).toEqual({ id: "fal-ai/flux-pro/v1.1", provider: "fal", offline: false });
    const sent = standIn.requests.at(-1);
    expect(sent?.model).toBe("fal-ai/flux-pro/v1.1");
    expect(sent?.input).toEqual({ prompt: "a red kite", image_size: "square_hd", num_images: 1, seed: 5 });
    expect(g.outputs).toHaveLength(1);
    expect(g.outputs[0]).toMatchObject({ origin: "generated", generationId: g.id, mimeType: "image/png" });
    expect((await readSigned(t, g.outputs[0]?.url as string)).equals(standIn.png)).toBe(true);

    const patched = await t.app.inject({
      method: "PATCH",
      url: "/api/v1/me/settings",
      headers: bearer(owner.key),
      payload: { imageModel: "fal-ai/flux/schnell" },
    });
    expect(patched.statusCode).toBe(200);
    const fast = (await post(t, owner.key, "/api/v1/generate/image", { prompt: "a blue kite" })).json();
    expect(fast.model.id).toBe("fal-ai/flux/schnell");
    expect(standIn.requests.at(-1)?.model).toBe("fal-ai/flux/schnell");
    expect(standIn.requests.at(-1)?.input).toMatchObject({ image_size: "landscape_4_3" });
  });

  it("ends a refused prompt as failed with content_rejected and stores nothing", async () => {
    const res = await post(t, owner.key, "/api/v1/generate/image", {
      prompt: "[content_rejected] something",
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: "failed", outputs: [], error: { code: "content_rejected" } });
    const uploads = (await t.app.inject({ url: "/api/v1/uploads", headers: bearer(owner.key) })).json().data;
    expect(uploads.every((u: { generationId: string | null }) => u.generationId !== res.json().id)).toBe(
      true,
    );
  });

  it("answers 400 naming a video option the model cannot do (Veo has no 1:1)", async () => {
    const res = await post(t, owner.key, "/api/v1/generate/video", {
      prompt: "x",
      imageUrl: "upl_x",
      aspectRatio: "1:1",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toBe("/aspectRatio");
    expect(res.json().error.message).toContain("fal-ai/veo3/fast/image-to-video");
  });

  it("animates an uploaded still: fal's video input names, the still as a data URI, the vendor's MP4 stored", async () => {
    const img = (
      await post(t, owner.key, "/api/v1/generate/image", { prompt: "still" })
    ).json() as GenerationJson;
    const res = await post(t, owner.key, "/api/v1/generate/video", {
      prompt: "dolly in",
      imageUrl: img.outputs[0]?.id as string,
      resolution: "1080p",
      duration: "4s",
      aspectRatio: "9:16",
      generateAudio: true,
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().warnings).toEqual([]);
    const g = await waitTerminal(t, owner.key, res.json().id);
    expect(g.status, JSON.stringify(g.error)).toBe("succeeded");
    const sent = standIn.requests.at(-1);
    expect(sent?.model).toBe("fal-ai/veo3/fast/image-to-video");
    expect(sent?.input).toMatchObject({
      prompt: "dolly in",
      duration: "4s",
      resolution: "1080p",
      aspect_ratio: "9:16",
      generate_audio: true,
    });
    expect(String(sent?.input.image_url)).toMatch(/^data:image\/jpeg;base64,/);
    expect((await readSigned(t, g.outputs[0]?.url as string)).equals(standIn.mp4)).toBe(true);
  });

  it("cancel stops a running generation at the vendor and is idempotent", async () => {
    const still = await uploadFile(t, owner.key, standIn.png, "still.png");
    const res = await post(t, owner.key, "/api/v1/generate/video", {
      prompt: "[never_finishes] x",
      imageUrl: still.id,
    });
    const id = res.json().id as string;
    // Wait until the worker has submitted and recorded the vendor's request id.
    let row = await findGenerationById(t.database.db, id);
    while (!row?.vendorRequestId) {
      await new Promise((r) => setTimeout(r, 50));
      row = await findGenerationById(t.database.db, id);
    }
    const del = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/generations/${id}`,
      headers: bearer(owner.key),
    });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ status: "cancelled", outputs: [] });
    expect(standIn.requests.find((r) => r.id === row?.vendorRequestId)?.cancelled).toBe(true);
    const again = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/generations/${id}`,
      headers: bearer(owner.key),
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().status).toBe("cancelled");
  });

  it("a worker that died mid-poll is resumed by the next attempt without a second submission", async () => {
    const db = t.database.db;
    const store = t.runtime.store;
    const row = await createImageGeneration(
      { db, clock: { now: () => new Date() }, generation: t.config.generation, enqueue: async () => {} },
      { userId: owner.userId, imageModel: null },
      { prompt: "resume me", imageSize: "square" },
    );
    const deps = {
      db,
      store,
      clock: { now: () => new Date() },
      providers: { fal: createFalProvider({ apiKey: KEY, queueUrl: standIn.url }) },
      workRoot: t.config.workDir,
      storeOutputs: createStoreOutputs({ db, store, maxBytes: 1 << 30 }),
      discardOutputs: createDiscardOutputs({ db, store }),
      remote: { maxBytes: 1 << 20, timeoutMs: 5000 },
      poll: { firstMs: 20, maxMs: 50 },
    };
    const log = t.app.log as never;
    standIn.pollsBeforeDone = 5;
    try {
      const submitsBefore = standIn.requests.length;
      // Attempt 1 submits, then "dies" after its first poll.
      const first = (await generationRows.claim(db, row.id, new Date())) ?? row;
      const killed = new AbortController();
      const dying = runGenerationPipeline(deps, first, {
        attempt: first.attempt,
        signal: killed.signal,
        progress: () => {},
        log,
      });
      while ((standIn.requests.at(-1)?.polls ?? 0) < 1 || standIn.requests.length === submitsBefore) {
        await new Promise((r) => setTimeout(r, 10));
      }
      killed.abort(new AttemptLostError());
      await expect(dying).rejects.toBeInstanceOf(AttemptLostError);
      expect(standIn.requests.length).toBe(submitsBefore + 1);

      // Attempt 2 (the queue's retry) resumes the persisted vendor request.
      const outcome = await runGenerationAttempt({ pipeline: deps, log, pollMs: 20 }, row.id);
      expect(outcome).toBe("succeeded");
      const done = await findGenerationById(db, row.id);
      expect(done?.attempt).toBe(first.attempt + 1);
      expect(done?.vendorRequestId).toBe(standIn.requests.at(-1)?.id);
      expect(standIn.requests.length).toBe(submitsBefore + 1);
      expect((await outputsOf(db, [row.id])).get(row.id)).toHaveLength(1);
      expect((await findGenerationById(db, row.id))?.status).toBe("succeeded");
    } finally {
      standIn.pollsBeforeDone = 2;
    }
  });

  it("never shows the fal key in logs or responses", async () => {
    expect(t.logs.join("\n")).not.toContain(KEY);
    const list = await t.app.inject({ url: "/api/v1/generations", headers: bearer(owner.key) });
    expect(list.body).not.toContain(KEY);
  });
});
