// Per-account generation allowances: a limit on generations queued or running at once, daily
// limits by plan with a separate count of paid vendor generations (429 with Retry-After), and
// fairness across accounts (an account's n-th waiting generation queues behind every other
// account's first). No worker runs here: generations stay queued.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/client.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { post } from "./helpers.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: {
      // A vendor is configured (never reached: no worker), so generations are paid ones.
      FAL_KEY: "stand-in-key",
      FAL_QUEUE_URL: "https://127.0.0.1:9",
      IMAGE_WAIT_SEC: "0",
      GENERATION_MAX_ACTIVE_PER_ACCOUNT: "2",
      GENERATION_DAILY_STANDARD: "3",
      GENERATION_DAILY_PAID_STANDARD: "3",
      GENERATION_DAILY_PAID_UPGRADED: "1",
    },
  });
});
afterAll(() => t.close());

const image = (key: string) => post(t, key, "/api/v1/generate/image", { prompt: "a lighthouse" });
const cancel = (key: string, id: string) =>
  t.app.inject({ method: "DELETE", url: `/api/v1/generations/${id}`, headers: bearer(key) });

describe("generation allowances", () => {
  it("refuses an account's generation beyond its active limit with 429 and Retry-After, not another account's", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const first = await image(a.key);
    const second = await image(a.key);
    expect([first.statusCode, second.statusCode]).toEqual([202, 202]);
    const third = await image(a.key);
    expect(third.statusCode, third.body).toBe(429);
    expect(third.json().error).toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(/at most 2/),
    });
    expect(Number(third.headers["retry-after"])).toBeGreaterThan(0);
    expect((await image(b.key)).statusCode).toBe(202);
    // A cancelled one frees its place.
    expect((await cancel(a.key, first.json().id)).statusCode).toBe(200);
    expect((await image(a.key)).statusCode).toBe(202);
  });

  it("counts generations per UTC day by plan, and paid vendor generations separately", async () => {
    const standard = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await image(standard.key);
      expect(res.statusCode, res.body).toBe(202);
      ids.push(res.json().id);
      await cancel(standard.key, res.json().id);
    }
    const over = await image(standard.key);
    expect(over.statusCode, over.body).toBe(429);
    expect(over.json().error.message).toMatch(/3 generations of today \(standard plan\)/);
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(30);

    const upgraded = await t.createAccount({ plan: "upgraded" });
    expect((await image(upgraded.key)).statusCode).toBe(202);
    const paid = await image(upgraded.key);
    expect(paid.statusCode, paid.body).toBe(429);
    expect(paid.json().error.message).toMatch(/1 paid vendor generations of today/);

    const admin = await t.createAccount({ plan: "admin" });
    for (let i = 0; i < 2; i++) expect((await image(admin.key)).statusCode).toBe(202);
  });

  it("queues an account's n-th waiting generation at priority -n (fairness across accounts)", async () => {
    const a = await t.createAccount({ plan: "admin" });
    const b = await t.createAccount({ plan: "admin" });
    const a1 = (await image(a.key)).json().id;
    const a2 = (await image(a.key)).json().id;
    const b1 = (await image(b.key)).json().id;
    const rows = rowsOf<{ id: string; priority: number }>(
      await t.database.db.execute(
        sql`select data->>'generationId' as id, priority from pgboss.job where name = 'generation' and data->>'generationId' in (${a1}, ${a2}, ${b1})`,
      ),
    );
    const priority = Object.fromEntries(rows.map((r) => [r.id, Number(r.priority)]));
    expect(priority).toEqual({ [a1]: 0, [a2]: -1, [b1]: 0 });
  });
});
