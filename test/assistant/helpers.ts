import jsonPatch from "fast-json-patch";
import { expect } from "vitest";
import { bearer, type TestApp } from "../helpers/app.ts";
import { requestStream, type SseEvent, type StreamAnswer } from "./sse-client.ts";

/** A user of an assistant test: key, base URL and helpers over HTTP. */
export interface AssistantClient {
  key: string;
  userId: string;
  base: string;
  session(
    body?: Record<string, unknown>,
  ): Promise<{ id: string; compositionId: string } & Record<string, unknown>>;
  send(
    sessionId: string,
    message: string,
    headers?: Record<string, string>,
    stopAfter?: number,
  ): Promise<StreamAnswer>;
  composition(id: string): Promise<Record<string, unknown> & { version: number }>;
}

/** Creates an account and a client for it on a listening test app. */
export async function assistantClient(
  t: TestApp,
  base: string,
  scopes?: ("read" | "write")[],
): Promise<AssistantClient> {
  const { key, userId } = await t.createAccount(scopes ? { scopes } : {});
  return {
    key,
    userId,
    base,
    async session(body = {}) {
      const res = await fetch(`${base}/api/assistant/session`, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { id: string; compositionId: string };
      expect(res.status, JSON.stringify(json)).toBe(201);
      return json;
    },
    send(sessionId, message, headers = {}, stopAfter) {
      return requestStream(`${base}/api/assistant/orchestrator`, {
        method: "POST",
        headers: { ...bearer(key), ...headers },
        body: { sessionId, message },
        ...(stopAfter !== undefined ? { stopAfter } : {}),
      });
    },
    async composition(id) {
      const res = await fetch(`${base}/api/compositions/${id}`, { headers: bearer(key) });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown> & { version: number };
    },
  };
}

/** Checks the stream's envelope: ids 1..n, event name = data.type, session first, one terminal last. */
export function expectWellFormed(events: SseEvent[]): void {
  expect(events.length).toBeGreaterThan(1);
  events.forEach((e, i) => {
    expect(e.id).toBe(i + 1);
    expect(e.data.type).toBe(e.event);
  });
  expect(events[0]?.event).toBe("session");
  const terminals = events.filter((e) => e.event === "done" || e.event === "error");
  expect(terminals).toHaveLength(1);
  expect(["done", "error"]).toContain(events[events.length - 1]?.event);
}

/** Applies every `patch` event to `copy` (as a client would) and returns the result. */
export function replayPatches(copy: unknown, events: SseEvent[]): unknown {
  let doc = structuredClone(copy);
  for (const e of events) {
    if (e.event !== "patch") continue;
    const version = (doc as { version: number }).version;
    expect(e.data.baseVersion).toBe(version);
    doc = jsonPatch.applyPatch(doc, e.data.ops as jsonPatch.Operation[], true, false).newDocument;
  }
  return doc;
}

/** Events of one type. */
export const ofType = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);

/**
 * Sends a message as `c` and checks the stream (well formed, 200) and that its patches replayed
 * on the composition as before equal a fresh GET. @returns the events, the composition after
 * and the reply's text.
 */
export async function chatTurn(
  c: AssistantClient,
  s: { id: string; compositionId: string },
  message: string,
) {
  const before = await c.composition(s.compositionId);
  const answer = await c.send(s.id, message);
  expect(answer.status).toBe(200);
  expectWellFormed(answer.events);
  const after = await c.composition(s.compositionId);
  expect(replayPatches(before, answer.events)).toEqual(after);
  const text = ofType(answer.events, "text")
    .map((e) => e.data.delta)
    .join("");
  return { events: answer.events, after, text };
}
