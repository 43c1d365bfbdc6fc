import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { client, type RenderBody, tinyCanvas } from "./helpers.ts";

// No worker here: renders stay queued, so the routes can be checked without ffmpeg.
let t: TestApp;
let base: string;
let owner: { userId: string; key: string };
let api: ReturnType<typeof client>;
let other: ReturnType<typeof client>;

const composition = (name = "c") => ({
  name,
  canvas: tinyCanvas(25),
  tracks: [{ kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#ff0000" } }] }],
});

beforeAll(async () => {
  // No worker: renders stay queued, so one account keeps more of them than the default allows.
  t = await startTestApp({ env: { RENDER_MAX_ACTIVE_PER_ACCOUNT: "100" } });
  base = await t.listen();
  owner = await t.createAccount();
  api = client(base, owner.key);
  other = client(base, (await t.createAccount()).key);
});
afterAll(() => t.close());

describe("render routes", () => {
  it("POST answers 202 with a queued render, a Location and Retry-After, and so does GET", async () => {
    const comp = await api.createComposition(composition());
    const res = await api.json("POST", "/api/render", { compositionId: comp.id });
    expect(res.status).toBe(202);
    expect(res.headers.get("location")).toBe(`/api/render/${res.body.id}`);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.body).toMatchObject({
      compositionId: comp.id,
      compositionVersion: 1,
      status: "queued",
      attempt: 0,
      output: null,
      error: null,
      warnings: [],
      startedAt: null,
      finishedAt: null,
    });
    const got = await api.getRender(res.body.id);
    expect(got.status).toBe(200);
    expect(got.headers.get("retry-after")).toBe("1");
  });

  it("a stale compositionVersion is a 409 version_conflict carrying the current version", async () => {
    const comp = await api.createComposition(composition());
    const put = await api.json("PUT", `/api/compositions/${comp.id}`, { ...comp, name: "v2", version: 1 });
    expect(put.status).toBe(200);
    const stale = await api.json("POST", "/api/render", { compositionId: comp.id, compositionVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "version_conflict", currentVersion: 2 });
    const ok = await api.json("POST", "/api/render", { compositionId: comp.id, compositionVersion: 2 });
    expect(ok.status).toBe(202);
    expect(ok.body.compositionVersion).toBe(2);
  });

  it("Idempotency-Key: same body → the same render (200, Idempotent-Replayed); other body → 409", async () => {
    const comp = await api.createComposition(composition());
    const body = { compositionId: comp.id, output: { format: "mp4", quality: "draft" } };
    const key = { "idempotency-key": `k-${Date.now()}` };
    const first = await api.json("POST", "/api/render", body, key);
    expect(first.status).toBe(202);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // Same body with its keys in another order is the same request.
    const again = await api.json(
      "POST",
      "/api/render",
      { output: { quality: "draft", format: "mp4" }, compositionId: comp.id },
      key,
    );
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    const conflict = await api.json(
      "POST",
      "/api/render",
      { ...body, output: { format: "webm", quality: "draft" } },
      key,
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: "conflict", renderId: first.body.id });
    // The key is per owner: another user may use the same key.
    const otherComp = await other.createComposition(composition());
    const theirs = await other.json("POST", "/api/render", { compositionId: otherComp.id }, key);
    expect(theirs.status).toBe(202);
    expect(theirs.body.id).not.toBe(first.body.id);
    // Concurrent first uses of a new key create exactly one render.
    const raceKey = { "idempotency-key": `race-${Date.now()}` };
    const raced = await Promise.all(
      Array.from({ length: 5 }, () => api.json("POST", "/api/render", body, raceKey)),
    );
    expect(new Set(raced.map((r) => r.body.id)).size).toBe(1);
    expect(raced.filter((r) => r.status === 202)).toHaveLength(1);
  });

  it("another owner's render and composition are 404s; a read-only key gets 403 on POST and DELETE", async () => {
    const comp = await api.createComposition(composition());
    const r = await api.startRender({ compositionId: comp.id });
    expect((await other.getRender(r.id)).status).toBe(404);
    expect((await other.json("DELETE", `/api/render/${r.id}`)).status).toBe(404);
    expect((await other.json("POST", "/api/render", { compositionId: comp.id })).status).toBe(404);
    expect((await other.json("GET", "/api/render")).body.data.map((x: RenderBody) => x.id)).not.toContain(
      r.id,
    );
    expect((await api.json("POST", "/api/render", { compositionId: "cmp_missing" })).status).toBe(404);

    const reader = client(base, (await t.addKey(owner.userId, ["read"])).key);
    const post = await reader.json("POST", "/api/render", { compositionId: comp.id });
    expect(post.status).toBe(403);
    expect(post.body.error.code).toBe("insufficient_scope");
    const del = await reader.json("DELETE", `/api/render/${r.id}`);
    expect(del.status).toBe(403);
    expect(del.body.error.code).toBe("insufficient_scope");
    expect((await reader.getRender(r.id)).status).toBe(200);
    expect((await api.getRender(r.id)).body.status).toBe("queued");
  });

  it("rejects an empty composition, bad output options and unknown fields with 400", async () => {
    const empty = await api.createComposition({ ...composition(), tracks: [] });
    const res = await api.json("POST", "/api/render", { compositionId: empty.id });
    expect(res.status).toBe(400);
    const comp = await api.createComposition(composition());
    for (const output of [
      { format: "mov" },
      { format: "jpg", frameAt: 5 },
      { format: "mp4", frameAt: 0 },
      { width: 15 },
    ]) {
      const bad = await api.json("POST", "/api/render", { compositionId: comp.id, output });
      expect(bad.status, JSON.stringify(output)).toBe(400);
    }
    const extra = await api.json("POST", "/api/render", { compositionId: comp.id, priority: 1 });
    expect(extra.status).toBe(400);
  });

  it("DELETE on a queued render cancels it at once (200); again is 200", async () => {
    const comp = await api.createComposition(composition());
    const r = await api.startRender({ compositionId: comp.id });
    const del = await api.json("DELETE", `/api/render/${r.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ status: "cancelled", output: null, error: null });
    expect(del.body.progress.phase).toBe("done");
    expect(del.body.finishedAt).not.toBeNull();
    const got = await api.getRender(r.id);
    expect(got.headers.get("retry-after")).toBeNull();
    const again = await api.json("DELETE", `/api/render/${r.id}`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("cancelled");
    expect((await api.json("DELETE", "/api/render/rnd_01JD3Q5V0M8YB6Y2J4T6Z9KX1C")).status).toBe(404);
  });

  it("GET /api/render/:id/events is 410 gone with the error body pointing at polling", async () => {
    const comp = await api.createComposition(composition());
    const r = await api.startRender({ compositionId: comp.id });
    const res = await fetch(`${base}/api/render/${r.id}/events`, { headers: bearer(owner.key) });
    expect(res.status).toBe(410);
    const body = (await res.json()) as { error: { code: string; message: string; requestId: string } };
    expect(body.error.code).toBe("gone");
    expect(body.error.message).toContain(`GET /api/render/${r.id}`);
    expect(body.error.requestId).toBeTruthy();
  });

  it("lists newest first with status and compositionId filters and cursor pagination", async () => {
    const a = await api.createComposition(composition("a"));
    const b = await api.createComposition(composition("b"));
    const made: RenderBody[] = [];
    for (const c of [a, b, a, b, a]) made.push(await api.startRender({ compositionId: c.id }));
    await api.json("DELETE", `/api/render/${made[0]?.id}`);
    await api.json("DELETE", `/api/render/${made[3]?.id}`);

    const ofA = await api.json("GET", `/api/render?compositionId=${a.id}`);
    expect(ofA.status).toBe(200);
    expect(ofA.body.data.map((r: RenderBody) => r.id)).toEqual([made[4]?.id, made[2]?.id, made[0]?.id]);
    const cancelledOfB = await api.json("GET", `/api/render?compositionId=${b.id}&status=cancelled`);
    expect(cancelledOfB.body.data.map((r: RenderBody) => r.id)).toEqual([made[3]?.id]);
    const queued = await api.json("GET", "/api/render?status=queued&limit=100");
    const queuedIds = queued.body.data.map((r: RenderBody) => r.id);
    expect(queuedIds).toEqual(expect.arrayContaining([made[1]?.id, made[2]?.id, made[4]?.id]));
    expect(queuedIds).not.toContain(made[0]?.id);
    expect(queued.body.data.every((r: RenderBody) => r.status === "queued")).toBe(true);

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: RenderBody[]; nextCursor: string | null } } =
        await api.json("GET", `/api/render?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      pages.push(page.body.data.map((r) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = pages.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual([...all].sort().reverse());
    const everything = await api.json("GET", "/api/render?limit=100");
    expect(all).toEqual(everything.body.data.map((r: RenderBody) => r.id));
    expect((await api.json("GET", "/api/render?cursor=bogus")).status).toBe(400);
    expect((await api.json("GET", "/api/render?status=running")).status).toBe(400);
  });
});
