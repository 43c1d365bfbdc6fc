/**
 * Soak benchmark: the API and separate render workers on a fresh PostgreSQL database, under
 * mixed traffic from several accounts for a while, with a worker killed (SIGKILL) twice.
 *
 *   node bench/soak/soak.ts [--minutes 10] [--accounts 4] [--users 8] [--workers 2]
 *     [--think-ms 100]
 *
 * Needs PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres); a fresh database is created and dropped.
 * Starts `src/main/api.ts` (no in-process worker) and `--workers` `src/main/worker.ts`
 * processes on one temp DATA_DIR, creates `--accounts` upgraded accounts (their daily call quota
 * raised so that it never refuses), then runs `--users` virtual users (each bound to one
 * account, a pause of 0..`--think-ms` between requests) that mix:
 *   - reads: `/me`, project/upload/render lists, one composition, one render;
 *   - uploads: 1–3 small generated files (MP4, PNG, M4A, SRT) in one multipart request;
 *   - analysis: chapters/detect and clips/summarize on a short transcript;
 *   - renders: a 2 s 320x180 draft of the account's composition (video, title, music);
 *   - cancels: a render started and deleted 0–1.5 s later, or an offline 1080p still→video
 *     generation started and deleted 0–3 s later (mid-encode).
 * At 1/3 and 2/3 of the run one worker (alternately, while it runs ffmpeg if it does within
 * 30 s) is killed with SIGKILL and restarted a second later.
 *
 * When the time is up it waits (up to 10 min) for every render to end and checks:
 *   - no render left queued/preparing/rendering/finalizing/cancelling (API and database), no
 *     generation left queued/running, nothing left in the shared work directory, and the API
 *     and workers still running and healthy;
 *   - every upload downloads whole (size and SHA-256 of the file sent), every succeeded
 *     render's output matches its `sha256`;
 *   - each account's call counter (`quota_counters`) equals the requests it sent that got an
 *     answer, and its render-seconds counter equals 2 s × the renders it started (202).
 * It prints throughput (req/s), p50/p99 latency per kind, non-2xx answers by kind and
 * status, render outcomes, and the checks; exit code 1 when a check fails.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { openDatabase } from "../../src/db/client.ts";
import { insertUser } from "../../src/db/repositories/users.ts";
import { issueApiKey } from "../../src/domain/accounts/api-keys.ts";
import { ffmpeg, tempDir } from "../../test/fixtures/render/media.ts";
import { freshDatabase, type Proc, startApi, startWorker, stopProcess, waitUntil } from "../processes.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    accounts: { type: "string", default: "4" },
    users: { type: "string", default: "8" },
    workers: { type: "string", default: "2" },
    "think-ms": { type: "string", default: "100" },
  },
});
const MINUTES = Number(values.minutes);
const ACCOUNTS = Number(values.accounts);
const USERS = Number(values.users);
const WORKERS = Number(values.workers);
const THINK_MS = Number(values["think-ms"]);
const RENDER_SECONDS = 2;
const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

const log = (msg: string) =>
  process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

// ---------------------------------------------------------------- media

interface MediaFile {
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
  sha256: string;
}

/** Small generated sources: a 3 s clip with sound, a still, music and subtitles. */
async function makeMedia(dir: string): Promise<MediaFile[]> {
  const f = (name: string) => path.join(dir, name);
  const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
  await Promise.all([
    ffmpeg([
      ...["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3"],
      ...["-f", "lavfi", "-i", "sine=f=440:r=48000:d=3"],
      ...x264,
      ...["-c:a", "aac", "-shortest", f("clip.mp4")],
    ]),
    ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=320x180", "-frames:v", "1", f("still.png")]),
    ffmpeg(["-f", "lavfi", "-i", "sine=f=330:r=44100:d=3", "-c:a", "aac", f("music.m4a")]),
  ]);
  const srt = "1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,000 --> 00:00:02,000\nWorld\n";
  const files: MediaFile[] = [];
  for (const name of ["clip.mp4", "still.png", "music.m4a"]) {
    const bytes = new Uint8Array(await readFile(f(name)));
    files.push({ name, bytes, sha256: sha256(bytes) });
  }
  const subs = new TextEncoder().encode(srt);
  files.push({ name: "cues.srt", bytes: subs, sha256: sha256(subs) });
  return files;
}

const TRANSCRIPT = Array.from(
  { length: 24 },
  (_, i) =>
    `${i < 12 ? "Roasting coffee at home needs green beans and patience" : "Cleaning the popcorn machine after the roast keeps the chaff away"}. Sentence ${i}.`,
).join(" ");

// ---------------------------------------------------------------- measuring

type Kind = "setup" | "read" | "upload" | "analysis" | "render" | "cancel" | "generation" | "verify";

interface Sample {
  kind: Kind;
  status: number;
  ms: number;
}

const samples: Sample[] = [];
let transportErrors = 0;

interface Account {
  userId: string;
  key: string;
  /** Requests that got an answer (each one is counted by the server). */
  answered: number;
  /** Requests without an answer (connection errors): counted or not. */
  unanswered: number;
  rendersStarted: number;
  compositionId: string;
  /** An image upload that offline video generations animate. */
  stillId: string;
  generations: string[];
  uploads: { id: string; file: MediaFile }[];
  renders: string[];
}

/** One keyed request; records its latency and status under `kind` and counts it for the account. */
async function call(
  base: string,
  acct: Account,
  kind: Kind,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const headers: Record<string, string> = { authorization: `Bearer ${acct.key}` };
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${base}${url}`, { method, headers, ...(payload ? { body: payload } : {}) });
  } catch {
    acct.unanswered += 1;
    transportErrors += 1;
    return { status: 0, body: null };
  }
  const text = await res.text();
  acct.answered += 1;
  samples.push({ kind, status: res.status, ms: performance.now() - started });
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

// ---------------------------------------------------------------- traffic

function uploadForm(media: MediaFile[]): { form: FormData; files: MediaFile[] } {
  const files = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => pick(media));
  const form = new FormData();
  for (const f of files) form.append("file", new Blob([f.bytes]), f.name);
  return { form, files };
}

async function upload(base: string, acct: Account, media: MediaFile[]): Promise<void> {
  const { form, files } = uploadForm(media);
  const res = await call(base, acct, "upload", "POST", "/api/v1/uploads", form);
  if (res.status !== 201) return;
  const data = (res.body?.data ?? []) as { id: string }[];
  data.forEach((u, i) => {
    acct.uploads.push({ id: u.id, file: files[i] as MediaFile });
  });
}

async function startRender(base: string, acct: Account): Promise<string | null> {
  const res = await call(base, acct, "render", "POST", "/api/render", {
    compositionId: acct.compositionId,
    output: { quality: "draft" },
  });
  if (res.status !== 202) return null;
  acct.rendersStarted += 1;
  const id = res.body?.id as string;
  acct.renders.push(id);
  return id;
}

async function oneStep(base: string, acct: Account, media: MediaFile[]): Promise<void> {
  const r = Math.random();
  if (r < 0.5) {
    const someRender = acct.renders.length > 0 ? pick(acct.renders) : null;
    const url = pick([
      "/api/v1/me",
      "/api/v1/projects?limit=10",
      "/api/v1/uploads?limit=10",
      "/api/render?limit=10",
      `/api/compositions/${acct.compositionId}`,
      ...(someRender ? [`/api/render/${someRender}`] : []),
    ]);
    await call(base, acct, "read", "GET", url);
  } else if (r < 0.64) {
    await upload(base, acct, media);
  } else if (r < 0.82) {
    if (Math.random() < 0.5) {
      await call(base, acct, "analysis", "POST", "/api/v1/chapters/detect", {
        transcript: TRANSCRIPT,
        duration: 240,
        maxChapters: 4,
        minChapterSec: 20,
      });
    } else {
      await call(base, acct, "analysis", "POST", "/api/v1/clips/summarize", { transcript: TRANSCRIPT });
    }
  } else if (r < 0.93) {
    await startRender(base, acct);
  } else if (Math.random() < 0.5) {
    const id = await startRender(base, acct);
    if (!id) return;
    await sleep(Math.random() * 1500);
    await call(base, acct, "cancel", "DELETE", `/api/render/${id}`);
  } else {
    // An offline 1080p still→video generation, cancelled mid-run (the Ken Burns encoder).
    const res = await call(base, acct, "generation", "POST", "/api/v1/generate/video", {
      prompt: "soak push-in",
      imageUrl: acct.stillId,
      resolution: "1080p",
      duration: "4s",
    });
    if (res.status !== 202) return;
    const id = res.body?.id as string;
    acct.generations.push(id);
    await sleep(Math.random() * 3000);
    await call(base, acct, "cancel", "DELETE", `/api/v1/generations/${id}`);
  }
}

// ---------------------------------------------------------------- workers

/** Child PIDs of `pid` (Linux `/proc/<pid>/task/*\/children`). */
async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const kids: number[] = [];
  for (const t of tasks) {
    const text = await readFile(`/proc/${pid}/task/${t}/children`, "utf8").catch(() => "");
    kids.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return kids;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const { dir, cleanup } = await tempDir("cutroom-soak-");
  const database = await freshDatabase("cutroom_soak");
  const procs: Proc[] = [];
  let failed = false;
  try {
    const media = await makeMedia(dir);
    const api = await startApi({
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dir, "data"),
      WORKER_CONCURRENCY: "1",
      QUOTA_UPGRADED_DAILY: "100000000",
    });
    procs.push(api.proc);
    const { base } = api;
    const workers: Proc[] = [];
    const addWorker = async (i: number) => {
      const w = await startWorker(api.env, `worker ${i}`);
      procs.push(w);
      workers[i] = w;
    };
    for (let i = 0; i < WORKERS; i++) await addWorker(i);

    // Accounts straight in the database (the API has no sign-up), then their setup through HTTP.
    const direct = await openDatabase({ databaseUrl: database.url, dataDir: dir, poolSize: 2 });
    const accounts: Account[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const user = await insertUser(direct.db, {
        email: `soak${i}@example.test`,
        name: `Soak ${i}`,
        plan: "upgraded",
      });
      const { secret } = await issueApiKey(direct.db, {
        userId: user.id,
        name: "soak",
        scopes: ["read", "write"],
      });
      accounts.push({
        userId: user.id,
        key: secret,
        answered: 0,
        unanswered: 0,
        rendersStarted: 0,
        compositionId: "",
        stillId: "",
        generations: [],
        uploads: [],
        renders: [],
      });
    }
    await direct.close();
    const clip = media.find((m) => m.name === "clip.mp4") as MediaFile;
    const music = media.find((m) => m.name === "music.m4a") as MediaFile;
    const stillFile = media.find((m) => m.name === "still.png") as MediaFile;
    for (const acct of accounts) {
      const form = new FormData();
      form.append("file", new Blob([clip.bytes]), clip.name);
      form.append("file", new Blob([music.bytes]), music.name);
      form.append("file", new Blob([stillFile.bytes]), stillFile.name);
      const up = await call(base, acct, "setup", "POST", "/api/v1/uploads", form);
      if (up.status !== 201) throw new Error(`setup upload: ${up.status} ${JSON.stringify(up.body)}`);
      const [v, m, st] = (up.body?.data ?? []) as { id: string }[];
      acct.uploads.push(
        { id: v?.id as string, file: clip },
        { id: m?.id as string, file: music },
        { id: st?.id as string, file: stillFile },
      );
      acct.stillId = st?.id as string;
      const comp = await call(base, acct, "setup", "POST", "/api/compositions", {
        name: "soak",
        canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
        tracks: [
          {
            kind: "video",
            clips: [{ start: 0, duration: RENDER_SECONDS, asset: { type: "video", uploadId: v?.id } }],
          },
          {
            kind: "video",
            clips: [
              {
                start: 0,
                duration: 1,
                asset: { type: "text", text: "Soak", style: { family: "DejaVu Sans", size: 24 } },
              },
            ],
          },
          {
            kind: "audio",
            clips: [{ start: 0, duration: RENDER_SECONDS, asset: { type: "audio", uploadId: m?.id } }],
          },
        ],
      });
      if (comp.status !== 201)
        throw new Error(`setup composition: ${comp.status} ${JSON.stringify(comp.body)}`);
      acct.compositionId = comp.body?.id as string;
    }

    // Traffic.
    const runMs = MINUTES * 60_000;
    const started = Date.now();
    const endAt = started + runMs;
    const firstSample = samples.length;
    log(`traffic for ${MINUTES} min: ${USERS} users on ${ACCOUNTS} accounts, ${WORKERS} workers`);
    const vus = Array.from({ length: USERS }, async (_, i) => {
      const acct = accounts[i % ACCOUNTS] as Account;
      while (Date.now() < endAt) {
        await oneStep(base, acct, media);
        await sleep(Math.random() * THINK_MS);
      }
    });
    const kills: { at: string; worker: number; pid: number; whileRendering: boolean }[] = [];
    const killer = (async () => {
      for (const [n, fraction] of [1 / 3, 2 / 3].entries()) {
        await sleep(Math.max(0, started + runMs * fraction - Date.now()));
        const i = n % WORKERS;
        const w = workers[i] as Proc;
        const pid = w.child.pid as number;
        // Prefer the moment it runs ffmpeg, so the kill loses a render in flight.
        let rendering = false;
        const until = Date.now() + 30_000;
        while (!rendering && Date.now() < until) {
          rendering = (await childrenOf(pid)).length > 0;
          if (!rendering) await sleep(100);
        }
        w.child.kill("SIGKILL");
        await w.exited;
        kills.push({ at: new Date().toISOString(), worker: i, pid, whileRendering: rendering });
        log(`killed worker ${i} (pid ${pid}${rendering ? ", mid-render" : ""}); restarting in 1 s`);
        await sleep(1000);
        await addWorker(i);
      }
    })();
    const reporter = setInterval(() => {
      const n = samples.length - firstSample;
      log(`${n} requests so far (${((n * 1000) / (Date.now() - started)).toFixed(1)} req/s)`);
    }, 60_000);
    await Promise.all([...vus, killer]);
    clearInterval(reporter);
    const trafficSec = (Date.now() - started) / 1000;
    const traffic = samples.slice(firstSample);

    // Every render ends.
    log("traffic over; waiting for every render to end…");
    const allRenders = accounts.flatMap((a) => a.renders.map((id) => ({ acct: a, id })));
    const endStatus = new Map<string, Record<string, unknown>>();
    const waitDeadline = Date.now() + 10 * 60_000;
    while (endStatus.size < allRenders.length && Date.now() < waitDeadline) {
      for (const { acct, id } of allRenders) {
        if (endStatus.has(id)) continue;
        const r = await call(base, acct, "verify", "GET", `/api/render/${id}`);
        if (r.status === 200 && TERMINAL.has(r.body?.status as string)) endStatus.set(id, r.body ?? {});
      }
      if (endStatus.size < allRenders.length) await sleep(1000);
    }
    const stuckApi = allRenders.filter((r) => !endStatus.has(r.id)).map((r) => r.id);
    const dbClient = new pg.Client({ connectionString: database.url });
    await dbClient.connect();
    const notEnded = (
      await dbClient.query<{ status: string; n: number }>(
        "select status, count(*)::int as n from renders where status not in ('succeeded','failed','cancelled') group by status",
      )
    ).rows;
    // Generations end too (cancelled ones at once; the rest when their worker finishes them).
    let generationsNotEnded: { status: string; n: number }[] = [];
    await waitUntil(
      async () => {
        generationsNotEnded = (
          await dbClient.query<{ status: string; n: number }>(
            "select status, count(*)::int as n from generations where status not in ('succeeded','failed','cancelled') group by status",
          )
        ).rows;
        return generationsNotEnded.length === 0;
      },
      300_000,
      "every generation to end",
    ).catch(() => {});
    // Nothing a finished or cancelled job wrote is left in the shared work directory.
    const workLeft = await readdir(path.join(dir, "data", "work"), { recursive: true }).catch(
      () => [] as string[],
    );
    const apiHealthy =
      api.proc.child.exitCode === null &&
      (await fetch(`${base}/api/v1/health`).catch(() => null))?.ok === true &&
      workers.every((w) => w.child.exitCode === null);
    const outcomes: Record<string, number> = {};
    for (const body of endStatus.values()) {
      const err = body.error as { code?: string } | null;
      const key = `${body.status}${err?.code ? `:${err.code}` : ""}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    const retried = [...endStatus.values()].filter((b) => (b.attempt as number) > 1).length;

    // Every upload whole; every output matches its checksum.
    log(`checking ${accounts.reduce((n, a) => n + a.uploads.length, 0)} uploads and the succeeded outputs…`);
    const badUploads: string[] = [];
    for (const acct of accounts) {
      for (const u of acct.uploads) {
        const r = await call(base, acct, "verify", "GET", `/api/v1/uploads/${u.id}`);
        const url = r.body?.url as string | undefined;
        const got = url ? Buffer.from(await (await fetch(url)).arrayBuffer()) : Buffer.alloc(0);
        if (
          r.status !== 200 ||
          got.length !== u.file.bytes.length ||
          sha256(got) !== u.file.sha256 ||
          r.body?.sha256 !== u.file.sha256
        ) {
          badUploads.push(u.id);
        }
      }
    }
    const badOutputs: string[] = [];
    for (const [id, body] of endStatus) {
      if (body.status !== "succeeded") continue;
      const output = body.output as { url: string; sha256: string; size: number };
      const got = Buffer.from(await (await fetch(output.url)).arrayBuffer());
      if (got.length !== output.size || sha256(got) !== output.sha256) badOutputs.push(id);
    }

    // Counters: read last, after every counted request has been answered.
    const counters = new Map(
      (
        await dbClient.query<{ subject: string; n: number }>(
          "select subject, sum(count)::int as n from quota_counters group by subject",
        )
      ).rows.map((r) => [r.subject, r.n]),
    );
    await dbClient.end();
    const counterChecks = accounts.map((a) => {
      const calls = counters.get(a.userId) ?? 0;
      const renderSec = counters.get(`render-sec:${a.userId}`) ?? 0;
      return {
        userId: a.userId,
        answered: a.answered,
        unanswered: a.unanswered,
        callCounter: calls,
        callsExact:
          calls >= a.answered &&
          calls <= a.answered + a.unanswered &&
          (a.unanswered > 0 || calls === a.answered),
        rendersStarted: a.rendersStarted,
        renderSecCounter: renderSec,
        renderSecExact: renderSec === a.rendersStarted * RENDER_SECONDS,
      };
    });

    // Figures.
    const kinds: Kind[] = ["read", "upload", "analysis", "render", "cancel"];
    const perKind = Object.fromEntries(
      kinds.map((k) => {
        const ms = traffic
          .filter((s) => s.kind === k)
          .map((s) => s.ms)
          .sort((a, b) => a - b);
        return [
          k,
          {
            requests: ms.length,
            p50ms: Number(percentile(ms, 50).toFixed(1)),
            p99ms: Number(percentile(ms, 99).toFixed(1)),
          },
        ];
      }),
    );
    const errors: Record<string, number> = {};
    for (const s of traffic) {
      if (s.status >= 200 && s.status < 300) continue;
      const key = `${s.kind} ${s.status}`;
      errors[key] = (errors[key] ?? 0) + 1;
    }
    const checks = {
      noRenderStuck: stuckApi.length === 0 && notEnded.length === 0,
      noGenerationStuck: generationsNotEnded.length === 0,
      workDirEmpty: workLeft.filter((f) => !f.endsWith("offline-generations")).length === 0,
      processesHealthy: apiHealthy,
      uploadsWhole: badUploads.length === 0,
      outputsWhole: badOutputs.length === 0,
      countersExact: counterChecks.every((c) => c.callsExact && c.renderSecExact),
      no5xx: traffic.every((s) => s.status < 500),
    };
    failed = Object.values(checks).some((ok) => !ok);
    const summary = {
      generations: {
        started: accounts.reduce((n, a) => n + a.generations.length, 0),
        notEnded: generationsNotEnded,
        workLeft: workLeft.slice(0, 20),
      },
      minutes: MINUTES,
      accounts: ACCOUNTS,
      users: USERS,
      workers: WORKERS,
      thinkMs: THINK_MS,
      trafficSec: Number(trafficSec.toFixed(1)),
      requests: traffic.length,
      reqPerSec: Number((traffic.length / trafficSec).toFixed(1)),
      transportErrors,
      perKind,
      errors,
      renders: {
        started: allRenders.length,
        outcomes,
        retriedAfterWorkerLoss: retried,
        stuck: stuckApi,
        notEnded,
      },
      uploads: { checked: accounts.reduce((n, a) => n + a.uploads.length, 0), bad: badUploads },
      outputs: {
        checked: [...endStatus.values()].filter((b) => b.status === "succeeded").length,
        bad: badOutputs,
      },
      kills,
      counters: counterChecks,
      checks,
      loadAverage: (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(" "),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await Promise.all(procs.map(stopProcess));
    await database.drop();
    await cleanup();
  }
  if (failed) process.exitCode = 1;
}

await main();
