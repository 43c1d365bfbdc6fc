import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/client.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas } from "./helpers.ts";

// No worker: renders stay queued, so "active" renders are the ones started here.
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({
    env: {
      RENDER_MAX_FPS: "30",
      RENDER_MAX_DURATION_SEC: "100",
      RENDER_MAX_ACTIVE_PER_ACCOUNT: "2",
      RENDER_MINUTES_STANDARD_DAILY: "1",
      RENDER_MINUTES_UPGRADED_DAILY: "3",
    },
  });
  base = await t.listen();
});
afterAll(() => t.close());

/** A composition `seconds` long (one color clip). */
const timeline = (seconds: number) => ({
  name: "limits",
  canvas: tinyCanvas(25),
  tracks: [
    { kind: "video", clips: [{ start: 0, duration: seconds, asset: { type: "color", color: "#00ff00" } }] },
  ],
});

async function account(plan: "standard" | "upgraded" | "admin" = "standard") {
  const created = await t.createAccount({ plan });
  return { ...created, api: client(base, created.key) };
}

async function renderSecondsCounted(userId: string): Promise<number> {
  const rows = rowsOf(
    await t.database.db.execute(
      sql`select count from quota_counters where subject = ${`render-sec:${userId}`}`,
    ),
  ) as { count: number }[];
  return Number(rows[0]?.count ?? 0);
}

describe("render cost limits at render start", () => {
  it("refuses output overrides over a limit with 400 naming the field, and starts nothing", async () => {
    const { api, userId } = await account("admin");
    const comp = await api.createComposition(timeline(10));
    const cases: [unknown, string, RegExp][] = [
      [{ width: 4096, height: 90 }, "/output/width", /at most 3840 pixels/],
      [{ width: 3840, height: 3840 }, "/output/height", /8294400/],
      [{ fps: 50 }, "/output/fps", /at most 30 frames per second/],
    ];
    for (const [output, path, message] of cases) {
      const res = await api.json("POST", "/api/render", { compositionId: comp.id, output });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
    expect((await api.json("GET", "/api/render")).body.data).toEqual([]);
    expect(await renderSecondsCounted(userId)).toBe(0);
  });

  it("a stored composition over the length limit is refused as a whole, a range within it renders", async () => {
    const { api } = await account("admin");
    const comp = await api.createComposition(timeline(90));
    // Limits lowered after the composition was saved: the render start still holds the line.
    await t.database.db.execute(
      sql`update compositions set document = jsonb_set(document, '{canvas,duration}', '150') where id = ${comp.id}`,
    );
    const whole = await api.json("POST", "/api/render", { compositionId: comp.id });
    expect(whole.status).toBe(400);
    expect(whole.body.error.details).toEqual([
      {
        path: "/compositionId",
        message: expect.stringMatching(/timeline: the timeline is 150 s long; at most 100 s/),
      },
    ]);
    const range = await api.json("POST", "/api/render", {
      compositionId: comp.id,
      output: { range: { start: 0, duration: 200 } },
    });
    expect(range.status).toBe(400);
    expect(range.body.error.details[0].path).toBe("/output/range/duration");
    await api.startRender({ compositionId: comp.id, output: { range: { start: 10, duration: 60 } } });
  });
});

describe("per-account render allowances", () => {
  it("at most RENDER_MAX_ACTIVE_PER_ACCOUNT renders queued or running: 429 with a clear message, other accounts unaffected", async () => {
    const { api } = await account("admin");
    const other = await account("admin");
    const comp = await api.createComposition(timeline(1));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => api.json("POST", "/api/render", { compositionId: comp.id })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 429, 429, 429, 429]);
    const refused = results.find((r) => r.status === 429);
    expect(refused?.body.error.code).toBe("rate_limited");
    expect(refused?.body.error.message).toMatch(/2 renders of this account are queued or running; at most 2/);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);

    const otherComp = await other.api.createComposition(timeline(1));
    await other.api.startRender({ compositionId: otherComp.id });

    // Cancelling one frees a place.
    const first = results.find((r) => r.status === 202)?.body.id;
    expect((await api.json("DELETE", `/api/render/${first}`)).status).toBeLessThan(300);
    await api.startRender({ compositionId: comp.id });
  });

  it("standard accounts render RENDER_MINUTES_STANDARD_DAILY of timeline per day: 429 naming the limit, refusals cost nothing", async () => {
    const { api, userId } = await account("standard");
    const comp = await api.createComposition(timeline(40));
    await api.startRender({ compositionId: comp.id });
    expect(await renderSecondsCounted(userId)).toBe(40);

    const over = await api.json("POST", "/api/render", { compositionId: comp.id });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(over.body.error.message).toMatch(/daily render allowance of 1 minutes.*standard plan/);
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await renderSecondsCounted(userId)).toBe(40);

    // What is left (20 s) can still be used, and a still costs no render seconds.
    const rest = await api.startRender({
      compositionId: comp.id,
      output: { range: { start: 0, duration: 20 } },
    });
    expect(await renderSecondsCounted(userId)).toBe(60);
    // Started renders stay counted when cancelled.
    expect((await api.json("DELETE", `/api/render/${rest.id}`)).status).toBeLessThan(300);
    await api.startRender({ compositionId: comp.id, output: { format: "jpg", frameAt: 1 } });
    expect(await renderSecondsCounted(userId)).toBe(60);
  });

  it("upgraded accounts get their own allowance and admin accounts are unlimited", async () => {
    const upgraded = await account("upgraded");
    const comp = await upgraded.api.createComposition(timeline(90));
    await upgraded.api.startRender({ compositionId: comp.id });
    await upgraded.api.startRender({ compositionId: comp.id });
    expect(await renderSecondsCounted(upgraded.userId)).toBe(180);
    await upgraded.api.json(
      "DELETE",
      `/api/render/${(await upgraded.api.json("GET", "/api/render")).body.data[0].id}`,
    );
    const over = await upgraded.api.json("POST", "/api/render", { compositionId: comp.id });
    expect(over.status).toBe(429);
    expect(over.body.error.message).toMatch(/3 minutes.*upgraded plan/);

    const admin = await account("admin");
    const adminComp = await admin.api.createComposition(timeline(100));
    await admin.api.startRender({ compositionId: adminComp.id });
    await admin.api.startRender({ compositionId: adminComp.id });
    expect(await renderSecondsCounted(admin.userId)).toBe(0);
  });
});

describe("documentation of the limits", () => {
  it("the OpenAPI document describes the 400 and 429 of render start and the 400 of composition writes", async () => {
    const res = await fetch(`${base}/api/v1/openapi.json`);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const start = doc.paths["/api/render"]?.post?.responses ?? {};
    expect(start["400"]?.description).toMatch(
      /RENDER_MAX_WIDTH.*RENDER_MAX_FPS.*RENDER_MAX_DURATION_SEC.*COMPOSITION_MAX_CLIPS/s,
    );
    expect(start["429"]?.description).toMatch(
      /RENDER_MAX_ACTIVE_PER_ACCOUNT.*RENDER_MINUTES_STANDARD_DAILY/s,
    );
    for (const [path, method] of [
      ["/api/compositions", "post"],
      ["/api/compositions/{id}", "put"],
      ["/api/compositions/{id}", "patch"],
    ] as const) {
      expect(doc.paths[path]?.[method]?.responses["400"]?.description, `${method} ${path}`).toMatch(
        /COMPOSITION_MAX_CLIPS/,
      );
    }
  });
});
