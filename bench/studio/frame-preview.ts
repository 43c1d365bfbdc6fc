/**
 * Studio preview benchmark, through the API (one process, worker inside, PostgreSQL):
 *
 *   node bench/studio/frame-preview.ts [--frames 40]
 *
 * On the 60 s reference composition (bench/render/reference-composition.ts: 1080p30, four
 * clips with transitions, a moving logo, a title, captions, ducked audio):
 * - `GET /api/compositions/:id/frame?width=640` at `--frames` distinct times spread over the
 *   timeline, one after another, uncached (each time is new): p50, p95, max in milliseconds;
 *   then the same times again (the cache): p95;
 * - "Play from here": `POST /api/render` of a 5 s draft range at 1080p from three playhead
 *   positions, time until the output is playable (the render succeeded), and its first frame.
 *
 * Needs PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres); a fresh database is created and dropped.
 * Prints a JSON summary; bench/README.md records the figures.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { connectApi, freshDatabase, startProcess, stopProcess, uploadAll } from "../processes.ts";
import { makeReferenceInputs, referenceComposition } from "../render/reference-composition.ts";

const SECONDS = 60;
const argv = process.argv.slice(2);
const FRAMES = Number(argv[argv.indexOf("--frames") + 1] ?? 40) || 40;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** The `q` quantile (0..1) of `xs`, nearest rank. */
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const { dir, cleanup } = await tempDir("cutroom-preview-");
  const database = await freshDatabase("cutroom_bench");
  const port = 39_000 + Math.floor(Math.random() * 1000);
  const api = startProcess("src/main/api.ts", {
    DATABASE_URL: database.url,
    DATA_DIR: path.join(dir, "data"),
    URL_SIGNING_SECRET: randomBytes(32).toString("hex"),
    PORT: String(port),
    WORKER_IN_PROCESS: "true",
    WORKER_CONCURRENCY: "1",
  });
  try {
    log("generating inputs…");
    const inputs = await makeReferenceInputs(dir, SECONDS);
    const { base, key, call } = await connectApi(api, port);
    const ids = await uploadAll(call, inputs);
    const comp = await call<{ id: string }>("POST", "/api/compositions", referenceComposition(ids, SECONDS));

    const frame = async (t: number) => {
      const started = performance.now();
      const res = await fetch(`${base}/api/compositions/${comp.id}/frame?t=${t}&width=640`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const bytes = (await res.arrayBuffer()).byteLength;
      if (!res.ok) throw new Error(`frame at ${t}: ${res.status}`);
      return { ms: performance.now() - started, bytes };
    };
    await frame(0.5); // warm-up: first ffmpeg spawn, font cache
    const times = Array.from(
      { length: FRAMES },
      (_, i) => Math.round((((i + 0.37) * (SECONDS - 1)) / FRAMES) * 1000) / 1000,
    );
    const cold: number[] = [];
    for (const t of times) cold.push((await frame(t)).ms);
    const warm: number[] = [];
    for (const t of times) warm.push((await frame(t)).ms);
    log(`frames: p50 ${quantile(cold, 0.5).toFixed(0)} ms, p95 ${quantile(cold, 0.95).toFixed(0)} ms`);

    const plays: Array<{ start: number; playableMs: number }> = [];
    for (const start of [3, 29.5, 52]) {
      const t0 = performance.now();
      let r = await call<{ id: string; status: string }>("POST", "/api/render", {
        compositionId: comp.id,
        output: { format: "mp4", quality: "draft", range: { start, duration: 5 } },
      });
      while (!["succeeded", "failed", "cancelled"].includes(r.status)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        r = await call<{ id: string; status: string }>("GET", `/api/render/${r.id}`);
      }
      if (r.status !== "succeeded") throw new Error(`play-from-here render ${r.status}`);
      plays.push({ start, playableMs: Math.round(performance.now() - t0) });
    }
    console.log(
      JSON.stringify(
        {
          composition: "reference 60 s 1080p30",
          frames: FRAMES,
          frameWidth: 640,
          uncached: {
            p50: Math.round(quantile(cold, 0.5)),
            p95: Math.round(quantile(cold, 0.95)),
            max: Math.round(Math.max(...cold)),
          },
          cached: { p95: Math.round(quantile(warm, 0.95) * 10) / 10 },
          playFromHere: plays,
        },
        null,
        2,
      ),
    );
  } finally {
    await stopProcess(api);
    await database.drop();
    await cleanup();
  }
}

await main();
