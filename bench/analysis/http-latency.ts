/**
 * Issue 5 latency through HTTP: the three analysis endpoints on a generated 3-hour
 * transcript (about 28,000 words in 3,000 segments), against a real API process.
 * Prints p50/p95 per endpoint and the target.
 *
 *   node bench/analysis/http-latency.ts [--runs 40]
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { generateTranscript } from "./synthetic-transcript.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "40" } } });
const runs = Number(values.runs);
const root = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "cutroom-analysis-bench-"));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", WORKER_IN_PROCESS: "false" };
const cli = (args: string[]) =>
  execFileSync(process.execPath, ["src/main/cli.ts", "--json", ...args], { cwd: root, env }).toString();
cli(["users", "create", "--email", "bench@example.test", "--plan", "admin"]);
const key = (
  JSON.parse(cli(["keys", "create", "--user", "bench@example.test", "--scopes", "read"])) as {
    secret: string;
  }[]
)[0]?.secret;
const port = String(20000 + Math.floor(Math.random() * 20000));
const server: ChildProcess = spawn(process.execPath, ["src/main/api.ts"], {
  cwd: root,
  env: { ...env, PORT: port },
  stdio: "ignore",
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 300; i++) {
  try {
    if ((await fetch(`${base}/api/v1/health`)).ok) break;
  } catch {
    // not up yet
  }
  await new Promise((r) => setTimeout(r, 100));
}

const { segments, duration } = generateTranscript();
const words = segments.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
const targets = [
  {
    name: "chapters",
    url: "/api/v1/chapters/detect",
    body: { transcript: segments, duration },
    targetMs: 150,
  },
  { name: "summary", url: "/api/v1/clips/summarize", body: { transcript: segments }, targetMs: 100 },
  { name: "B-roll", url: "/api/v1/broll/suggest", body: { subtitles: segments }, targetMs: 50 },
];
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

process.stdout.write(
  `transcript: ${segments.length} segments, ${words} words, ${(duration / 3600).toFixed(2)} h; ${runs} runs each\n`,
);
process.stdout.write("| endpoint | p50 ms | p95 ms | target p95 ms | body KB |\n|---|---:|---:|---:|---:|\n");
try {
  for (const t of targets) {
    const payload = JSON.stringify(t.body);
    const times: number[] = [];
    for (let i = 0; i < runs + 3; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}${t.url}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: payload,
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${t.url}: ${res.status}`);
      if (i >= 3) times.push(performance.now() - t0); // first runs warm the JIT and the NLP model
    }
    process.stdout.write(
      `| ${t.name} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} | ${t.targetMs} | ${(payload.length / 1024).toFixed(0)} |\n`,
    );
  }
} finally {
  server.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
}
