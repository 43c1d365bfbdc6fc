/**
 * Studio preview benchmark, through the API (one process, worker inside, PostgreSQL):
 *
 *   node bench/studio/frame-preview.ts [--frames 40] [--proxies both|on|off]
 *
 * On the 60 s reference composition (bench/render/reference-composition.ts: 1080p30, four
 * clips with transitions, a moving logo, a title, captions, ducked audio), once every video
 * upload's preview proxy is ready (the time each took after the uploads is reported):
 * - `GET /api/compositions/:id/frame?width=640` at `--frames` distinct times spread over the
 *   timeline, one after another, uncached (each time is new): p50, p95, max in milliseconds,
 *   the ffmpeg CPU seconds per frame (user + system of the API's finished children, from /proc:
 *   comparable under load), and the p50 of the server's own spans (`Server-Timing`: `prepare` = composition, sources,
 *   fonts, plan, files; `ffmpeg` = spawn, open and seek, decode, filters, JPEG); then the same
 *   times again (the cache): p95. `--proxies` (default `both`): decoded from the preview proxies
 *   (`on`), from the originals (`off`, `proxy=false`), or both interleaved frame by frame (A/B in
 *   one sitting, alternating which goes first);
 * - "Play from here", streamed: `GET /api/compositions/:id/preview.mp4?from=…&duration=6` at 640
 *   px (the console's; with and/or without proxies as `--proxies` says) and at 1920 px (too wide
 *   for the proxies: originals) from three playhead positions: time to the first byte and
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
import { readFile, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { probe, tempDir } from "../../test/fixtures/render/media.ts";
import {
  type Api,
  apiClient,
  freshDatabase,
  startApi,
  stopProcess,
  uploadAll,
  waitForPreviewProxies,
} from "../processes.ts";
import { makeReferenceInputs, referenceComposition } from "../render/reference-composition.ts";

const SECONDS = 60;
const argv = process.argv.slice(2);
const FRAMES = Number(argv[argv.indexOf("--frames") + 1] ?? 40) || 40;
const PROXIES = argv.includes("--proxies") ? argv[argv.indexOf("--proxies") + 1] : "both";
if (PROXIES !== "both" && PROXIES !== "on" && PROXIES !== "off") {
  throw new Error("--proxies must be both, on or off");
}
/** The source kinds measured: `proxy` (preview proxies where they serve) and/or `original`. */
const KINDS: Array<"proxy" | "original"> =
  PROXIES === "both" ? ["proxy", "original"] : PROXIES === "on" ? ["proxy"] : ["original"];
const kindQuery = (kind: "proxy" | "original") => (kind === "proxy" ? "" : "&proxy=false");
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

/**
 * CPU seconds (user + system) of the finished children of process `pid` (its ffmpeg runs,
 * counted once each has exited and been waited for): `/proc/<pid>/stat` fields `cutime` and
 * `cstime`, in clock ticks of 1/100 s. What a preview frame costs, whatever the machine's load.
 */
async function childCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command: state is field 3, cutime 16 and cstime 17 (1-based over the whole line).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
const loads = () => loadavg().map((l) => Math.round(l * 10) / 10);

async function main(): Promise<void> {
  const loadBefore = loads();
  const { dir, cleanup } = await tempDir("cutroom-preview-");
  const database = await freshDatabase("cutroom_bench");
  let api: Api | undefined;
  try {
    api = await startApi(
      {
        DATABASE_URL: database.url,
        DATA_DIR: path.join(dir, "data"),
        URL_SIGNING_SECRET: randomBytes(32).toString("hex"),
        WORKER_CONCURRENCY: "1",
      },
      { workerInProcess: true, ownerKey: true },
    );
    log("generating inputs…");
    const inputs = await makeReferenceInputs(dir, SECONDS);
    const { base } = api;
    const key = api.key as string;
    const call = apiClient(base, key);
    const ids = await uploadAll(call, inputs);
    const comp = await call<{ id: string }>("POST", "/api/compositions", referenceComposition(ids, SECONDS));

    // The proxies are made by queued jobs after the uploads: wait for every one.
    const proxyReadyMs = await waitForPreviewProxies(call, ids);
    log(`proxies ready after ${JSON.stringify(proxyReadyMs)} ms`);

    const apiPid = api.proc.child.pid ?? 0;
    const frame = async (t: number, kind: "proxy" | "original") => {
      const cpuBefore = await childCpuSeconds(apiPid);
      const started = performance.now();
      const res = await fetch(
        `${base}/api/compositions/${comp.id}/frame?t=${t}&width=640${kindQuery(kind)}`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      const bytes = (await res.arrayBuffer()).byteLength;
      if (!res.ok) throw new Error(`frame at ${t}: ${res.status}`);
      const timing = res.headers.get("server-timing");
      const ms = performance.now() - started;
      return {
        ms,
        cpu: (await childCpuSeconds(apiPid)) - cpuBefore,
        bytes,
        sources: res.headers.get("x-preview-sources"),
        prepare: span(timing, "prepare"),
        ffmpeg: span(timing, "ffmpeg"),
      };
    };
    for (const kind of KINDS) await frame(0.5, kind); // warm-up: first ffmpeg spawn, font cache
    const times = Array.from(
      { length: FRAMES },
      (_, i) => Math.round((((i + 0.37) * (SECONDS - 1)) / FRAMES) * 1000) / 1000,
    );
    const runs = Object.fromEntries(
      KINDS.map((kind) => [
        kind,
        {
          cold: [] as number[],
          cpu: [] as number[],
          prepare: [] as number[],
          ffmpeg: [] as number[],
          warm: [] as number[],
          proxied: 0,
        },
      ]),
    );
    for (const [i, t] of times.entries()) {
      // Interleaved, alternating which kind goes first.
      for (const kind of i % 2 === 0 ? KINDS : [...KINDS].reverse()) {
        const run = runs[kind];
        if (!run) continue;
        const f = await frame(t, kind);
        run.cold.push(f.ms);
        run.cpu.push(f.cpu);
        if (!f.sources?.startsWith("proxy=0")) run.proxied += 1;
        if (Number.isFinite(f.prepare)) run.prepare.push(f.prepare);
        if (Number.isFinite(f.ffmpeg)) run.ffmpeg.push(f.ffmpeg);
      }
    }
    for (const t of times) for (const kind of KINDS) runs[kind]?.warm.push((await frame(t, kind)).ms);
    const uncached = Object.fromEntries(
      Object.entries(runs).map(([kind, run]) => [
        kind,
        {
          p50: round(quantile(run.cold, 0.5)),
          p95: round(quantile(run.cold, 0.95)),
          max: round(Math.max(...run.cold)),
          ffmpegCpuSeconds: {
            p50: quantile(run.cpu, 0.5),
            p95: quantile(run.cpu, 0.95),
            mean: Math.round((run.cpu.reduce((a, b) => a + b, 0) / run.cpu.length) * 1000) / 1000,
          },
          spansP50: { prepare: round(quantile(run.prepare, 0.5)), ffmpeg: round(quantile(run.ffmpeg, 0.5)) },
          framesReadingAProxy: run.proxied,
          cachedP95: Math.round(quantile(run.warm, 0.95) * 10) / 10,
        },
      ]),
    );
    log(`frames: ${JSON.stringify(uncached)}`);

    const streams: Array<{
      start: number;
      width: number;
      sources: string | null;
      firstByteMs: number;
      firstFrameMs: number;
      totalMs: number;
      frames: number;
    }> = [];
    const streamCases = [
      ...KINDS.map((kind) => ({ width: 640, kind })),
      { width: 1920, kind: "original" as const },
    ];
    for (const { width, kind } of streamCases) {
      for (const start of [3, 29.5, 52]) {
        const t0 = performance.now();
        const res = await fetch(
          `${base}/api/compositions/${comp.id}/preview.mp4?from=${start}&duration=6&width=${width}${kindQuery(kind)}`,
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
        const file = path.join(dir, `preview-${width}-${kind}-${start}.mp4`);
        await writeFile(file, Buffer.concat(chunks));
        const frames = (await probe(file, true)).video?.frames ?? 0;
        if (frames !== 180)
          throw new Error(`preview from ${start} at ${width} px has ${frames} frames, not 180`);
        streams.push({
          start,
          width,
          sources: res.headers.get("x-preview-sources"),
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
          proxyReadyAfterUploadsMs: proxyReadyMs,
          uncached,
          playFromHereStreamed: streams,
          playFromHereRendered: plays,
          loadAverage: { before: loadBefore, after: loads() },
        },
        null,
        2,
      ),
    );
  } finally {
    if (api) await stopProcess(api.proc);
    await database.drop();
    await cleanup();
  }
}

await main();
