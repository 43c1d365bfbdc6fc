import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { type AssistantClient, assistantClient, expectWellFormed, replayPatches } from "./helpers.ts";

let t: TestApp;
let c: AssistantClient;
beforeAll(async () => {
  t = await startTestApp();
  c = await assistantClient(t, await t.listen());
});
afterAll(() => t.close());

describe("assistant with the offline command model", () => {
  it("adds a title through a streamed run whose patches replay to the stored composition", async () => {
    const s = await c.session();
    expect(s.id).toMatch(/^ses_/);
    expect(s.model).toEqual({ provider: "offline", id: "command-v1", offline: true });
    const before = await c.composition(s.compositionId);
    const answer = await c.send(s.id, "add a title 'Hello' at 2s for 3 seconds");
    expect(answer.status).toBe(200);
    expectWellFormed(answer.events);
    console.log(answer.events.map((e) => `${e.event} ${JSON.stringify(e.data).slice(0, 200)}`).join("\n"));
    expect(replayPatches(before, answer.events)).toEqual(await c.composition(s.compositionId));
  });
});
