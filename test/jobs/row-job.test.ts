// The shared lifecycle of the row jobs (generations, transcriptions, auto-edits), through the
// generation kind: a job whose retries ran out fails its row with `worker_lost` and its end
// event once; a queue that refuses the job is a 503 and keeps no row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findGenerationById, type GenerationRow } from "../../src/db/repositories/generations.ts";
import { createImageGeneration } from "../../src/domain/generation/create.ts";
import { generationJobHandler } from "../../src/domain/generation/generation-job.ts";
import type { GenerationPipelineDeps } from "../../src/domain/generation/pipeline.ts";
import type { GenerationJobV1 } from "../../src/queue/catalog.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let owner: { userId: string };
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const clock = { now: () => new Date() };

describe("row jobs", () => {
  it("a job whose retries ran out fails its row with worker_lost and records its end event once", async () => {
    const db = t.database.db;
    const row = await createImageGeneration(
      { db, clock, generation: t.config.generation, enqueue: async () => {} },
      { userId: owner.userId, imageModel: null },
      { prompt: "a lost worker", imageSize: "square" },
    );
    const ended: GenerationRow[] = [];
    const pipeline = {
      db,
      clock,
      events: { generationEnded: async (_tx: unknown, g: GenerationRow) => void ended.push(g) },
    } as unknown as GenerationPipelineDeps;
    const handler = generationJobHandler({ pipeline, log: t.app.log as never, concurrency: 1 });
    const data: GenerationJobV1 = { v: 1, generationId: row.id };
    await handler.deadLetter?.(data);
    await handler.deadLetter?.(data);
    const failed = await findGenerationById(db, row.id);
    expect(failed).toMatchObject({
      status: "failed",
      error: {
        code: "worker_lost",
        message: "The worker running this generation stopped responding on every attempt",
      },
    });
    expect(ended.map((g) => [g.id, g.status])).toEqual([[row.id, "failed"]]);
  });

  it("a queue that refuses the job: 503 with Retry-After and no row", async () => {
    let sent: string | undefined;
    const failure = await createImageGeneration(
      {
        db: t.database.db,
        clock,
        generation: t.config.generation,
        enqueue: async (job) => {
          sent = (job.data as GenerationJobV1).generationId;
          throw new Error("queue down");
        },
      },
      { userId: owner.userId, imageModel: null },
      { prompt: "never queued", imageSize: "square" },
    ).catch((err: unknown) => err);
    expect(failure).toMatchObject({ status: 503, code: "unavailable", headers: { "Retry-After": "5" } });
    expect(sent).toMatch(/^gen_/);
    expect(await findGenerationById(t.database.db, sent as string)).toBeNull();
  });
});
