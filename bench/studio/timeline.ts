/**
 * Studio timeline benchmark in a real browser (Debian's Chromium through playwright-core):
 *
 *   node bench/studio/timeline.ts [--console DIR]... [--rounds N]
 *
 * Starts the API (embedded PGlite, fresh data directory) serving the console build in DIR
 * (default dist/console; give `--console` twice, e.g. a build of an earlier commit and the
 * current one, to compare them in one run: they are measured alternately, `--rounds` times
 * each), signs in through the setup link, creates a composition of 500 colour clips on 6 tracks
 * and opens it in the editor, then:
 * - opening: navigation → every clip block drawn (all 500 fit the window at the opening zoom),
 *   milliseconds;
 * - scrolling: the timeline scrolled 12,000 px at 20 px per animation frame at the widest zoom.
 *   Frame time: from each frame's start (the requestAnimationFrame timestamp) until the main
 *   thread has run that frame's scroll handlers, style, layout and paint (a message posted from
 *   the frame's callback runs after them), p50/p95/max in milliseconds; and the intervals
 *   between frames (what the display shows: 16.7 ms at 60 Hz, longer for a dropped frame);
 * - patches: 100 edits (Delete, then Ctrl+Z, alternately: each a PATCH and a re-render) with a
 *   playhead key press (→) after each: the key's input latency (keydown → the frame after the
 *   update is painted) p50/p95, and each edit's time to its new version shown.
 * Prints a JSON summary per console build, with the load average before and after each.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { ROOT, startProcess, stopProcess, waitUntil } from "../processes.ts";

const CHROMIUM = "/usr/bin/chromium";
const CLIPS = 500;
const TRACKS = 6;
/** Frames scrolled (20 px each): enough for a p95 that one descheduled frame does not decide. */
const SCROLL_FRAMES = 600;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

const argv = process.argv.slice(2);
const consoles = argv.flatMap((a, i) => (a === "--console" ? [path.resolve(argv[i + 1] ?? "")] : []));
if (consoles.length === 0) consoles.push(path.join(ROOT, "dist", "console"));
const ROUNDS = Number(argv[argv.indexOf("--rounds") + 1] ?? 1) || 1;

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
}
const stats = (xs: number[]) => ({
  p50: Math.round(quantile(xs, 0.5) * 10) / 10,
  p95: Math.round(quantile(xs, 0.95) * 10) / 10,
  max: Math.round(Math.max(...xs) * 10) / 10,
});

/** A composition of `CLIPS` colour clips spread over `TRACKS` video tracks, 2 s each, 0.5 s gaps. */
function bigComposition() {
  const perTrack = Math.ceil(CLIPS / TRACKS);
  return {
    name: "500 clips",
    canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
    tracks: Array.from({ length: TRACKS }, (_, t) => ({
      kind: "video",
      clips: Array.from({ length: Math.min(perTrack, CLIPS - t * perTrack) }, (_, i) => ({
        name: `c${t}-${i}`,
        start: i * 2.5,
        duration: 2,
        asset: { type: "color", color: `#${((t * 40 + i * 7) % 200).toString(16).padStart(2, "0")}4080` },
      })),
    })),
  };
}

// Page scripts are strings: this file is type-checked without the DOM library.

/** Time from a `→` key press to the frame after React's update was painted, milliseconds. */
const KEY_LATENCY = `new Promise((resolve) => {
  const t0 = performance.now();
  window.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
  requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
})`;

/**
 * Scrolls the timeline 20 px per animation frame for `SCROLL_FRAMES` frames. Per frame: its main-thread
 * time (the frame's start → a message posted from its callback, which runs once the frame's
 * style, layout and paint are done) and the interval since the previous frame, ms.
 */
const SCROLL = `new Promise((resolve) => {
  const el = document.querySelector(".timeline");
  el.scrollLeft = 0;
  const intervals = [];
  const work = [];
  let last = null;
  const step = (frameStart) => {
    if (last !== null) intervals.push(frameStart - last);
    last = frameStart;
    el.scrollLeft += 20;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => work.push(performance.now() - frameStart);
    channel.port2.postMessage(0);
    if (intervals.length < ${SCROLL_FRAMES}) requestAnimationFrame(step);
    else setTimeout(() => resolve({ intervals, work: work.slice(1) }), 100);
  };
  requestAnimationFrame(step);
})`;

/** Creates a project and the composition (the page's session and CSRF token); their ids. */
const create = (body: unknown) => `(async () => {
  const { csrfToken } = await (await fetch("/api/v1/auth/session")).json();
  const h = { "X-CSRF-Token": csrfToken, "Content-Type": "application/json" };
  const project = await (await fetch("/api/v1/projects", { method: "POST", headers: h, body: '{"name":"bench"}' })).json();
  const comp = await (await fetch("/api/compositions", {
    method: "POST", headers: h, body: JSON.stringify({ ...${JSON.stringify(body)}, projectId: project.id }),
  })).json();
  return { projectId: project.id, id: comp.id };
})()`;

/** Everything measured of one console build. */
interface Result {
  console: string;
  loadBefore: number[];
  loadAfter: number[];
  openMs: number;
  scrollFrameMs: ReturnType<typeof stats>;
  scrollIntervalMs: ReturnType<typeof stats>;
  inputLatencyMs: ReturnType<typeof stats>;
  editToVersionMs: ReturnType<typeof stats>;
}

const load = () => loadavg().map((x) => Math.round(x * 10) / 10);

/** Starts the API serving `consoleDir`, runs the three measurements, stops it. */
async function measure(consoleDir: string): Promise<Result> {
  const loadBefore = load();
  const dir = await mkdtemp(path.join(tmpdir(), "cutroom-timeline-"));
  const port = 39_000 + Math.floor(Math.random() * 1000);
  const api = startProcess("src/main/api.ts", {
    DATA_DIR: path.join(dir, "data"),
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    WORKER_IN_PROCESS: "false",
    CONSOLE_DIR: consoleDir,
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    await waitUntil(() => api.output.join("").includes("cutroom api ready"), 60_000, "the API");
    const setup = (
      /(http:\/\/\S+\/console\/setup\?token=crp_\w+)/.exec(api.output.join("")) as RegExpExecArray
    )[1];
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(setup as string);
    await page.getByLabel("New password").fill("a long enough password");
    await page.getByLabel("Repeat the password").fill("a long enough password");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const created = await page.evaluate<{ projectId: string; id: string }>(create(bigComposition()));

    const t0 = Date.now();
    await page.goto(
      `http://127.0.0.1:${port}/console/projects/${created.projectId}/compositions/${created.id}`,
    );
    await waitUntil(async () => (await page.locator(".clip").count()) === CLIPS, 60_000, "500 blocks");
    const openMs = Date.now() - t0;
    log(`${consoleDir}: opened in ${openMs} ms`);

    for (let i = 0; i < 6; i++) await page.getByRole("button", { name: "Zoom in" }).click();
    const scroll = await page.evaluate<{ intervals: number[]; work: number[] }>(SCROLL);

    await page.locator(".clip").first().click();
    const input: number[] = [];
    const edits: number[] = [];
    for (let i = 0; i < 100; i++) {
      const before = (await page.getByTestId("version").textContent()) ?? "";
      const started = Date.now();
      await page.keyboard.press(i % 2 === 0 ? "Delete" : "Control+z");
      input.push(await page.evaluate<number>(KEY_LATENCY));
      await waitUntil(
        async () => (await page.getByTestId("version").textContent()) !== before,
        10_000,
        "the edit",
      );
      edits.push(Date.now() - started);
      if (i % 2 === 1) await page.locator(".clip").first().click();
    }
    return {
      console: path.relative(ROOT, consoleDir),
      loadBefore,
      loadAfter: load(),
      openMs,
      scrollFrameMs: stats(scroll.work),
      scrollIntervalMs: stats(scroll.intervals),
      inputLatencyMs: stats(input),
      editToVersionMs: stats(edits),
    };
  } finally {
    await browser.close();
    await stopProcess(api);
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  const results: Result[] = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const dir of consoles) {
      const r = await measure(dir);
      log(`${r.console}: scroll frame p95 ${r.scrollFrameMs.p95} ms, input p95 ${r.inputLatencyMs.p95} ms`);
      results.push(r);
    }
  console.log(JSON.stringify({ clips: CLIPS, tracks: TRACKS, results }, null, 2));
  console.table(
    results.map((r) => ({
      console: r.console,
      load: `${r.loadBefore[0]}→${r.loadAfter[0]}`,
      "open ms": r.openMs,
      "scroll frame p50/p95/max": `${r.scrollFrameMs.p50} / ${r.scrollFrameMs.p95} / ${r.scrollFrameMs.max}`,
      "interval p50/p95": `${r.scrollIntervalMs.p50} / ${r.scrollIntervalMs.p95}`,
      "input p50/p95": `${r.inputLatencyMs.p50} / ${r.inputLatencyMs.p95}`,
      "edit p50/p95": `${r.editToVersionMs.p50} / ${r.editToVersionMs.p95}`,
    })),
  );
}

await main();
