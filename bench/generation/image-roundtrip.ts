// Image generation round trip through the API against the fal queue stand-in: the time of
// POST /api/v1/generate/image → 201 minus the stand-in's own time (submit received → COMPLETED
// answered), per image, with the in-process worker. Also times storing one output alone
// (ingest: sniff, store, image size and poster) to show where the overhead goes.
// Usage: node bench/generation/image-roundtrip.ts [--n 20]

import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { findGenerationById } from "../../src/db/repositories/generations.ts";
import { createStoreOutputs } from "../../src/domain/generation/store-outputs.ts";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { startTestApp } from "../../test/helpers/app.ts";
import { startFalStandIn } from "../../test/helpers/fal-stand-in.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "20" } } });
const n = Number(values.n);
const standIn = await startFalStandIn();
// Completed on the first status poll: the stand-in's own time is just its answers.
standIn.pollsBeforeDone = 0;
const t = await startTestApp({
  worker: true,
  env: { FAL_KEY: "bench-key", FAL_QUEUE_URL: standIn.url, LOG_LEVEL: "warn" },
});
const tmp = await tempDir("cutroom-gen-bench-");
try {
  const { key, userId } = await t.createAccount();
  const totals: number[] = [];
  const overheads: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const t0 = performance.now();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/generate/image",
      headers: { authorization: `Bearer ${key}` },
      payload: { prompt: `bench ${i}`, imageSize: "square" },
    });
    const total = performance.now() - t0;
    if (res.statusCode !== 201) throw new Error(`unexpected ${res.statusCode}: ${res.body}`);
    const r = standIn.requests.at(-1);
    const own = (r?.completedAt ?? 0) - (r?.submittedAt ?? 0);
    if (i < 2) continue; // warm-up
    totals.push(total);
    overheads.push(total - own);
  }
  const file = path.join(tmp.dir, "out.png");
  await writeFile(file, standIn.png);
  const store = createStoreOutputs({ db: t.database.db, store: t.runtime.store, maxBytes: 1 << 30 });
  const storeTimes: number[] = [];
  const anyGeneration = (
    await t.app.inject({ url: "/api/v1/generations?limit=1", headers: { authorization: `Bearer ${key}` } })
  ).json().data[0];
  const row = await findGenerationById(t.database.db, anyGeneration.id);
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    await store({ ...(row as NonNullable<typeof row>), userId }, [{ path: file }]);
    storeTimes.push(performance.now() - t0);
  }
  const pct = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;
  console.log(`${n} images, 1 per request, in-process worker, PGlite, local storage`);
  console.log(`round trip p50 ${pct(totals, 0.5).toFixed(0)} ms, p95 ${pct(totals, 0.95).toFixed(0)} ms`);
  console.log(
    `overhead over the stand-in's own time: p50 ${pct(overheads, 0.5).toFixed(0)} ms, p95 ${pct(overheads, 0.95).toFixed(0)} ms (target < 150 ms: ${pct(overheads, 0.5) < 150 ? "met" : "NOT met"})`,
  );
  console.log(
    `of which storing the output as an upload (sniff, store, size, poster): p50 ${pct(storeTimes, 0.5).toFixed(0)} ms`,
  );
  console.log(`load average ${loadavg()[0]?.toFixed(1)}`);
} finally {
  await t.close();
  await standIn.close();
  await tmp.cleanup();
}
