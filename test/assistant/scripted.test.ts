import { APICallError } from "ai";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRun } from "../../src/db/repositories/assistant.ts";
import { assistantRuns } from "../../src/db/schema/assistant.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type AssistantClient, assistantClient, expectWellFormed, ofType, replayPatches } from "./helpers.ts";
import { gate, scriptedModel, textStep, toolCallStep } from "./scripted-model.ts";
import { requestStream } from "./sse-client.ts";

const scripted = scriptedModel();
let t: TestApp;
let c: AssistantClient;
let base: string;
beforeAll(async () => {
  t = await startTestApp({
    assistant: {
      languageModel: scripted.model,
      options: { heartbeatMs: 100, staleMs: 10_000, sweepMs: 200, pollMs: 200, pingMs: 100 },
    },
  });
  base = await t.listen();
  c = await assistantClient(t, base);
});
afterAll(() => t.close());

/** A composition with two touching colour clips (0–2 s, 2–4 s), and a session on it. */
async function sessionWithClips(client = c) {
  const res = await fetch(`${base}/api/compositions`, {
    method: "POST",
    headers: { ...bearer(client.key), "content-type": "application/json" },
    body: JSON.stringify({
      name: "Two colours",
      canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
      tracks: [
        {
          kind: "video",
          clips: [
            { start: 0, duration: 2, asset: { type: "color", color: "#ff0000" } },
            { start: 2, duration: 2, asset: { type: "color", color: "#00ff00" } },
          ],
        },
      ],
    }),
  });
  const comp = (await res.json()) as { id: string; tracks: { id: string; clips: { id: string }[] }[] };
  const s = await client.session({ compositionId: comp.id });
  expect(s.compositionId).toBe(comp.id);
  return { s, clipIds: comp.tracks[0]?.clips.map((x) => x.id) as [string, string] };
}

const patchAsUser = (compositionId: string, ops: unknown[]) =>
  fetch(`${base}/api/compositions/${compositionId}`, {
    method: "PATCH",
    headers: { ...bearer(c.key), "content-type": "application/json-patch+json" },
    body: JSON.stringify(ops),
  });

describe("orchestrator with scripted models", () => {
  it("reports a tool's invalid input as a tool error and continues the loop with it", async () => {
    const { s } = await sessionWithClips();
    scripted.script([
      async () => toolCallStep("call_1", "add_text", { text: "Hi", start: -1, duration: 2 }),
      async () => toolCallStep("call_2", "add_text", { text: "Hi", start: 1, duration: 2 }),
      async () => textStep("Added the title."),
    ]);
    const before = await c.composition(s.compositionId);
    const { events } = await c.send(s.id, "add a title");
    expectWellFormed(events);
    const results = ofType(events, "tool_result").map((e) => e.data);
    expect(results[0]).toMatchObject({
      toolCallId: "call_1",
      ok: false,
      error: {
        code: "invalid_input",
        message: "Invalid input for add_text: start: Too small: expected number to be >=0",
      },
    });
    expect(results[1]).toMatchObject({ toolCallId: "call_2", ok: true });
    // The stored history shows both results as they streamed, in the order they came.
    const history = (await (
      await fetch(`${base}/api/assistant/session/${s.id}`, { headers: bearer(c.key) })
    ).json()) as { messages: { results?: unknown[] }[] };
    const [failed, done] = results as unknown as [{ error: { message: string } }, { output: unknown }];
    expect(history.messages.flatMap((m) => m.results ?? [])).toEqual([
      { toolCallId: "call_1", name: "add_text", ok: false, error: { message: failed.error.message } },
      { toolCallId: "call_2", name: "add_text", ok: true, output: done.output },
    ]);
    const toolMessage = scripted.prompts[1]?.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("call_1");
    expect(events.at(-1)?.data).toMatchObject({
      type: "done",
      reason: "stop",
      usage: { inputTokens: 30, outputTokens: 15 },
    });
    expect(replayPatches(before, events)).toEqual(await c.composition(s.compositionId));
    const versions = await fetch(`${base}/api/compositions/${s.compositionId}/versions`, {
      headers: bearer(c.key),
    });
    const runId = events.find((e) => e.event === "session")?.data.runId;
    expect(runId).toEqual(expect.stringMatching(/^run_/));
    expect(((await versions.json()) as { data: unknown[] }).data[0]).toMatchObject({
      version: 2,
      author: { kind: "assistant", runId },
      summary: expect.stringMatching(/^added \w+ track trk_\w+ with clip clp_\w+$/),
    });
    expect(scripted.prompts[2]?.[0]?.role).toBe("system");
    expect(String(scripted.prompts[2]?.[0]?.content)).toContain('"version":2');
  });

  it("applies the tool on top of a user's concurrent PATCH, and fails clearly when the clip is gone", async () => {
    const { s, clipIds } = await sessionWithClips();
    let userVersion = 0;
    scripted.script([
      async () => toolCallStep("call_read", "get_composition", {}),
      async () => {
        const res = await patchAsUser(s.compositionId, [
          { op: "replace", path: "/name", value: "Renamed by the user" },
        ]);
        userVersion = ((await res.json()) as { version: number }).version;
        return toolCallStep("call_move", "move_clip", { clip: clipIds[1], start: 5 });
      },
      async () => {
        await patchAsUser(s.compositionId, [{ op: "remove", path: "/tracks/0/clips/0" }]);
        return toolCallStep("call_trim", "trim_clip", { clip: clipIds[0], duration: 1 });
      },
      async () => textStep("The first clip was deleted meanwhile."),
    ]);
    const { events } = await c.send(s.id, "move clip 2 to 5s then trim clip 1");
    expectWellFormed(events);
    const patch = ofType(events, "patch")[0]?.data;
    expect(patch).toMatchObject({
      toolCallId: "call_move",
      baseVersion: userVersion,
      version: userVersion + 1,
    });
    const trim = ofType(events, "tool_result").find((e) => e.data.toolCallId === "call_trim")?.data;
    expect(trim).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(String((trim?.error as { message?: string } | undefined)?.message)).toMatch(
      /No clip .* \(version \d+\)/,
    );
    const final = (await c.composition(s.compositionId)) as unknown as {
      name: string;
      tracks: { clips: { id: string; start: number }[] }[];
    };
    expect(final.name).toBe("Renamed by the user");
    expect(final.tracks[0]?.clips).toEqual([expect.objectContaining({ id: clipIds[1], start: 5 })]);
  });

  it("ends with an error event on a model failure, keeping the last successful edit and nothing half-applied", async () => {
    const { s } = await sessionWithClips();
    scripted.script([
      async () => toolCallStep("call_ok", "add_transition", { clip: 2, type: "wipeleft", duration: 0.5 }),
      async () => [
        { type: "stream-start", warnings: [] },
        { type: "tool-input-start", id: "call_half", toolName: "delete_clip" },
        { type: "tool-input-delta", id: "call_half", delta: '{"clip":' },
        {
          type: "error",
          error: new APICallError({
            message: "upstream overloaded",
            url: "http://model.test/v1",
            requestBodyValues: {},
            statusCode: 529,
            isRetryable: true,
          }),
        },
      ],
    ]);
    const before = await c.composition(s.compositionId);
    const { events } = await c.send(s.id, "wipe then delete");
    expectWellFormed(events);
    expect(events.at(-1)?.data).toMatchObject({ type: "error", code: "model_error", retryable: true });
    expect(String(events.at(-1)?.data.message)).toContain("upstream overloaded");
    const after = await c.composition(s.compositionId);
    expect(after.version).toBe(before.version + 1);
    expect((after as unknown as { tracks: { clips: unknown[] }[] }).tracks[0]?.clips).toHaveLength(2);
    expect(replayPatches(before, events)).toEqual(after);

    scripted.script([
      async () => {
        throw new APICallError({
          message: "bad key",
          url: "http://m",
          requestBodyValues: {},
          statusCode: 401,
          isRetryable: false,
        });
      },
    ]);
    const failed = await c.send(s.id, "anything");
    expectWellFormed(failed.events);
    expect(failed.events.at(-1)?.data).toMatchObject({
      type: "error",
      code: "model_error",
      retryable: false,
    });
  });

  it("keeps running after a disconnect; another app instance on the same database resumes with Last-Event-ID", async () => {
    const { s } = await sessionWithClips();
    const g = gate();
    scripted.script([
      async () => toolCallStep("call_a", "add_text", { text: "Resume", start: 0, duration: 1 }),
      async () => {
        await g.wait;
        return textStep("Done after the reconnect.");
      },
    ]);
    const before = await c.composition(s.compositionId);
    const first = await c.send(s.id, "add a title", {}, 4);
    expect(first.events.map((e) => e.event)).toEqual(["session", "tool_start", "patch", "tool_result"]);
    const runId = String(first.events[0]?.data.runId);

    const t2 = await startTestApp({ testDb: t.testDb, assistant: { options: { pollMs: 60_000 } } });
    try {
      const base2 = await t2.listen();
      const resumed = requestStream(`${base2}/api/assistant/runs/${runId}/events`, {
        headers: { ...bearer(c.key), "last-event-id": "4" },
      });
      setTimeout(g.open, 100);
      const rest = await resumed;
      expect(rest.status).toBe(200);
      expect(rest.events[0]?.id).toBe(5);
      expect(rest.events.map((e) => e.event)).toContain("text");
      expect(rest.events.at(-1)?.data).toMatchObject({ type: "done", reason: "stop" });
      const all = [...first.events, ...rest.events];
      expectWellFormed(all);
      expect(replayPatches(before, all)).toEqual(await c.composition(s.compositionId));

      const replay = await requestStream(`${base2}/api/assistant/runs/${runId}/events`, {
        headers: bearer(c.key),
      });
      expect(replay.events.map((e) => e.id)).toEqual(all.map((e) => e.id));
    } finally {
      await t2.close();
    }
  });

  it("cancels a run from the cancel route: done with reason cancelled, edits so far kept", async () => {
    const { s } = await sessionWithClips();
    scripted.script([
      async () => toolCallStep("call_c", "add_text", { text: "Kept", start: 0, duration: 1 }),
      async (options) => {
        await new Promise<void>((resolve) => options.abortSignal?.addEventListener("abort", () => resolve()));
        throw options.abortSignal?.reason ?? new Error("aborted");
      },
    ]);
    const streaming = c.send(s.id, "add a title and wait");
    await waitFor(async () => (await activeRun(s.id)) !== null);
    const runId = (await activeRun(s.id)) as string;
    const conflict = await c.send(s.id, "another message");
    expect(conflict.status).toBe(409);
    expect(conflict.json?.error?.code).toBe("conflict");
    expect(conflict.json?.error).toMatchObject({ runId });
    const res = await fetch(`${base}/api/assistant/runs/${runId}/cancel`, {
      method: "POST",
      headers: bearer(c.key),
    });
    expect(res.status).toBe(202);
    const { events } = await streaming;
    expectWellFormed(events);
    expect(events.at(-1)?.data).toMatchObject({ type: "done", reason: "cancelled", version: 2 });
    expect(await activeRun(s.id)).toBeNull();
    // Cancelling it again after it ended: 200 with its final status, nothing requested anew.
    const again = await fetch(`${base}/api/assistant/runs/${runId}/cancel`, {
      method: "POST",
      headers: bearer(c.key),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ id: runId, status: "done", cancelRequested: true });
  });

  it("cancelling a run that already ended answers 200 with its status and records no cancel", async () => {
    const { s } = await sessionWithClips();
    scripted.script([async () => textStep("Done already.")]);
    const { events } = await c.send(s.id, "say something");
    expect(events.at(-1)?.data).toMatchObject({ type: "done" });
    const runId = events[0]?.data.runId;
    const res = await fetch(`${base}/api/assistant/runs/${runId}/cancel`, {
      method: "POST",
      headers: bearer(c.key),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: runId, sessionId: s.id, status: "done", cancelRequested: false });
  });

  it("cancelling a run while start_render follows its render cancels that render, and says so", async () => {
    const { s } = await sessionWithClips();
    scripted.script([async () => toolCallStep("call_r", "start_render", { quality: "draft" })]);
    const streaming = c.send(s.id, "render it");
    // No worker runs in this app: the render stays queued while the tool follows it.
    let renderId = "";
    await waitFor(async () => {
      const list = (await fetch(`${base}/api/render`, { headers: bearer(c.key) }).then((r) => r.json())) as {
        data: { id: string; compositionId: string }[];
      };
      renderId = list.data.find((r) => r.compositionId === s.compositionId)?.id ?? "";
      return renderId !== "";
    });
    const runId = (await activeRun(s.id)) as string;
    const res = await fetch(`${base}/api/assistant/runs/${runId}/cancel`, {
      method: "POST",
      headers: bearer(c.key),
    });
    expect(res.status).toBe(202);
    const { events } = await streaming;
    expectWellFormed(events);
    expect(events.at(-1)?.data).toMatchObject({ type: "done", reason: "cancelled" });
    const render = await fetch(`${base}/api/render/${renderId}`, { headers: bearer(c.key) });
    expect(((await render.json()) as { status: string }).status).toBe("cancelled");
    expect(
      ofType(events, "tool_progress").some((e) =>
        String(e.data.message).includes(`run cancelled: render ${renderId} cancelled`),
      ),
    ).toBe(true);
  });

  it("attaches a retried POST with the same Idempotency-Key to its run instead of starting another", async () => {
    const { s } = await sessionWithClips();
    const g = gate();
    scripted.script([
      async () => {
        await g.wait;
        return textStep("Only once.");
      },
    ]);
    const headers = { "idempotency-key": `k-${Date.now()}` };
    const first = await c.send(s.id, "say something", headers, 1);
    const runId = first.events[0]?.data.runId;
    const retry = c.send(s.id, "say something", headers);
    setTimeout(g.open, 100);
    const { events } = await retry;
    expectWellFormed(events);
    expect(events[0]?.data.runId).toBe(runId);
    expect(scripted.remaining()).toBe(0);
    const again = await c.send(s.id, "say something", { ...headers, "last-event-id": "1" });
    expect(again.events[0]?.id).toBe(2);
    const other = await c.send(s.id, "something else", headers);
    expect(other.status).toBe(409);
  });

  it("ends a run whose process died as error interrupted, via the sweeper", async () => {
    const { s } = await sessionWithClips();
    const inserted = await insertRun(t.database.db, {
      sessionId: s.id,
      userId: c.userId,
      message: "orphan",
      idempotencyKey: null,
      owner: "dead-host:1:gone",
    });
    expect("run" in inserted).toBe(true);
    const runId = "run" in inserted ? inserted.run.id : "";
    // Its owner's last heartbeat was a minute ago.
    await t.database.db
      .update(assistantRuns)
      .set({ heartbeatAt: new Date(Date.now() - 60_000) })
      .where(eq(assistantRuns.id, runId));
    const { events } = await requestStream(`${base}/api/assistant/runs/${runId}/events`, {
      headers: bearer(c.key),
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: 1,
      event: "error",
      data: { code: "interrupted", retryable: true },
    });
    expect(await activeRun(s.id)).toBeNull();
  });

  it("ends the streams of a run whose session is deleted meanwhile", async () => {
    const { s } = await sessionWithClips();
    const g = gate();
    scripted.script([
      async () => {
        await g.wait;
        return textStep("Too late.");
      },
    ]);
    const streaming = c.send(s.id, "wait");
    await waitFor(async () => (await activeRun(s.id)) !== null);
    const runId = (await activeRun(s.id)) as string;
    const del = await fetch(`${base}/api/assistant/session/${s.id}`, {
      method: "DELETE",
      headers: bearer(c.key),
    });
    expect(del.status).toBe(204);
    g.open();
    const { events } = await streaming;
    expect(events[0]?.event).toBe("session");
    const gone = await requestStream(`${base}/api/assistant/runs/${runId}/events`, {
      headers: bearer(c.key),
    });
    expect(gone.status).toBe(404);
  });

  it("ends its own runs as interrupted and closes their streams when the server shuts down", async () => {
    const other = scriptedModel();
    const t3 = await startTestApp({ testDb: t.testDb, assistant: { languageModel: other.model } });
    const base3 = await t3.listen();
    const { s } = await sessionWithClips();
    other.script([
      async (options) => {
        await new Promise<void>((resolve) => options.abortSignal?.addEventListener("abort", () => resolve()));
        throw options.abortSignal?.reason ?? new Error("aborted");
      },
    ]);
    const streaming = requestStream(`${base3}/api/assistant/orchestrator`, {
      method: "POST",
      headers: bearer(c.key),
      body: { sessionId: s.id, message: "wait for ever" },
    });
    await waitFor(async () => (await activeRun(s.id)) !== null);
    await t3.close();
    const { events } = await streaming;
    expectWellFormed(events);
    expect(events.at(-1)?.data).toMatchObject({ type: "error", code: "interrupted", retryable: true });
  });

  it("sends : ping comments while a run is quiet", async () => {
    const { s } = await sessionWithClips();
    scripted.script([
      async () => {
        await new Promise((r) => setTimeout(r, 350));
        return textStep("Late.");
      },
    ]);
    const answer = await c.send(s.id, "wait");
    expect(answer.comments.filter((x) => x.trim() === "ping").length).toBeGreaterThan(0);
  });
});

describe("assistant routes: errors before the stream", () => {
  it("validates, refuses read-only keys with 403 and hides other owners' sessions and runs with 404", async () => {
    const { s } = await sessionWithClips();
    const bad = await c.send(s.id, "");
    expect(bad.status).toBe(400);
    const readOnly = await assistantClient(t, base, ["read"]);
    const ro = await requestStream(`${base}/api/assistant/orchestrator`, {
      method: "POST",
      headers: bearer(readOnly.key),
      body: { sessionId: s.id, message: "hi" },
    });
    expect(ro.status).toBe(403);
    const roSession = await fetch(`${base}/api/assistant/session`, {
      method: "POST",
      headers: { ...bearer(readOnly.key), "content-type": "application/json" },
      body: "{}",
    });
    expect(roSession.status).toBe(403);

    const other = await assistantClient(t, base);
    expect(
      (await fetch(`${base}/api/assistant/session/${s.id}`, { headers: bearer(other.key) })).status,
    ).toBe(404);
    const foreign = await other.send(s.id, "hello");
    expect(foreign.status).toBe(404);
    expect(foreign.json?.error?.code).toBe("not_found");
    scripted.script([async () => textStep("Mine.")]);
    const mine = await c.send(s.id, "hello");
    const runId = String(mine.events[0]?.data.runId);
    const theirs = await requestStream(`${base}/api/assistant/runs/${runId}/events`, {
      headers: bearer(other.key),
    });
    expect(theirs.status).toBe(404);
    expect(
      (
        await fetch(`${base}/api/assistant/runs/${runId}/cancel`, {
          method: "POST",
          headers: bearer(other.key),
        })
      ).status,
    ).toBe(404);
    const foreignComposition = await fetch(`${base}/api/assistant/session`, {
      method: "POST",
      headers: { ...bearer(other.key), "content-type": "application/json" },
      body: JSON.stringify({ compositionId: s.compositionId }),
    });
    expect(foreignComposition.status).toBe(404);
  });

  it("lists sessions with pagination and deletes idempotently", async () => {
    const u = await assistantClient(t, base);
    const ids = [(await u.session()).id, (await u.session()).id, (await u.session()).id];
    const page1 = (await fetch(`${base}/api/assistant/sessions?limit=2`, { headers: bearer(u.key) }).then(
      (r) => r.json(),
    )) as {
      data: { id: string; messages?: unknown }[];
      nextCursor: string;
    };
    expect(page1.data.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(page1.data[0]?.messages).toBeUndefined();
    const page2 = (await fetch(`${base}/api/assistant/sessions?limit=2&cursor=${page1.nextCursor}`, {
      headers: bearer(u.key),
    }).then((r) => r.json())) as { data: { id: string }[]; nextCursor: null };
    expect(page2.data.map((x) => x.id)).toEqual([ids[0]]);
    expect(page2.nextCursor).toBeNull();
    for (let i = 0; i < 2; i++) {
      const del = await fetch(`${base}/api/assistant/session/${ids[0]}`, {
        method: "DELETE",
        headers: bearer(u.key),
      });
      expect(del.status).toBe(204);
    }
    expect((await fetch(`${base}/api/assistant/session/${ids[0]}`, { headers: bearer(u.key) })).status).toBe(
      404,
    );
  });
});

async function activeRun(sessionId: string): Promise<string | null> {
  const res = await fetch(`${base}/api/assistant/session/${sessionId}`, { headers: bearer(c.key) });
  return ((await res.json()) as { activeRunId: string | null }).activeRunId;
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition not reached");
}
