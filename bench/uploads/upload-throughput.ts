/**
 * Upload benchmark: one 512 MB upload over loopback against copying the same bytes with `cp`.
 *
 *   node bench/uploads/upload-throughput.ts [--rounds 3] [--bytes 536870912] [--client curl|node]
 *     [--database-url postgres://…/fresh_db] [--server-args="--cpu-prof …"] [--cpu]
 *
 * Starts the API (`node src/main/api.ts`) as a child process on a temp DATA_DIR (PGlite, local
 * disk storage, LOG_LEVEL=warn, no in-process worker) and a free port, takes the owner key it
 * prints on first start, writes one MP4 of `--bytes` (see make-large-file.ts) beside the data
 * directory (same file system) and fsyncs it, warms both sides up with one unmeasured upload
 * and cp + fsync of it, then per round:
 *   - uploads it as multipart/form-data, streamed from disk (curl -F, or a Node streaming client),
 *     while sampling the server's VmRSS from /proc/<pid>/status every 50 ms;
 *   - copies it with `cp` and fsyncs the copy (`sync <file>`: the server fsyncs what it keeps);
 *   - deletes both.
 * Prints the median throughput of each (MB = 2^20 bytes), their ratio (target ≥ 0.6; also the
 * median of the per-round ratios) and the server's peak RSS growth during an upload over its RSS
 * just before (target < 100 MB).
 * The upload time is end to end: streaming, SHA-256, disk write + fsync, ffprobe, poster, DB row.
 *
 * --database-url runs the server on that PostgreSQL database instead of PGlite (give it a fresh
 * one: the server migrates it and creates the owner). --server-args passes Node flags to the
 * server (e.g. --trace-gc, --cpu-prof; its stdout is then shown). --cpu also prints, per round,
 * the CPU time the server's threads and curl (through /usr/bin/time) used during the upload.
 */
import { execFile } from "node:child_process";
import { createReadStream, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { type Api, startApi, stopProcess } from "../processes.ts";
import { makeLargeMp4 } from "./make-large-file.ts";

const run = promisify(execFile);
const MiB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    bytes: { type: "string", default: String(512 * MiB) },
    client: { type: "string", default: "curl" },
    "server-args": { type: "string", default: "" },
    "database-url": { type: "string" },
    cpu: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const bytes = Number(values.bytes);
const client = values.client === "node" ? "node" : "curl";
const serverArgs = values["server-args"].split(" ").filter(Boolean);
const databaseUrl = values["database-url"];
const showCpu = values.cpu;

/** Resident set size of `pid` in bytes (Linux). */
function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * CPU time (user + system, ms) used so far by the threads of `pid`, summed by thread name:
 * MainThread, V8Worker (GC and compiler helpers), libuv-worker (fs/crypto pool), the file
 * writer thread, other.
 */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, 100 ticks/s
      const group = ["MainThread", "V8Worker", "libuv-worker", "cutroom-file-wr"].includes(name)
        ? name
        : "other";
      byName.set(group, (byName.get(group) ?? 0) + ms);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}

function cpuDiff(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, ms]) => [name, ms - (before.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(", ");
}

interface UploadResult {
  status: number;
  body: string;
  /** curl's own CPU time (user + system, ms), with --cpu. */
  clientCpuMs?: number;
}

/** curl -F streams the file from disk (it never loads it whole). */
async function uploadWithCurl(base: string, key: string, file: string): Promise<UploadResult> {
  const curlArgs = [
    ...["-sS", "-w", "\n%{http_code}", "-H", `Authorization: Bearer ${key}`],
    ...["-F", `file=@${file};filename=big.mp4`, `${base}/api/v1/uploads`],
  ];
  const timeFile = `${file}.time`;
  const { stdout } = showCpu
    ? await run("/usr/bin/time", ["-f", "%U %S", "-o", timeFile, "curl", ...curlArgs], {
        maxBuffer: 16 * MiB,
      })
    : await run("curl", curlArgs, { maxBuffer: 16 * MiB });
  const i = stdout.lastIndexOf("\n");
  const result: UploadResult = { status: Number(stdout.slice(i + 1)), body: stdout.slice(0, i) };
  if (showCpu) {
    const [user, sys] = readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-2).map(Number);
    result.clientCpuMs = Math.round(((user ?? 0) + (sys ?? 0)) * 1000);
  }
  return result;
}

/** A minimal streaming multipart client: part header, the file piped from disk, closing boundary. */
async function uploadWithNode(base: string, key: string, file: string): Promise<UploadResult> {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = (await stat(file)).size;
  const url = new URL("/api/v1/uploads", base);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(head.length + size + tail.length),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.write(head);
    const src = createReadStream(file, { highWaterMark: 256 * 1024 });
    src.on("error", reject);
    src.on("end", () => req.end(tail));
    src.pipe(req, { end: false });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const mbps = (ms: number) => bytes / MiB / (ms / 1000);

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), "cutroom-upload-bench-"));
  const dataDir = path.join(work, "data");
  let api: Api | undefined;
  try {
    // The whole environment, as the operator's shell has it; Node flags and the server's output
    // shown with --server-args.
    api = await startApi(
      { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      { ownerKey: true, inheritEnv: true, nodeArgs: serverArgs, echo: serverArgs.length > 0 },
    );
    const { base } = api;
    const key = api.key as string;
    const pid = api.proc.child.pid as number;
    const file = path.join(work, "big.mp4");
    const genMs = await makeLargeMp4(file, bytes);
    // On disk before measuring: otherwise its writeback starts ~30 s later, in some round.
    await run("sync", [file]);
    console.log(`generated ${bytes} bytes in ${Math.round(genMs)} ms; client ${client}; ${rounds} round(s)`);
    const upload = client === "curl" ? uploadWithCurl : uploadWithNode;

    // Warm-up, not measured: one full-size upload and one cp + fsync. The first upload loads
    // code paths (multipart, probing, posters, the writer thread) once, and on this VM the
    // first 512 MB of page cache a run touches costs up to 10x more than reused pages, which
    // would otherwise fall on whichever side goes first.
    const warm = await upload(base, key, file);
    if (warm.status !== 201) throw new Error(`warm-up upload failed: ${warm.status} ${warm.body}`);
    const warmId = (JSON.parse(warm.body) as { data: { id: string }[] }).data[0]?.id;
    await fetch(`${base}/api/v1/uploads/${warmId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}` },
    });
    await run("cp", [file, path.join(work, "copy.mp4")]);
    await run("sync", [path.join(work, "copy.mp4")]);
    await rm(path.join(work, "copy.mp4"), { force: true });

    const uploadMs: number[] = [];
    const cpMs: number[] = [];
    const cpNoSyncMs: number[] = [];
    const rssGrowth: number[] = [];
    let baselineRss = 0;
    for (let r = 0; r < rounds; r++) {
      baselineRss = rssBytes(pid);
      let peak = baselineRss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssBytes(pid));
      }, 50);
      const cpuBefore = showCpu ? threadCpuMs(pid) : null;
      const t0 = performance.now();
      const res = await upload(base, key, file);
      const ms = performance.now() - t0;
      const cpu = cpuBefore
        ? `; CPU ms: ${cpuDiff(cpuBefore, threadCpuMs(pid))}, curl ${res.clientCpuMs}`
        : "";
      clearInterval(sampler);
      peak = Math.max(peak, rssBytes(pid));
      if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.body}`);
      const up = (JSON.parse(res.body) as { data: { id: string; size: number }[] }).data[0];
      if (up?.size !== bytes) throw new Error(`uploaded size ${up?.size} != ${bytes}`);
      uploadMs.push(ms);
      rssGrowth.push(peak - baselineRss);
      await fetch(`${base}/api/v1/uploads/${up.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      });

      const copy = path.join(work, "copy.mp4");
      const c0 = performance.now();
      await run("cp", [file, copy]);
      const c1 = performance.now();
      await run("sync", [copy]);
      const c2 = performance.now();
      cpNoSyncMs.push(c1 - c0);
      cpMs.push(c2 - c0);
      await rm(copy, { force: true });
      console.log(
        `round ${r + 1}: upload ${Math.round(ms)} ms (${mbps(ms).toFixed(0)} MB/s, RSS +${((peak - baselineRss) / MiB).toFixed(1)} MB); ` +
          `cp+fsync ${Math.round(c2 - c0)} ms (${mbps(c2 - c0).toFixed(0)} MB/s; cp alone ${mbps(c1 - c0).toFixed(0)} MB/s)${cpu}`,
      );
    }

    const up = mbps(median(uploadMs));
    const cp = mbps(median(cpMs));
    const cpAlone = mbps(median(cpNoSyncMs));
    const growth = Math.max(...rssGrowth) / MiB;
    const line = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`);
    console.log("");
    line(`upload, streamed over loopback (${client})`, `${up.toFixed(0)} MB/s (median of ${rounds})`);
    line("cp + fsync of the copy", `${cp.toFixed(0)} MB/s (cp alone ${cpAlone.toFixed(0)} MB/s)`);
    line(
      "ratio upload / (cp + fsync)",
      `${(up / cp).toFixed(2)} (target ≥ 0.6: ${up / cp >= 0.6 ? "met" : "NOT met"}; vs cp alone ${(up / cpAlone).toFixed(2)})`,
    );
    // Each round's upload and copy run back to back, under the same load: their ratio, per round.
    const paired = median(uploadMs.map((u, i) => (cpMs[i] as number) / u));
    line(
      "  median of the per-round ratios",
      `${paired.toFixed(2)} (rounds' ratios spread: load, page cache)`,
    );
    line(
      "server peak RSS growth during an upload",
      `${growth.toFixed(1)} MB (largest of ${rounds}; baseline ${(baselineRss / MiB).toFixed(0)} MB; target < 100 MB: ${growth < 100 ? "met" : "NOT met"})`,
    );
  } finally {
    if (api) await stopProcess(api.proc);
    await rm(work, { recursive: true, force: true });
  }
}

await main();
