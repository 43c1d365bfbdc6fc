import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type AssistantClient, assistantClient, expectWellFormed, ofType, replayPatches } from "./helpers.ts";

let t: TestApp;
let c: AssistantClient;
let base: string;
beforeAll(async () => {
  // The in-process worker runs the generations (offline provider: no FAL_KEY).
  t = await startTestApp({ worker: true });
  base = await t.listen();
  c = await assistantClient(t, base);
});
afterAll(() => t.close());

async function upload(id: string) {
  const res = await fetch(`${base}/api/v1/uploads/${id}`, { headers: bearer(c.key) });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; type: string; origin: string; generationId: string | null };
}

describe("assistant generation tools (offline provider)", () => {
  it("generate_image and animate_image run generations, report progress and return generated uploads", async () => {
    const s = await c.session();
    const before = await c.composition(s.compositionId);

    const image = await c.send(s.id, "generate an image of a red panda on a mossy branch");
    expect(image.status).toBe(200);
    expectWellFormed(image.events);
    expect(ofType(image.events, "tool_progress").length).toBeGreaterThan(0);
    const made = ofType(image.events, "tool_result")[0]?.data as unknown as {
      ok: boolean;
      name: string;
      output: { uploadId: string };
    };
    expect(made).toMatchObject({ ok: true, name: "generate_image" });
    const still = await upload(made.output.uploadId);
    expect(still).toMatchObject({ type: "image", origin: "generated" });
    expect(still.generationId).toMatch(/^gen_/);
    const gen = await fetch(`${base}/api/v1/generations/${still.generationId}`, { headers: bearer(c.key) });
    expect(await gen.json()).toMatchObject({
      kind: "image",
      status: "succeeded",
      prompt: "a red panda on a mossy branch",
      model: { provider: "offline", offline: true },
    });

    const video = await c.send(s.id, `animate ${still.id}`);
    expectWellFormed(video.events);
    const animated = ofType(video.events, "tool_result")[0]?.data as unknown as {
      ok: boolean;
      output: { uploadId: string };
    };
    expect(animated).toMatchObject({ ok: true, name: "animate_image" });
    expect(await upload(animated.output.uploadId)).toMatchObject({ type: "video", origin: "generated" });

    // Nothing was placed on the timeline (no `place` asked), and every patch replays to GET.
    const after = await c.composition(s.compositionId);
    expect(replayPatches(before, [...image.events, ...video.events])).toEqual(after);
    expect(after.version).toBe(before.version);
  }, 240_000);
});
