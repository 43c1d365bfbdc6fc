// The assistant's "undo" on composition versions, through HTTP: it reverts to the version before
// its last edit (a `revert` version of the run, as POST …/revert writes), step by step, and
// undoes only its own change when someone else wrote since.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type AssistantClient, assistantClient, chatTurn, ofType } from "./helpers.ts";

let t: TestApp;
let c: AssistantClient;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  base = await t.listen();
  c = await assistantClient(t, base);
}, 120_000);
afterAll(() => t.close());

interface Version {
  version: number;
  author: { kind: string; runId?: string };
  summary: string;
}

async function versions(compositionId: string): Promise<Version[]> {
  const res = await fetch(`${base}/api/compositions/${compositionId}/versions`, { headers: bearer(c.key) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Version[] }).data;
}

async function diff(compositionId: string, to: number, from: number): Promise<unknown[]> {
  const res = await fetch(`${base}/api/compositions/${compositionId}/versions/${to}/diff?from=${from}`, {
    headers: bearer(c.key),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { patch: unknown[] }).patch;
}

const texts = (comp: Record<string, unknown>) =>
  (comp.tracks as { clips: { asset: { text?: string } }[] }[]).flatMap((tr) =>
    tr.clips.map((x) => x.asset.text),
  );

describe("the assistant's undo", () => {
  it("reverts to the version before its last edit, then the one before that", async () => {
    const s = await c.session();
    await chatTurn(c, s, "add a title 'One' at 0s for 2 seconds");
    const two = await chatTurn(c, s, "add a title 'Two' at 3s for 2 seconds");
    expect(two.after.version).toBe(3);

    const first = await chatTurn(c, s, "undo");
    expect(ofType(first.events, "tool_result")[0]?.data).toMatchObject({ ok: true, name: "undo" });
    expect(first.after.version).toBe(4);
    expect(texts(first.after)).toEqual(["One"]);
    const run = ofType(first.events, "session")[0]?.data.runId;
    const [newest] = await versions(s.compositionId);
    expect(newest).toEqual({
      version: 4,
      author: { kind: "revert", runId: run },
      summary: "reverted to version 2",
      createdAt: expect.any(String),
      patch: expect.any(Array),
    });
    expect(await diff(s.compositionId, 4, 2)).toEqual([]);

    // Undo again: the document is version 2's, so it goes back to the version before that edit.
    const second = await chatTurn(c, s, "undo");
    expect(second.after.version).toBe(5);
    expect(texts(second.after)).toEqual([]);
    expect((await versions(s.compositionId))[0]).toMatchObject({
      version: 5,
      author: { kind: "revert" },
      summary: "reverted to version 1",
    });
    expect(await diff(s.compositionId, 5, 1)).toEqual([]);

    const none = await chatTurn(c, s, "undo");
    expect(ofType(none.events, "tool_result")[0]?.data).toMatchObject({
      ok: false,
      error: { code: "nothing_to_undo" },
    });
    expect(none.after.version).toBe(5);
  });

  it("keeps a later edit made elsewhere: only its own change is undone", async () => {
    const s = await c.session();
    await chatTurn(c, s, "add a title 'Mine' at 0s for 2 seconds");
    const renamed = await fetch(`${base}/api/compositions/${s.compositionId}`, {
      method: "PATCH",
      headers: { ...bearer(c.key), "content-type": "application/json-patch+json" },
      body: JSON.stringify([{ op: "replace", path: "/name", value: "Theirs" }]),
    });
    expect(renamed.status).toBe(200);

    const r = await chatTurn(c, s, "undo");
    expect(r.after.version).toBe(4);
    expect(r.after.name).toBe("Theirs");
    expect(texts(r.after)).toEqual([]);
    expect((await versions(s.compositionId))[0]?.author.kind).toBe("assistant");
  });
});
