import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { startChatServer } from "../helpers/openai-compatible-server.ts";
import { type AssistantClient, assistantClient, expectWellFormed, ofType, replayPatches } from "./helpers.ts";

let t: TestApp;
let c: AssistantClient;
let chat: Awaited<ReturnType<typeof startChatServer>>;
beforeAll(async () => {
  chat = await startChatServer((req) =>
    req.body.messages.some((m) => m.role === "tool")
      ? { textPieces: ["Added ", "the ", "title."] }
      : {
          toolCall: {
            id: "call_oc_1",
            name: "add_text",
            argumentPieces: ['{"text":"Hel', 'lo","sta', 'rt":1,"durat', 'ion":2}'],
          },
        },
  );
  t = await startTestApp({
    env: {
      ASSISTANT_MODEL: "openai-compatible:local-model",
      ASSISTANT_BASE_URL: `${chat.url}/v1`,
      ASSISTANT_API_KEY: "sk-local-test",
    },
  });
  c = await assistantClient(t, await t.listen());
});
afterAll(async () => {
  await t.close();
  await chat.close();
});

describe("assistant on an OpenAI-compatible chat completions server", () => {
  it("streams a tool call that arrives in pieces through the provider, applies it and streams the answer", async () => {
    const s = await c.session();
    expect(s.model).toEqual({ provider: "openai-compatible", id: "local-model", offline: false });
    const before = await c.composition(s.compositionId);
    const { status, events } = await c.send(s.id, "Put Hello on screen at one second for two seconds");
    expect(status).toBe(200);
    expectWellFormed(events);
    expect(events.map((e) => e.event).filter((x) => x !== "text")).toEqual([
      "session",
      "tool_start",
      "patch",
      "tool_result",
      "done",
    ]);
    expect(events.findIndex((e) => e.event === "text")).toBe(4);
    expect(events[1]?.data).toMatchObject({
      toolCallId: "call_oc_1",
      name: "add_text",
      input: { text: "Hello", start: 1, duration: 2 },
    });
    expect(
      ofType(events, "text")
        .map((e) => e.data.delta)
        .join(""),
    ).toBe("Added the title.");
    expect(events.at(-1)?.data).toMatchObject({
      reason: "stop",
      version: 2,
      usage: { inputTokens: 240, outputTokens: 24 },
    });
    expect(replayPatches(before, events)).toEqual(await c.composition(s.compositionId));

    expect(chat.requests).toHaveLength(2);
    const [first, second] = chat.requests;
    expect(first?.authorization).toBe("Bearer sk-local-test");
    expect(first?.body.model).toBe("local-model");
    expect(first?.body.stream).toBe(true);
    expect(first?.body.tools?.map((x) => x.function.name)).toEqual(
      expect.arrayContaining(["get_composition", "add_text", "add_clip", "start_render", "undo"]),
    );
    const system = (m: typeof first) => String(m?.body.messages.find((x) => x.role === "system")?.content);
    expect(system(first)).toContain('"version":1');
    expect(system(second)).toContain('"version":2');
    const toolMessage = second?.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.tool_call_id).toBe("call_oc_1");
    expect(String(toolMessage?.content)).toContain("Added text");
  });
});
