import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSession } from "../../src/db/repositories/assistant.ts";
import { insertUser } from "../../src/db/repositories/users.ts";
import { applyEdit } from "../../src/domain/assistant/edit.ts";
import type { ToolContext } from "../../src/domain/assistant/tool-context.ts";
import { createComposition, patchComposition } from "../../src/domain/composition/edit-composition.ts";
import { DEFAULT_RENDER_LIMITS } from "../../src/domain/composition/limits.ts";
import type { Clip } from "../../src/domain/composition/schema.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let tdb: TestDatabase;
let ctx: ToolContext;
const events: { type: string; data: Record<string, unknown> }[] = [];
beforeAll(async () => {
  tdb = await createTestDatabase();
  const db = tdb.database.db;
  const user = await insertUser(db, { email: "edit-retry@example.test", name: "E", plan: "standard" });
  const now = new Date();
  const comp = await createComposition(
    { db, userId: user.id, now, author: { kind: "api" } },
    {
      name: "Retry",
      canvas: { width: 320, height: 180, fps: 30, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 2, asset: { type: "color", color: "#ff0000" } }] },
      ],
    },
  );
  const session = await insertSession(db, {
    userId: user.id,
    projectId: null,
    compositionId: comp.id,
    model: { provider: "offline", id: "command-v1", offline: true },
  });
  ctx = {
    db,
    store: undefined as never,
    enqueue: undefined as never,
    userId: user.id,
    sessionId: session.id,
    runId: "run_test",
    compositionId: comp.id,
    projectId: null,
    now: () => new Date(),
    signal: new AbortController().signal,
    paidGenerations: { started: 0, max: 2 },
    emit: async (type, data) => {
      events.push({ type, data });
    },
    generation: undefined,
    transcription: undefined,
    analysis: undefined,
    renderFollowMs: 0,
    renderPollMs: 0,
    renderLimits: DEFAULT_RENDER_LIMITS,
  };
});
afterAll(() => tdb.dispose());

describe("applyEdit under concurrent writes", () => {
  it("re-reads and re-applies the change on the new version when another write lands in between", async () => {
    let calls = 0;
    const result = await applyEdit(ctx, "call_1", "add_text", async (draft) => {
      calls++;
      if (calls === 1) {
        // Someone else writes between this tool's read and its write.
        await patchComposition(
          { db: ctx.db, userId: ctx.userId, now: new Date(), author: { kind: "api" } },
          {
            id: ctx.compositionId,
            patch: [{ op: "replace", path: "/name", value: "User rename" }],
            ifMatch: undefined,
          },
        );
      }
      (draft.tracks[0] as { clips: Clip[] }).clips.push({
        id: "clp_new",
        start: 2,
        duration: 1,
        asset: { type: "color", color: "#00ff00" },
      });
      return { summary: "added" };
    });
    expect(calls).toBe(2);
    expect(result.version).toBe(3);
    const patch = events.find((e) => e.type === "patch")?.data;
    expect(patch).toMatchObject({ baseVersion: 2, version: 3 });
    expect(JSON.stringify(patch?.ops)).not.toContain("User rename");
  });

  it("gives up with a clear version_conflict tool error when every attempt is overtaken", async () => {
    const attempt = applyEdit(ctx, "call_2", "move_clip", async (draft) => {
      await patchComposition(
        { db: ctx.db, userId: ctx.userId, now: new Date(), author: { kind: "api" } },
        {
          id: ctx.compositionId,
          patch: [{ op: "replace", path: "/name", value: `n${Math.random()}` }],
          ifMatch: undefined,
        },
      );
      draft.name = "Mine";
      return { summary: "renamed" };
    });
    await expect(attempt).rejects.toMatchObject({
      code: "version_conflict",
      message: expect.stringContaining("kept changing"),
    });
  });
});
