/**
 * Studio preview benchmark, through the API (one process, worker inside, PostgreSQL):
 *
 *   node bench/studio/frame-preview.ts [--frames 40]
 *
 * On the 60 s reference composition (bench/render/reference-composition.ts: 1080p30, four
 * clips with transitions, a moving logo, a title, captions, ducked audio):
 * - `GET /api/compositions/:id/frame?width=640` at `--frames` distinct times spread over the
 *   timeline, one after another, uncached (each time is new): p50, p95, max in milliseconds,
 *   and the p50 of the server's own spans (`Server-Timing`: `prepare` = composition, sources,
 *   fonts, plan, files; `ffmpeg` = spawn, open and seek, decode, filters, JPEG); then the same
 *   times again (the cache): p95;
 * - "Play from here", streamed: `GET /api/compositions/:id/preview.mp4?from=…&duration=6` at 640
 *   px (the console's) and at 1920 px from three playhead positions: time to the first byte and
 *   to the first decodable frame (the header and the first complete movie fragment, `moof` +
 *   `mdat`, have arrived: what a `<video>` needs to show a picture), and the whole stream; each
 *   stream is checked by decoding it (frame count);
 * - "Play from here" the old way, for comparison: `POST /api/render` of a 5 s draft range at
 *   1080p from the same positions, time until the output is playable (the render succeeded).
 * Prints the load average before and after.
 *
 * Needs PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres); a fresh database is created and dropped.
 * Prints a JSON summary; bench/README.md records the figures.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { probe, tempDir } from "../../test/fixtures/render/media.ts";
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

/** A `Server-Timing` span's duration (ms), or NaN when absent. */
function span(header: string | null, name: string): number {
  const m = new RegExp(`(?:^|,\\s*)${name};dur=([\\d.]+)`).exec(header ?? "");
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * Byte offset just past the first complete movie fragment (`moof` then its `mdat`) of the
 * top-level MP4 boxes in `bytes`, or -1 while it is incomplete.
 */
function firstFragmentEnd(bytes: Buffer): number {
  let at = 0;
  let sawMoof = false;
  while (at + 8 <= bytes.length) {
    const size = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    if (size < 8 || at + size > bytes.length) return -1;
    at += size;
    if (type === "moof") sawMoof = true;
    else if (type === "mdat" && sawMoof) return at;
  }
  return -1;
}

const round = (x: number) => Math.round(x);
const loads = () => loadavg().map((l) => Math.round(l * 10) / 10);

async function main(): Promise<void> {
  const loadBefore = loads();
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
      const timing = res.headers.get("server-timing");
      return {
        ms: performance.now() - started,
        bytes,
        prepare: span(timing, "prepare"),
        ffmpeg: span(timing, "ffmpeg"),
      };
    };
    await frame(0.5); // warm-up: first ffmpeg spawn, font cache
    const times = Array.from(
      { length: FRAMES },
      (_, i) => Math.round((((i + 0.37) * (SECONDS - 1)) / FRAMES) * 1000) / 1000,
    );
    const cold: number[] = [];
    const prepare: number[] = [];
    const ffmpegMs: number[] = [];
    for (const t of times) {
      const f = await frame(t);
      cold.push(f.ms);
      if (Number.isFinite(f.prepare)) prepare.push(f.prepare);
      if (Number.isFinite(f.ffmpeg)) ffmpegMs.push(f.ffmpeg);
    }
    const warm: number[] = [];
    for (const t of times) warm.push((await frame(t)).ms);
    log(`frames: p50 ${quantile(cold, 0.5).toFixed(0)} ms, p95 ${quantile(cold, 0.95).toFixed(0)} ms`);

    const streams: Array<{
      start: number;
      width: number;
      firstByteMs: number;
      firstFrameMs: number;
      totalMs: number;
      frames: number;
    }> = [];
    for (const width of [640, 1920]) {
      for (const start of [3, 29.5, 52]) {
        const t0 = performance.now();
        const res = await fetch(
          `${base}/api/compositions/${comp.id}/preview.mp4?from=${start}&duration=6&width=${width}`,
          { headers: { authorization: `Bearer ${key}` } },
        );
        if (!res.ok || !res.body) throw new Error(`preview from ${start}: ${res.status} ${await res.text()}`);
        const chunks: Buffer[] = [];
        let firstByteMs = Number.NaN;
        let firstFrameMs = Number.NaN;
        for await (const chunk of res.body) {
          chunks.push(Buffer.from(chunk));
          if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
          if (Number.isNaN(firstFrameMs) && firstFragmentEnd(Buffer.concat(chunks)) > 0) {
            firstFrameMs = performance.now() - t0;
          }
        }
        const totalMs = performance.now() - t0;
        const file = path.join(dir, `preview-${width}-${start}.mp4`);
        await writeFile(file, Buffer.concat(chunks));
        const frames = (await probe(file, true)).video?.frames ?? 0;
        if (frames !== 180)
          throw new Error(`preview from ${start} at ${width} px has ${frames} frames, not 180`);
        streams.push({
          start,
          width,
          firstByteMs: round(firstByteMs),
          firstFrameMs: round(firstFrameMs),
          totalMs: round(totalMs),
          frames,
        });
      }
    }
    log(`streams: first frame ${streams.map((s) => s.firstFrameMs).join(", ")} ms`);

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
          spansP50: { prepare: round(quantile(prepare, 0.5)), ffmpeg: round(quantile(ffmpegMs, 0.5)) },
          cached: { p95: Math.round(quantile(warm, 0.95) * 10) / 10 },
          playFromHereStreamed: streams,
          playFromHereRendered: plays,
          loadAverage: { before: loadBefore, after: loads() },
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
