import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEnqueue } from "../../src/queue/enqueue.ts";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { checkJobHandlers, createJobQueues, defineJob, startJobWorkers } from "../../src/queue/registry.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { waitFor } from "../renders/helpers.ts";

/** A job kind that is not a render: the registry and enqueue know nothing job-specific. */
const THUMB = defineJob<{ v: 1; thumbId: string }>("test_thumb", {
  retryLimit: 1,
  retryDelay: 1,
  deadLetter: true,
});
const KINDS = { thumb: THUMB };

let testDb: TestDatabase;
let boss: Queue;
beforeAll(async () => {
  testDb = await createTestDatabase();
  boss = await startQueue(testDb.database);
  await createJobQueues(boss, KINDS);
  await testDb.database.db.execute(sql`create table test_thumbs (id text primary key)`);
});
afterAll(async () => {
  await boss.stop({ graceful: false });
  await testDb.dispose();
});

describe("job registry and enqueue", () => {
  it("start-up refuses a queue without a handler or a dead-letter handler", async () => {
    expect(() => checkJobHandlers(KINDS, {})).toThrow(/queue "test_thumb" has no handler/);
    expect(() => checkJobHandlers(KINDS, { thumb: { run: async () => {} } })).toThrow(
      /queue "test_thumb_dead" has no dead-letter handler/,
    );
    expect(() =>
      checkJobHandlers(KINDS, {
        thumb: { run: async () => {}, deadLetter: async () => {} },
        other: { run: async () => {} },
      }),
    ).toThrow(/handler "other" names no job kind/);
    await expect(startJobWorkers(boss, KINDS, {} as never)).rejects.toThrow(/has no handler/);
  });

  it("a job sent inside a transaction exists only if the transaction commits", async () => {
    const { db } = testDb.database;
    const enqueue = createEnqueue(boss);
    const ran: string[] = [];
    const stop = await startJobWorkers(boss, KINDS, {
      thumb: {
        run: async (data) => {
          ran.push(data.thumbId);
        },
        deadLetter: async () => {},
        pollingIntervalSeconds: 0.5,
      },
    });
    try {
      await expect(
        db.transaction(async (tx) => {
          await tx.execute(sql`insert into test_thumbs values ('thm_rolled_back')`);
          await enqueue({ job: THUMB, data: { v: 1, thumbId: "thm_rolled_back" } }, tx);
          throw new Error("the insert's transaction fails after the send");
        }),
      ).rejects.toThrow(/fails after the send/);

      await db.transaction(async (tx) => {
        await tx.execute(sql`insert into test_thumbs values ('thm_committed')`);
        await enqueue({ job: THUMB, data: { v: 1, thumbId: "thm_committed" } }, tx);
      });
      await waitFor(async () => ran.includes("thm_committed") || null, 30_000);
      const rows = await db.execute(sql`select id from test_thumbs order by id`);
      expect((rows as unknown as { rows: { id: string }[] }).rows.map((r) => r.id)).toEqual([
        "thm_committed",
      ]);
      expect(ran).toEqual(["thm_committed"]);
    } finally {
      await stop();
    }
  });
});
