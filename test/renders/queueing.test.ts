import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRenderById } from "../../src/db/repositories/renders.ts";
import { startRender } from "../../src/domain/render-jobs/start-render.ts";
import { JOBS, type RenderJobV1 } from "../../src/queue/catalog.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas } from "./helpers.ts";

// No worker: the queue is read directly to see the order workers would take renders in.
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  base = await t.listen();
});
afterAll(() => t.close());

const composition = {
  name: "q",
  canvas: tinyCanvas(25),
  tracks: [{ kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#00ff00" } }] }],
};

describe("render queueing", () => {
  it("workers take accounts' renders in turn: another account's render is not behind a backlog", async () => {
    const busy = client(base, (await t.createAccount()).key);
    const small = client(base, (await t.createAccount()).key);
    const busyComp = await busy.createComposition(composition);
    const backlog: string[] = [];
    for (let i = 0; i < 5; i++) backlog.push((await busy.startRender({ compositionId: busyComp.id })).id);
    const smallComp = await small.createComposition(composition);
    const mine = (await small.startRender({ compositionId: smallComp.id })).id;

    // One at a time, as a worker with one free slot takes them.
    const order: string[] = [];
    for (;;) {
      const [job] = await t.runtime.queue.fetch<RenderJobV1>(JOBS.render.name);
      if (!job) break;
      order.push(job.data.renderId);
    }
    expect(order).toHaveLength(6);
    expect(order.indexOf(mine)).toBe(1); // after the backlog's first only
    expect(order.filter((id) => id !== mine)).toEqual(backlog);
  });

  it("a queue that refuses the job: 503 and no render row (the insert is rolled back)", async () => {
    const account = await t.createAccount();
    const comp = await client(base, account.key).createComposition(composition);
    let sentInside: string | undefined;
    const failure = await startRender(
      {
        db: t.database.db,
        now: new Date(),
        userId: account.userId,
        limits: t.config.renderLimits,
        enqueue: async (job) => {
          sentInside = (job.data as RenderJobV1).renderId;
          throw new Error("queue down");
        },
      },
      { body: { compositionId: comp.id }, idempotencyKey: undefined },
    ).catch((err: unknown) => err);
    expect(failure).toMatchObject({ status: 503, code: "unavailable", headers: { "Retry-After": "5" } });
    expect(sentInside).toMatch(/^rnd_/);
    expect(await findRenderById(t.database.db, sentInside as string)).toBeNull();
  });
});
