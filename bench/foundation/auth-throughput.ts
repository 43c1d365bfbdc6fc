/**
 * Service foundation benchmark: authenticated GET /api/v1/me and GET /api/v1/projects?limit=25
 * against a bare Fastify route returning a constant, 50 connections, on PGlite and on
 * PostgreSQL, in one run. Prints requests/s, p50/p99 latency and the ratio to the bare
 * route, then checks that quota counting stayed exact (counter == 2xx responses).
 *
 *   node bench/foundation/auth-throughput.ts [--duration 10] [--connections 50] [--pg postgres://…]
 *
 * Each server runs as its own child process. The load generator is wrk (Debian package `wrk`)
 * when it is installed, else autocannon in this process (`--tool autocannon` forces it):
 * wrk is C and reports sub-millisecond percentiles; autocannon rounds them to whole ms.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { cliApiKey, freshDatabase, startApi, startProcess, stopProcess, waitUntil } from "../processes.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    pg: {
      type: "string",
      default: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    },
    "log-level": { type: "string", default: "warn" },
    tool: { type: "string" },
  },
});
const hasWrk = (() => {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (err) {
    // wrk --version prints its banner and exits 1; only a missing binary is ENOENT.
    return (err as NodeJS.ErrnoException).code !== "ENOENT";
  }
})();
const tool = values.tool ?? (hasWrk ? "wrk" : "autocannon");
const duration = Number(values.duration);
const connections = Number(values.connections);

interface Row {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
}

/** Runs wrk and reads its summary: requests/s, the latency distribution and the response counts. */
function wrk(url: string, headers: Record<string, string>, seconds: number): Promise<Omit<Row, "target">> {
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  return new Promise((resolve, reject) => {
    execFile("wrk", [...args, url], (err, stdout) => {
      if (err) return reject(err);
      const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? Number.NaN);
      const ms = (pct: string) => {
        const m = new RegExp(`${pct}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
        if (!m) return Number.NaN;
        const unit = { us: 0.001, ms: 1, s: 1000 }[m[2] as "us" | "ms" | "s"];
        return Number(m[1]) * unit;
      };
      const total = num(/(\d+) requests in/);
      const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)
        ? num(/Non-2xx or 3xx responses: (\d+)/)
        : 0;
      resolve({
        rps: num(/Requests\/sec:\s+([\d.]+)/),
        p50: ms("50"),
        p99: ms("99"),
        ok: total - non2xx,
        non2xx,
      });
    });
  });
}

async function load(
  url: string,
  headers: Record<string, string> = {},
  seconds = duration,
): Promise<Omit<Row, "target">> {
  if (tool === "wrk") return wrk(url, headers, seconds);
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: r["2xx"], non2xx: r.non2xx };
}

async function benchDatabase(label: string, env: Record<string, string>, bareRps: number): Promise<Row[]> {
  // Seed an upgraded account with a limit far above what the run can use, so every call is counted and granted.
  const key = cliApiKey(env, "upgraded", "read,write");
  const api = await startApi(
    { ...env, LOG_LEVEL: values["log-level"] ?? "warn", QUOTA_UPGRADED_DAILY: "2000000000" },
    { inheritEnv: true },
  );
  const { base } = api;
  const auth = { authorization: `Bearer ${key}` };
  try {
    for (let i = 0; i < 5; i++) {
      await fetch(`${base}/api/v1/projects`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ name: `p${i}` }),
      });
    }
    const warm = await load(`${base}/api/v1/me`, auth, 2);
    const me = await load(`${base}/api/v1/me`, auth);
    const projects = await load(`${base}/api/v1/projects?limit=25`, auth);
    const state = (await (await fetch(`${base}/api/v1/me`, { headers: auth })).json()) as {
      rateLimit: { limit: number; remaining: number };
    };
    const counted = state.rateLimit.limit - state.rateLimit.remaining;
    const granted = 5 + warm.ok + me.ok + projects.ok + 1;
    // autocannon drops responses still in flight when a run ends (≤ connections per run), which the server did count.
    process.stdout.write(
      `${label}: quota counter ${counted}, 2xx responses received ${granted}, in flight at run ends ${counted - granted} (≤ ${3 * connections} expected)\n`,
    );
    return [
      { target: `${label} GET /api/v1/me`, ...me },
      { target: `${label} GET /api/v1/projects?limit=25`, ...projects },
    ].map((r) => ({ ...r, ratio: r.rps / bareRps }));
  } finally {
    await stopProcess(api.proc);
  }
}

const bare = startProcess("bench/foundation/bare-server.ts", {}, { inheritEnv: true });
await waitUntil(() => /listening (\d+)/.test(bare.output.join("")), 30_000, "the bare server");
const barePort = /listening (\d+)/.exec(bare.output.join(""))?.[1];
await load(`http://127.0.0.1:${barePort}/bare`, {}, 2);
const bareRow = {
  target: "bare Fastify constant route",
  ...(await load(`http://127.0.0.1:${barePort}/bare`)),
};
await stopProcess(bare);

const rows: (Row & { ratio?: number })[] = [bareRow];
const dataDir = mkdtempSync(path.join(tmpdir(), "cutroom-bench-"));
rows.push(...(await benchDatabase("PGlite", { DATA_DIR: dataDir }, bareRow.rps)));
rmSync(dataDir, { recursive: true, force: true });

const database = await freshDatabase("cutroom_bench", values.pg);
try {
  rows.push(
    ...(await benchDatabase(
      "PostgreSQL",
      { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(path.join(tmpdir(), "cutroom-bench-")) },
      bareRow.rps,
    )),
  );
} finally {
  await database.drop();
}

process.stdout.write(
  `\n${tool}, ${connections} connections, ${duration} s per target, LOG_LEVEL=${values["log-level"]}\n`,
);
process.stdout.write(
  "| target | req/s | p50 ms | p99 ms | ratio to bare | non-2xx |\n|---|---:|---:|---:|---:|---:|\n",
);
for (const r of rows) {
  process.stdout.write(
    `| ${r.target} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.ratio === undefined ? "1.00" : r.ratio.toFixed(2)} | ${r.non2xx} |\n`,
  );
}
