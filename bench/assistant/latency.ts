/**
 * Assistant latency through HTTP with the offline command model, against a real API process
 * (PGlite by default; PostgreSQL with `DATABASE_URL`):
 *
 * 1. one-edit command ("add a title 'Hi' at 1s for 2 seconds"), one run at a time, each on a
 *    fresh session: time from sending the POST to the first event (`session`) and to `done`;
 * 2. `--concurrent` runs at once on as many sessions: all must end with `done`; time to `done`;
 * 3. the same edit as a direct `PATCH /api/compositions/:id` (JSON Patch adding the same text
 *    clip): the assistant's overhead per tool is its time to `done` minus this.
 *
 *   node bench/assistant/latency.ts [--runs 100] [--concurrent 50]
 *
 * Targets: p95 < 50 ms to the first event, < 150 ms to `done`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createParser } from "eventsource-parser";
import { cliApiKey, startApi, stopProcess } from "../processes.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "100" }, concurrent: { type: "string", default: "50" } },
});
const runs = Number(values.runs);
const concurrent = Number(values.concurrent);
const dataDir = mkdtempSync(path.join(tmpdir(), "cutroom-assistant-bench-"));
const env = { DATA_DIR: dataDir, ASSISTANT_MODEL: "offline" };
const key = cliApiKey(env, "admin", "read,write");
const api = await startApi(env, { inheritEnv: true });
const { base } = api;
const auth = { authorization: `Bearer ${key}` };
const json = { ...auth, "content-type": "application/json" };
const COMMAND = "add a title 'Hi' at 1s for 2 seconds";

async function newSession(): Promise<{ id: string; compositionId: string }> {
  const res = await fetch(`${base}/api/assistant/session`, { method: "POST", headers: json, body: "{}" });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; compositionId: string };
}

/** One orchestrator run: ms to the first event and to the terminal one, and that event. */
async function run(sessionId: string): Promise<{ first: number; done: number; terminal: string }> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/assistant/orchestrator`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ sessionId, message: COMMAND }),
  });
  let first = 0;
  let done = 0;
  let terminal = "";
  const parser = createParser({
    onEvent: (e) => {
      if (!first) first = performance.now() - t0;
      if (e.event === "done" || e.event === "error") {
        done = performance.now() - t0;
        terminal = e.event === "done" ? e.event : `error ${e.data}`;
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  return { first, done, terminal };
}

async function directPatch(compositionId: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/compositions/${compositionId}`, {
    method: "PATCH",
    headers: { ...auth, "content-type": "application/json-patch+json" },
    body: JSON.stringify([
      {
        op: "add",
        path: "/tracks/-",
        value: {
          kind: "video",
          name: "Text",
          clips: [
            {
              start: 1,
              duration: 2,
              asset: {
                type: "text",
                text: "Hi",
                style: { family: "DejaVu Sans", size: 90, color: "#ffffff" },
              },
            },
          ],
        },
      },
    ]),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`PATCH ${res.status}`);
  return performance.now() - t0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};
const fmt = (x: number) => x.toFixed(1);

try {
  for (let i = 0; i < 10; i++) await run((await newSession()).id);
  const firsts: number[] = [];
  const dones: number[] = [];
  const patches: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = await newSession();
    const r = await run(s.id);
    if (r.terminal !== "done") throw new Error(`run ended with ${r.terminal}`);
    firsts.push(r.first);
    dones.push(r.done);
    patches.push(await directPatch((await newSession()).compositionId));
  }
  console.log(
    `database: ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(`one-edit command, ${runs} sequential runs (fresh session each):`);
  console.log(
    `  POST → first event  p50 ${fmt(pct(firsts, 50))} ms  p95 ${fmt(pct(firsts, 95))} ms  (target p95 < 50 ms: ${pct(firsts, 95) < 50 ? "met" : "NOT met"})`,
  );
  console.log(
    `  POST → done         p50 ${fmt(pct(dones, 50))} ms  p95 ${fmt(pct(dones, 95))} ms  (target p95 < 150 ms: ${pct(dones, 95) < 150 ? "met" : "NOT met"})`,
  );
  console.log(`  direct PATCH, same edit  p50 ${fmt(pct(patches, 50))} ms  p95 ${fmt(pct(patches, 95))} ms`);
  console.log(
    `  assistant overhead per tool (done − PATCH)  p50 ${fmt(pct(dones, 50) - pct(patches, 50))} ms`,
  );

  const sessions = await Promise.all(Array.from({ length: concurrent }, () => newSession()));
  const t0 = performance.now();
  const results = await Promise.all(sessions.map((s) => run(s.id)));
  const wall = performance.now() - t0;
  const ok = results.filter((r) => r.terminal === "done").length;
  const cd = results.map((r) => r.done);
  console.log(
    `${concurrent} concurrent runs on ${concurrent} sessions: ${ok}/${concurrent} done in ${fmt(wall)} ms`,
  );
  console.log(
    `  POST → first event p95 ${fmt(
      pct(
        results.map((r) => r.first),
        95,
      ),
    )} ms; POST → done p50 ${fmt(pct(cd, 50))} ms  p95 ${fmt(pct(cd, 95))} ms  max ${fmt(Math.max(...cd))} ms`,
  );
  if (ok !== concurrent) process.exitCode = 1;
} finally {
  await stopProcess(api.proc);
  rmSync(dataDir, { recursive: true, force: true });
}
