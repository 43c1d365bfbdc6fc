/**
 * Incremental renders, end to end through the API with one worker process:
 *
 *   node bench/render/incremental.ts [--seconds 60] [--segment-sec 10]
 *
 * The reference composition (`reference-composition.ts`: 1920x1080 at 30 fps, camera-like
 * clips with transitions, a logo, a title, captions, voice and music) with a 4 s lower third
 * on its own track, rendered (`standard` mp4, split every `--segment-sec`) three times in one
 * run by the same account:
 * - first: nothing cached;
 * - one-clip change: the lower third retitled (the segments it shows in are rendered again);
 * - no change: the same composition again (every part copied).
 * Printed: the wall time of each (the render's createdAt → finishedAt), the ratios of the
 * second and third to the first (targets for a 10-minute composition: ≤ 0.10 and ≤ 0.03), each
 * render's `reuse`, and the load average before and after.
 *
 * Needs PostgreSQL (separate processes): BENCH_DATABASE_URL or TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres); a fresh database is created and dropped.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { loadAverage, numberFlag } from "../cli.ts";
import {
  apiClient,
  freshDatabase,
  type Proc,
  startApi,
  startWorker,
  stopProcess,
  uploadAll,
  waitForPreviewProxies,
} from "../processes.ts";
import { makeReferenceInputs, referenceComposition } from "./reference-composition.ts";

const SECONDS = numberFlag("--seconds", 60);
const SEGMENT_SEC = numberFlag("--segment-sec", 10);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const load = loadAverage;

interface RenderBody {
  id: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  error: unknown;
  segments: { total: number; done: number } | null;
  reuse: { segments: number; reused: number; secondsSaved: number } | null;
}

/** The reference composition with a 4 s lower third reading `title`, a third of the way in. */
function withLowerThird(ids: Record<string, string>, title: string) {
  const doc = referenceComposition(ids, SECONDS);
  const start = Math.round(SECONDS / 3);
  return {
    ...doc,
    tracks: [
      ...doc.tracks,
      {
        id: "lower-third",
        kind: "video",
        clips: [
          {
            id: "lt",
            start,
            duration: 4,
            asset: {
              type: "text",
              text: title,
              style: { family: "DejaVu Sans", size: 48, valign: "bottom" },
            },
            transform: { x: 0.3, y: 0.85, width: 0.5, height: 0.12 },
          },
        ],
      },
    ],
  };
}

/** Renders an inline composition (standard mp4) and polls it to the end. */
async function render(call: ReturnType<typeof apiClient>, composition: unknown): Promise<RenderBody> {
  const r = await call<RenderBody>("POST", "/api/render", {
    composition,
    output: { format: "mp4", quality: "standard" },
  });
  let got = r;
  while (!["succeeded", "failed", "cancelled"].includes(got.status)) {
    await new Promise((res) => setTimeout(res, 200));
    got = await call<RenderBody>("GET", `/api/render/${r.id}`);
  }
  if (got.status !== "succeeded") throw new Error(`render ${got.status}: ${JSON.stringify(got.error)}`);
  return got;
}

const wall = (r: RenderBody) =>
  (new Date(r.finishedAt ?? 0).getTime() - new Date(r.createdAt).getTime()) / 1000;

async function main(): Promise<void> {
  const { dir, cleanup } = await tempDir("cutroom-incremental-bench-");
  const database = await freshDatabase("cutroom_bench");
  const procs: Proc[] = [];
  try {
    log(`generating inputs (${SECONDS} s composition)…`);
    const inputs = await makeReferenceInputs(dir, SECONDS);
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dir, "data"),
      URL_SIGNING_SECRET: randomBytes(32).toString("hex"),
      WORKER_CONCURRENCY: "1",
      WORKER_PORT: "0",
      RENDER_SEGMENT_SEC: String(SEGMENT_SEC),
      // The cache is what this bench measures (the other benches run without it).
      RENDER_CACHE_BYTES: String(10 * 1024 ** 3),
      // A 10-minute reference's camera clips are larger than the default 512 MiB per file.
      UPLOAD_MAX_BYTES: String(8 * 1024 ** 3),
      NODE_OPTIONS: "--max-semi-space-size=4",
    };
    const api = await startApi(env, { ownerKey: true });
    procs.push(api.proc);
    const call = apiClient(api.base, api.key as string);
    const ids = await uploadAll(call, inputs);
    // BENCH_ECHO_WORKER=1: the worker's log lines (step times, part attempts) on stderr.
    procs.push(await startWorker(env, "the worker", { echo: process.env.BENCH_ECHO_WORKER === "1" }));
    // The preview proxies the uploads queued are made before timing.
    await waitForPreviewProxies(call, ids);
    const loadBefore = load();
    log(`first render (load ${load()})…`);
    const first = await render(call, withLowerThird(ids, "Ada Lovelace, analyst"));
    log(`first ${wall(first).toFixed(1)} s; one-clip change (load ${load()})…`);
    const edited = withLowerThird(ids, "Ada Lovelace, engineer");
    const change = await render(call, edited);
    log(`one-clip change ${wall(change).toFixed(1)} s; no change (load ${load()})…`);
    const same = await render(call, edited);
    log(`no change ${wall(same).toFixed(1)} s`);
    const summary = {
      composition: { seconds: SECONDS, width: 1920, height: 1080, fps: 30, segmentSec: SEGMENT_SEC },
      loadAverage: { before: loadBefore, after: load() },
      firstSec: wall(first),
      oneClipChangeSec: wall(change),
      noChangeSec: wall(same),
      oneClipChangeRatio: { value: wall(change) / wall(first), targetFor10Min: 0.1 },
      noChangeRatio: { value: wall(same) / wall(first), targetFor10Min: 0.03 },
      reuse: { first: first.reuse, oneClipChange: change.reuse, noChange: same.reuse },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await Promise.all(procs.map(stopProcess));
    await database.drop();
    await cleanup();
  }
}

await main();
