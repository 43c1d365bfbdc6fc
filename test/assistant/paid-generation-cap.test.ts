// One assistant request may start at most ASSISTANT_MAX_PAID_GENERATIONS_PER_RUN paid vendor
// generations: further ones are refused as the tool's result (so the run's events say so), and
// the ones started count against the account's generation allowance (a local stand-in of the
// vendor answers).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type FalStandIn, startFalStandIn } from "../helpers/fal-stand-in.ts";
import { type AssistantClient, assistantClient, ofType } from "./helpers.ts";
import { scriptedModel, textStep, toolCallStep } from "./scripted-model.ts";

const scripted = scriptedModel();
let t: TestApp;
let c: AssistantClient;
let base: string;
let standIn: FalStandIn;
beforeAll(async () => {
  standIn = await startFalStandIn();
  t = await startTestApp({
    worker: true,
    env: { FAL_KEY: "stand-in-key", FAL_QUEUE_URL: standIn.url, ASSISTANT_MAX_PAID_GENERATIONS_PER_RUN: "2" },
    assistant: {
      languageModel: scripted.model,
      options: { heartbeatMs: 100, staleMs: 10_000, sweepMs: 200, pollMs: 200, pingMs: 100 },
    },
  });
  base = await t.listen();
  c = await assistantClient(t, base);
});
afterAll(async () => {
  await t.close();
  await standIn.close();
});

const generations = async () =>
  (
    (await fetch(`${base}/api/v1/generations`, { headers: bearer(c.key) }).then((r) => r.json())) as {
      data: { id: string; status: string }[];
    }
  ).data;

describe("paid generations per assistant request", () => {
  it("starts at most the cap, refuses the rest in the run's events, and counts the started ones", async () => {
    const s = await c.session();
    scripted.script([
      async () => toolCallStep("call_1", "generate_image", { prompt: "picture 1" }),
      async () => toolCallStep("call_2", "generate_image", { prompt: "picture 2" }),
      async () => toolCallStep("call_3", "generate_image", { prompt: "picture 3" }),
      async () => textStep("Made two pictures; the third needs a new request."),
    ]);
    const { events } = await c.send(s.id, "make three pictures");
    const results = ofType(events, "tool_result").map(
      (e) => e.data as unknown as { ok: boolean; error?: { code: string; message: string } },
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(results[2]?.error).toMatchObject({
      code: "run_generation_limit",
      message: expect.stringMatching(/ASSISTANT_MAX_PAID_GENERATIONS_PER_RUN=2/),
    });
    expect(standIn.requests).toHaveLength(2);
    expect(await generations()).toHaveLength(2);
    // A new request may start paid generations again.
    scripted.script([
      async () => toolCallStep("call_4", "generate_image", { prompt: "picture 4" }),
      async () => textStep("Done."),
    ]);
    const again = await c.send(s.id, "one more");
    expect(ofType(again.events, "tool_result")[0]?.data).toMatchObject({ ok: true });
  }, 120_000);
});
